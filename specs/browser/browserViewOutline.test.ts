import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { rm } from 'node:fs/promises'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openQuire, type Quire } from '../../adapters/host/quire.js'
import { startHttpServer, type HttpServer } from '../../adapters/http/daemon.js'
import { eventually, launchChromium, screenshot } from '../support/browser.js'
import { connectInProcess, tempDir, toolCaller } from '../support/mcpHarness.js'

/** The engine's viewport, in the DIPs the frames and the person's input are measured in. */
const FRAME = { width: 1280, height: 800 }
/** The shop page, tall enough to scroll: the button the assistant asks to click sits under its price line. */
const shop = (zoom: number) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Laptop Pro 14</title>
<style>html { zoom: ${zoom}; } body { margin: 8px; font: 16px serif; } .hero { height: 700px; background: #eef; }</style></head>
<body><div class="hero">Laptop Pro 14</div><h1>Laptop Pro 14</h1><p>Was $499. Free delivery. Only 3 left in stock.</p>
<button type="button">Add to cart</button><div style="height: 1600px"></div></body></html>`

interface Rect { x: number; y: number; width: number; height: number }
/** What the console shows: the live view's box, its picture's size, the frame it says it shows, the outlines. */
interface LiveState {
  img: Rect
  natural: { width: number; height: number }
  frames: number
  /** The page's scroll offset in the frame shown, when the view says (data-scroll-x/y); else the page as it is now. */
  frameScroll: { x: number; y: number } | null
  outlines: Rect[]
}

/**
 * Issue 24 item 6: while an assistant waits for the person's approval to click an element, the Browser view outlines
 * that element on the live view, exactly on it: on a page the person scrolled (before the request and while it waits),
 * on a page zoomed by CSS, with the console itself on a screen of device scale factor 2. The outline's rectangle in
 * the console is mapped back to the frame (the picture the img shows, object-fit: contain, is the engine's 1280 × 800
 * viewport) and compared with the element's box measured in the page's DOM (browser_read's query box, its
 * getBoundingClientRect), within 1.5 px. The assistant is a real MCP client whose `act` asks for the approval.
 */
describe('issue 24 item 6: the approval outline sits on the element the assistant named (Chromium, console at DSF 2)', () => {
  let home: string
  let quire: Quire
  let server: HttpServer
  let site: Server
  let origin: string
  let browser: Browser
  let page: Page
  let claude: { client: Client; server: { close(): Promise<void> } }
  let tabId: string
  const asked: Array<Promise<unknown>> = []

  /** The assistant's tool call, its result checked against the tool's output schema (mcpHarness's toolCaller). */
  async function call(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const result = await toolCaller(claude.client)(tool, args)
    if (result.isError) throw new Error(`${tool} ${String(args.action)}: ${result.text}`)
    return result.structured ?? {}
  }

  beforeAll(async () => {
    home = await tempDir('quire-browser-outline-')
    quire = await openQuire(home, { watchDisk: false })
    server = await startHttpServer(quire.services)
    site = createServer((request, response) => {
      const zoom = request.url === '/zoomed' ? 1.5 : request.url === '/shop' ? 1 : undefined
      response.writeHead(zoom === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' })
      response.end(zoom === undefined ? '' : shop(zoom))
    })
    await new Promise<void>((listening) => site.listen(0, '127.0.0.1', listening))
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
    claude = await connectInProcess(quire.services, 'mcp-claude-1', 'claude')
    tabId = ((await call('browser', { action: 'open', url: `${origin}/shop` })) as { tabId: string }).tabId
    browser = await launchChromium()
    page = await (await browser.newContext({ viewport: { width: 1280, height: 820 }, deviceScaleFactor: 2 })).newPage()
    await page.goto(`${server.url}/?token=${server.token}`)
    await page.locator('.tabstrip').waitFor()
    await page.locator('.browser-open').click()
    await page.locator(`.browser-tab[data-tab-id="${tabId}"]`).click()
    await eventually(() => page.locator('.browser-live').getAttribute('data-frames-of'), (of) => of === tabId)
  })
  afterAll(async () => {
    for (const approval of await quire.services.approvals.list()) {
      if (approval.status === 'pending') await quire.services.approvals.decide(approval.approvalId, 'denied', { kind: 'user' })
    }
    await Promise.allSettled(asked)
    await browser?.close()
    await claude?.client.close()
    await claude?.server.close()
    await server?.close()
    await quire?.close()
    await new Promise((closed) => site?.close(closed))
    await rm(home, { recursive: true, force: true })
  })

  /** The button's box and the page's scroll offset, from the page's DOM at one instant (CSS pixels of its viewport). */
  async function inPage(): Promise<{ button: Rect; scroll: { x: number; y: number } }> {
    const { elements } = (await call('browser_read', { action: 'query', tabId, selector: 'html, button', fields: { box: true } })) as { elements: Array<{ tag: string; box: Rect }> }
    const html = elements.find((element) => element.tag === 'html')!.box
    return { button: elements.find((element) => element.tag === 'button')!.box, scroll: { x: -html.x, y: -html.y } }
  }

  /** One look at the console, at one instant (the test's code runs in the console page, which has the DOM). */
  function live(): Promise<LiveState> {
    return page.locator('.browser-live').evaluate((img) => {
      interface Boxed { getBoundingClientRect(): Rect; getClientRects(): { length: number } }
      const rect = (element: Boxed): Rect => {
        const box = element.getBoundingClientRect()
        return { x: box.x, y: box.y, width: box.width, height: box.height }
      }
      const live = img as unknown as Boxed & { naturalWidth: number; naturalHeight: number; getAttribute(name: string): string | null; ownerDocument: { querySelectorAll(selector: string): Iterable<Boxed> } }
      const scrollX = live.getAttribute('data-scroll-x')
      const scrollY = live.getAttribute('data-scroll-y')
      return {
        img: rect(live),
        natural: { width: live.naturalWidth, height: live.naturalHeight },
        frames: Number(live.getAttribute('data-frames')),
        frameScroll: scrollX === null || scrollY === null ? null : { x: Number(scrollX), y: Number(scrollY) },
        outlines: [...live.ownerDocument.querySelectorAll('.browser-outline')].filter((outline) => outline.getClientRects().length > 0).map(rect),
      }
    })
  }

  /** An outline's rectangle in the console, mapped back to the frame: the picture fills the img as object-fit: contain. */
  function toFrame(state: LiveState, outline: Rect): Rect {
    const scale = Math.min(state.img.width / state.natural.width, state.img.height / state.natural.height)
    const picture = {
      x: state.img.x + (state.img.width - state.natural.width * scale) / 2,
      y: state.img.y + (state.img.height - state.natural.height * scale) / 2,
      width: state.natural.width * scale,
      height: state.natural.height * scale,
    }
    const sx = picture.width / FRAME.width
    const sy = picture.height / FRAME.height
    return { x: (outline.x - picture.x) / sx, y: (outline.y - picture.y) / sy, width: outline.width / sx, height: outline.height / sy }
  }

  /**
   * Every outline the view draws is on the button as the frame it is drawn over shows it: the button's box in the
   * page, moved by the difference between the page's scroll now and the frame's.
   */
  async function expectOnButton(state: LiveState): Promise<void> {
    const now = await inPage()
    const frameScroll = state.frameScroll ?? now.scroll
    const expected = { x: now.button.x + now.scroll.x - frameScroll.x, y: now.button.y + now.scroll.y - frameScroll.y, width: now.button.width, height: now.button.height }
    // The steps keep the button in view: an outline of something out of view would be clipped away.
    expect(expected.y >= 0 && expected.y + expected.height <= FRAME.height, `the button at ${JSON.stringify(expected)} is in view`).toBe(true)
    for (const outline of state.outlines) {
      const mapped = toFrame(state, outline)
      for (const key of ['x', 'y', 'width', 'height'] as const) {
        expect(Math.abs(mapped[key] - expected[key]), `outline ${key}: ${JSON.stringify(mapped)} vs the button ${JSON.stringify(expected)}`).toBeLessThanOrEqual(1.5)
      }
    }
  }

  /** Waits for the outline to be drawn, then checks it. */
  async function outlineSettles(): Promise<void> {
    const state = await eventually(live, (seen) => seen.outlines.length === 1)
    await expectOnButton(state)
  }

  /**
   * The person turns the wheel over the live view; from the first frame after it, whatever outline is drawn is on
   * the button, and once drawn again it is too. (At the console's device scale factor of 2 its wheel event carries
   * half playwright's delta, so the page scrolls half as far.)
   */
  async function personScrolls(deltaY: number): Promise<void> {
    const before = await inPage()
    const seen = (await live()).frames
    const img = (await live()).img
    // Over the page's right side, away from anything that changes when hovered.
    await page.mouse.move(img.x + img.width * 0.85, img.y + img.height * 0.6)
    await page.mouse.wheel(0, deltaY)
    await eventually(inPage, (now) => now.scroll.y !== before.scroll.y)
    const state = await eventually(live, (shown) => shown.frames > seen)
    await expectOnButton(state)
    if (await page.locator('.browser-approval').isVisible()) await outlineSettles()
  }

  async function askToClick(): Promise<void> {
    asked.push(call('browser', { action: 'act', operation: 'click', tabId, role: 'button', name: 'Add to cart' }).catch(() => undefined))
    await page.locator('.browser-approval').waitFor()
    await eventually(() => page.locator('.browser-approval-subject').textContent(), (text) => text === `click button "Add to cart" on ${origin}`)
  }

  it('on a page scrolled before the request, and while the person scrolls it during the wait', async () => {
    await personScrolls(420)
    expect((await inPage()).scroll.y).toBeGreaterThan(0)
    await askToClick()
    await outlineSettles()
    await screenshot(page, 'issue24-item6-outline-scrolled')
    await personScrolls(-150)
    await personScrolls(230)
    await personScrolls(-40)
    await screenshot(page, 'issue24-item6-outline-scrolled-again')
  })

  it('on a page zoomed by CSS (html { zoom: 1.5 }), scrolled before the request and while it waits', async () => {
    for (const approval of await quire.services.approvals.list()) {
      if (approval.status === 'pending') await quire.services.approvals.decide(approval.approvalId, 'denied', { kind: 'user' })
    }
    await call('browser', { action: 'navigate', tabId, url: `${origin}/zoomed` })
    await eventually(() => page.locator('.browser-approval').isHidden(), (hidden) => hidden)
    await personScrolls(1680)
    await askToClick()
    await outlineSettles()
    await personScrolls(200)
    await screenshot(page, 'issue24-item6-outline-zoomed')
    await personScrolls(-120)
  })
})
