import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openQuire, type Quire } from '../../adapters/host/quire.js'
import { startHttpServer, type HttpServer } from '../../adapters/http/daemon.js'
import { serveFixtureSite, type FixtureSite } from '../browser-engine/support/fixtureSite.js'
import { eventually, launchChromium } from '../support/browser.js'
import { REPO_ROOT, tempDir } from '../support/mcpHarness.js'

/**
 * The console's Browser view (DESIGN §9 "Browser"): the person sees every tab, the assistants' marked with their
 * assistant, watches one live and takes it over; the pending browser requests about the shown tab sit over it.
 * The daemon runs in this process, so the test can open an assistant's tab through the daemon's own engine
 * (services.browser) the way the MCP tools do. With QUIRE_SCREENSHOTS=1 it writes docs/screenshots/browser-*.png.
 */
describe('console Browser view (Chromium)', () => {
  let home: string
  let quire: Quire
  let server: HttpServer
  let site: FixtureSite
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    home = await tempDir('quire-browser-view-')
    quire = await openQuire(home, { watchDisk: false })
    server = await startHttpServer(quire.services)
    site = await serveFixtureSite()
    browser = await launchChromium()
    page = await (await browser.newContext({ viewport: { width: 1280, height: 820 } })).newPage()
    await page.goto(`${server.url}/?token=${server.token}`)
    await page.locator('.tabstrip').waitFor()
    await page.locator('.browser-open').click()
    await page.locator('.browser-view').waitFor()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
    await quire?.close()
    await site?.close()
    await rm(home, { recursive: true, force: true })
  })

  const frames = () => page.locator('.browser-live').getAttribute('data-frames').then(Number)

  /** Clicks the live view where the page's viewport point (x, y) is shown (the view scales the frames to fit). */
  async function clickPage(x: number, y: number): Promise<void> {
    const box = (await page.locator('.browser-live').boundingBox())!
    await page.mouse.click(box.x + (x * box.width) / 1280, box.y + (y * box.height) / 800)
  }

  it('the person opens a tab of their own, sees it live, and a click on the live view presses the page\'s button', async () => {
    await page.locator('.browser-new').click()
    await page.locator('.browser-url').fill(site.url('/takeover.html'))
    await page.locator('.browser-url').press('Enter')
    const tab = page.locator('.browser-tab[data-mode="human"]')
    await tab.waitFor()
    expect(await tab.locator('.browser-tab-owner').textContent()).toBe('You')
    expect(await tab.getAttribute('aria-selected')).toBe('true')
    const [listed] = await quire.services.browser.listTabs()
    expect(listed).toMatchObject({ automationMode: 'human', title: 'Takeover' })
    await eventually(frames, (count) => count >= 1)
    expect(await page.locator('.browser-live').getAttribute('data-frames-of')).toBe(listed!.tabId)
    expect(await page.locator('.browser-live').getAttribute('src')).toMatch(/^data:image\/jpeg;base64,/)

    // The button is at x 100–300, y 100–180 of the page's viewport.
    await clickPage(200, 140)
    await eventually(() => tab.locator('.browser-tab-title').textContent(), (title) => title === 'Pressed 1')
    // The page's new rendering arrives as frames too.
    const seen = await frames()
    await clickPage(200, 140)
    await eventually(() => tab.locator('.browser-tab-title').textContent(), (title) => title === 'Pressed 2')
    await eventually(frames, (count) => count > seen)

    // Keys typed on the focused live view go to the field the person clicked into.
    await clickPage(150, 310)
    await page.keyboard.type('hi there')
    await eventually(() => tab.locator('.browser-tab-title').textContent(), (title) => title === 'Typed hi there')
    await page.keyboard.press('Backspace')
    await eventually(() => tab.locator('.browser-tab-title').textContent(), (title) => title === 'Typed hi ther')

    // The address bar of the person's own tab navigates it; × closes it.
    await page.locator('.browser-url').fill(site.url('/form.html'))
    await page.locator('.browser-url').press('Enter')
    await eventually(() => tab.locator('.browser-tab-title').textContent(), (title) => title === 'Forms')
    await tab.locator('.browser-tab-close').click()
    await eventually(() => page.locator('.browser-tab').count(), (count) => count === 0)
    expect(await quire.services.browser.listTabs()).toEqual([])
  })

  it('an assistant\'s tab shows up marked with its assistant, read-only address, live; the person can take it over', async () => {
    const opened = await quire.services.browser.open('claude', site.url('/takeover.html?token=secret'))
    const tab = page.locator(`.browser-tab[data-tab-id="${opened.tabId}"]`)
    await tab.waitFor()
    expect(await tab.getAttribute('data-mode')).toBe('ai-sandbox')
    expect(await tab.locator('.browser-tab-owner').textContent()).toBe('claude')
    await tab.click()
    expect(await page.locator('.browser-url').inputValue()).toBe(site.url('/takeover.html'))
    expect(await page.locator('.browser-url').getAttribute('readonly')).not.toBeNull()
    await eventually(() => page.locator('.browser-note').textContent(), (note) => note === "claude's tab (sandbox)")
    await eventually(() => page.locator('.browser-live').getAttribute('data-frames-of'), (of) => of === opened.tabId)
    await clickPage(200, 140)
    await eventually(() => tab.locator('.browser-tab-title').textContent(), (title) => title === 'Pressed 1')
    if (process.env.QUIRE_SCREENSHOTS === '1') await shoot(page, 'browser-view-ai-tab')
  })

  it('a pending browser request about the shown tab is a banner over the live view, naming the assistant and the element', async () => {
    const [shown] = (await quire.services.browser.listTabs()).filter((tab) => tab.principal === 'claude')
    const subject = JSON.stringify({ tabId: shown!.tabId, origin: site.origin, verb: 'click', role: 'button', name: 'Press me' })
    await quire.services.approvals.gate('browser_act', subject, 'mcp-test-1', 'claude', { kind: 'mcp', principal: 'claude', connection: 'mcp-test-1' }, site.origin)
    const banner = page.locator('.browser-approval')
    await banner.waitFor()
    expect(await banner.locator('.browser-approval-principal').textContent()).toBe('claude')
    expect(await banner.locator('.browser-approval-target').textContent()).toBe('button "Press me"')
    expect(await banner.locator('.browser-approval-where').textContent()).toBe(site.origin)
    if (process.env.QUIRE_SCREENSHOTS === '1') await shoot(page, 'browser-view-approval')
    // Another tab's requests stay off this one.
    await page.locator('.browser-new').click()
    await eventually(() => banner.isHidden(), (hidden) => hidden)
  })

  it('the Browser API is the person\'s: without the console cookie or the port file\'s token it is refused', async () => {
    expect((await fetch(`${server.url}/console/api/browser/tabs`)).status).toBe(401)
    const open = await fetch(`${server.url}/console/api/browser/tabs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"url":"http://127.0.0.1/"}' })
    expect(open.status).toBe(401)
    const asPerson = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }
    const bad = await fetch(`${server.url}/console/api/browser/tabs/tab-1/input`, { method: 'POST', headers: asPerson, body: JSON.stringify({ input: { kind: 'mouse', action: 'fly', x: 1, y: 1 } }) })
    expect(bad.status).toBe(400)
    const missing = await fetch(`${server.url}/console/api/browser/tabs/tab-999/frames`, { headers: asPerson })
    expect(missing.status).toBe(404)
    const file = await fetch(`${server.url}/console/api/browser/tabs`, { method: 'POST', headers: asPerson, body: JSON.stringify({ url: 'file:///etc/passwd' }) })
    expect(await file.json()).toMatchObject({ error: 'INVALID_URL' })
  })

  it('with the Embedded browser setting off, the person cannot open a tab (BR.GEN.1)', async () => {
    await quire.services.settings.set('embeddedBrowser', false, { kind: 'user' } as never)
    const asPerson = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }
    const refused = await fetch(`${server.url}/console/api/browser/tabs`, { method: 'POST', headers: asPerson, body: JSON.stringify({ url: site.url('/') }) })
    expect(refused.status).toBe(409)
    expect(await refused.json()).toMatchObject({ error: 'BROWSER_DISABLED' })
    await eventually(() => page.locator('.browser-new').isDisabled(), (disabled) => disabled)
    await quire.services.settings.set('embeddedBrowser', true, { kind: 'user' } as never)
  })
})

async function shoot(page: Page, name: string): Promise<void> {
  const folder = join(REPO_ROOT, 'docs', 'screenshots')
  await mkdir(folder, { recursive: true })
  await page.screenshot({ path: join(folder, `${name}.png`) })
}
