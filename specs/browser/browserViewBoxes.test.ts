import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { locateOnFrames } from '../../adapters/browser/liveOutline.js'
import { dispatchPersonInput, startScreencast } from '../../adapters/browser/liveView.js'
import type { ScreencastFrame } from '../../adapters/browser/personSide.js'
import { eventually, launchChromium } from '../support/browser.js'

const SHOP = `<!doctype html><html lang="en"><head><title>Laptop Pro 14</title>
<style>body { margin: 8px; font: 16px serif; } .hero { height: 500px; background: #eef; } .zoomed { zoom: 1.5; }</style></head>
<body><div class="hero">Laptop Pro 14</div><main><h1>Laptop Pro 14</h1><p>Was $499. Free delivery. Only 3 left in stock.</p>
<button type="button" onclick="window.pressed = (window.pressed ?? 0) + 1">Add to cart</button></main>
<div style="height: 1600px"></div></body></html>`

interface Rect { x: number; y: number; width: number; height: number }

/**
 * Issue 24 item 6, the engine's half: the box the live view outlines for an element an assistant names is in the
 * frames' own coordinates (the DIPs of the visual viewport, which the screencast shows and the person's input is
 * dispatched at), with the viewport it was measured at, whatever the page's scroll, its pinch scale (the visual
 * viewport, zoomed as a touchpad pinch does, through DevTools' synthesized pinch), the CSS zoom of the element and
 * the device scale factor. Checked against the element's box measured in the page's DOM, against the frame the
 * screencast sends at that moment, and by pressing the button at the box's centre as the live view's click would.
 */
describe('issue 24 item 6: the element box for the live view is in the frame\'s coordinates', () => {
  let browser: Browser

  beforeAll(async () => {
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
  })

  async function shopPage(deviceScaleFactor: number): Promise<{ context: BrowserContext; page: Page; cdp: CDPSession }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor })
    const page = await context.newPage()
    await page.setContent(SHOP)
    return { context, page, cdp: await context.newCDPSession(page) }
  }

  /** The button as the frame shows it, from the page's DOM: its layout box moved into the visual viewport, scaled by its zoom. */
  function buttonOnScreen(page: Page): Promise<Rect> {
    return page.evaluate(`(() => {
      const box = document.querySelector('button').getBoundingClientRect()
      const { offsetLeft, offsetTop, scale } = window.visualViewport
      return { x: (box.x - offsetLeft) * scale, y: (box.y - offsetTop) * scale, width: box.width * scale, height: box.height * scale }
    })()`)
  }

  async function frameOf(page: Page): Promise<ScreencastFrame> {
    let arrived: ScreencastFrame | undefined
    const stop = await startScreencast(page, (frame) => (arrived ??= frame))
    try {
      return (await eventually(async () => arrived, (frame) => frame !== undefined))!
    } finally {
      await stop()
    }
  }

  async function expectExact(page: Page): Promise<void> {
    const located = await locateOnFrames(page, 'button', 'Add to cart')
    const expected = await buttonOnScreen(page)
    expect(located.boxes).toHaveLength(1)
    const [box] = located.boxes
    for (const key of ['x', 'y', 'width', 'height'] as const) {
      expect(Math.abs(box![key] - expected[key]), `${key}: ${JSON.stringify(box)} vs ${JSON.stringify(expected)}`).toBeLessThanOrEqual(1)
    }
    // The frame the screencast sends now shows the page at the viewport the box was measured at.
    const frame = await frameOf(page)
    expect(Math.abs(frame.viewport.scrollX - located.viewport.scrollX)).toBeLessThanOrEqual(0.5)
    expect(Math.abs(frame.viewport.scrollY - located.viewport.scrollY)).toBeLessThanOrEqual(0.5)
    expect(frame.viewport.scale).toBeCloseTo(located.viewport.scale, 3)
    expect({ width: frame.width, height: frame.height, offsetTop: frame.offsetTop }).toEqual({ width: 1280, height: 800, offsetTop: 0 })
    // The person's click at the box's centre, as the live view sends it (DevTools takes input in CSS pixels of the
    // visual viewport: the frame's DIPs over its pinch scale), presses the button.
    const before = await page.evaluate('window.pressed ?? 0')
    const at = { x: (box!.x + box!.width / 2) / frame.viewport.scale, y: (box!.y + box!.height / 2) / frame.viewport.scale }
    await dispatchPersonInput(page, { kind: 'mouse', action: 'down', ...at, button: 'left' })
    await dispatchPersonInput(page, { kind: 'mouse', action: 'up', ...at, button: 'left' })
    expect(await page.evaluate('window.pressed ?? 0')).toBe(Number(before) + 1)
  }

  /** A pinch of the visual viewport by `scale`, centred on the button so that it stays in view. */
  async function pinch(page: Page, cdp: CDPSession, scale: number): Promise<void> {
    const box = await buttonOnScreen(page)
    await cdp.send('Input.synthesizePinchGesture', { x: box.x + box.width / 2, y: box.y + box.height / 2, scaleFactor: scale })
    await eventually(() => page.evaluate('window.visualViewport.scale') as Promise<number>, (now) => Math.abs(now - scale) < 0.01)
  }

  it('on a scrolled page', async () => {
    const { context, page } = await shopPage(1)
    await page.evaluate('window.scrollTo(0, 300)')
    await expectExact(page)
    await context.close()
  })

  it('on a page pinched to scale 2, scrolled', async () => {
    const { context, page, cdp } = await shopPage(1)
    await page.evaluate('window.scrollTo(0, 200)')
    await pinch(page, cdp, 2)
    await expectExact(page)
    await context.close()
  })

  it('at a device scale factor of 2, pinched to 1.5, the button in a CSS-zoomed block', async () => {
    const { context, page, cdp } = await shopPage(2)
    await page.evaluate(`document.querySelector('main').className = 'zoomed'; window.scrollTo(0, 250)`)
    await pinch(page, cdp, 1.5)
    await expectExact(page)
    await context.close()
  })
})
