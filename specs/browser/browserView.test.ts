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
    // The strip lists the tab on its next poll, and selects it once the open has answered: wait for the selection.
    await eventually(() => tab.getAttribute('aria-selected'), (selected) => selected === 'true')
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
    // Redacted, like every URL the engine gives out; the list may first show the tab before its page loaded.
    await eventually(() => page.locator('.browser-url').inputValue(), (url) => url === site.url('/takeover.html'))
    expect(await page.locator('.browser-url').getAttribute('readonly')).not.toBeNull()
    await eventually(() => page.locator('.browser-note').textContent(), (note) => note === "claude's tab (sandbox)")
    await eventually(() => page.locator('.browser-live').getAttribute('data-frames-of'), (of) => of === opened.tabId)
    await clickPage(200, 140)
    await eventually(() => tab.locator('.browser-tab-title').textContent(), (title) => title === 'Pressed 1')
    if (process.env.QUIRE_SCREENSHOTS === '1') await shoot(page, 'browser-view-ai-tab')
  })

  it('a pending browser request about the shown tab is a banner over the live view, naming the assistant and the element', async () => {
    const [shown] = (await quire.services.browser.listTabs()).filter((tab) => tab.principal === 'claude')
    const asker = { connection: 'mcp-test-1', principal: 'claude', actor: { kind: 'mcp', principal: 'claude', connection: 'mcp-test-1' } } as const
    // What the browser tool asks before a click it has no grant for; it waits for the person meanwhile.
    const click = { kind: 'act', operation: 'click', origin: site.origin, tabId: shown!.tabId, target: { role: 'button', name: 'Press me' } } as const
    const waiting = quire.services.browserAccess.authorize(click, asker, { waitMs: 30_000 })
    const banner = page.locator('.browser-approval')
    await banner.waitFor()
    expect(await banner.locator('.browser-approval-principal').textContent()).toBe('claude')
    expect(await banner.locator('.browser-approval-subject').textContent()).toBe(`click button "Press me" on ${site.origin}`)
    // The button it asks to click is outlined on the live view (it is at x 100, y 100, 200 × 80 in the page).
    const outline = page.locator('.browser-outline')
    await outline.waitFor()
    expect(await outline.count()).toBe(1)
    const live = (await page.locator('.browser-live').boundingBox())!
    const drawn = (await outline.boundingBox())!
    const scale = live.width / 1280
    expect(Math.abs(drawn.x - (live.x + 100 * scale))).toBeLessThan(4)
    expect(Math.abs(drawn.y - (live.y + 100 * scale))).toBeLessThan(4)
    expect(Math.abs(drawn.width - 200 * scale)).toBeLessThan(4)
    expect(Math.abs(drawn.height - 80 * scale)).toBeLessThan(4)
    if (process.env.QUIRE_SCREENSHOTS === '1') await shoot(page, 'browser-view-approval')

    // The banner's button opens the Approvals panel, where the person decides; the banner goes once decided.
    await banner.locator('.browser-approval-open').click()
    const item = page.locator(`.approval[data-approval-id="${await banner.locator('.browser-approval-item').getAttribute('data-approval-id')}"]`)
    await item.locator('button.approve').first().click()
    expect(await waiting).toMatchObject({ granted: true })
    await eventually(() => banner.isHidden(), (hidden) => hidden)
    await page.locator('.drawer-close').click()
    expect(await outline.count()).toBe(0)

    // Another assistant's request on the same site is not about this tab.
    const theirs = quire.services.browserAccess.authorize({ ...click, tabId: 'tab-elsewhere' }, { ...asker, principal: 'gemini', connection: 'mcp-test-2' }, { waitMs: 30_000 })
    // Both pollers of the approvals list (the panel's badge and the Browser view) have seen it pending.
    await eventually(() => page.locator('.panel-open[data-panel="approvals"] .panel-badge').textContent(), (text) => text === '1')
    let answered = 0
    const counting = (response: { url(): string }) => void (response.url().endsWith('/console/api/panels/approvals') && answered++)
    page.on('response', counting)
    await eventually(async () => answered, (count) => count >= 3)
    page.off('response', counting)
    expect(await banner.isHidden()).toBe(true)
    const [pendingTheirs] = (await quire.services.approvals.list()).filter((approval) => approval.principal === 'gemini' && approval.status === 'pending')
    await quire.services.approvals.decide(pendingTheirs!.approvalId, 'denied', { kind: 'user' })
    expect(await theirs).toMatchObject({ granted: false })
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
