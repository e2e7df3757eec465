/**
 * The console link in Chromium (issue 11, finding 13): after the first load the address bar holds no token and no
 * code, the page's script cannot read the session (HttpOnly cookie, nothing in sessionStorage), and the editor still
 * connects to its document over /collab with that cookie.
 */
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium, openTab } from '../support/browser.js'
import { folder, ok } from '../support/conformance.js'
import { launchDaemon, type Daemon } from '../support/mcpHarness.js'
import { printedUpToConsoleLine } from './serveOutput.js'

describe('the console link in Chromium', () => {
  let workspace: string
  let daemon: Daemon
  let browser: Browser
  let link: string
  let tabId: string

  beforeAll(async () => {
    workspace = await folder('security-console-browser', { 'notes.md': '# Notes\n\nhello\n' })
    daemon = await launchDaemon({ workspaces: [workspace] })
    link = /^console: (\S+)$/m.exec(await printedUpToConsoleLine(daemon.process.stdout!))![1]!
    const mcp = await daemon.connect()
    tabId = ok(await mcp.call('workspace', { action: 'open', filePath: join(workspace, 'notes.md') })).tabId
    await mcp.close()
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await daemon?.stop()
    await rm(workspace, { recursive: true, force: true })
  })

  it('the printed link signs the console in; the address bar and the page keep no credential; the editor syncs', async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(link)
    await page.locator('.tabstrip .tab').first().waitFor()
    expect(page.url()).toBe(`${daemon.url}/`)
    // What the page's own script can read (specs compile without DOM types: the globals are restated here).
    const seenByScript = await page.evaluate(() => {
      const page = globalThis as unknown as { document: { cookie: string }; sessionStorage: object; localStorage: object }
      return { cookie: page.document.cookie, stored: JSON.stringify({ ...page.sessionStorage, ...page.localStorage }) }
    })
    expect(seenByScript.cookie).not.toContain('quire_session')
    expect(seenByScript.stored).not.toContain(daemon.token)
    expect(seenByScript.stored).not.toContain(new URL(link).searchParams.get('code')!)
    const editor = await openTab(page, tabId, 'wysiwyg')
    expect(editor.text).toBe('Notes\nhello') // the WYSIWYG view's text: the document arrived over /collab
    // A reload keeps the session (the cookie), with nothing in the address bar.
    await page.reload()
    await page.locator('.tabstrip .tab').first().waitFor()
    expect(page.url()).toBe(`${daemon.url}/`)
    await context.close()
  })

  it('a browser without the cookie is signed out, and the used link does not sign it in', async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(link)
    await page.locator('.signed-out').waitFor()
    expect(page.url()).toBe(`${daemon.url}/`)
    await context.close()
  })

  it('two daemons in one browser: signing in to the second keeps the first signed in; each cookie works only for its own daemon', async () => {
    const otherWorkspace = await folder('security-console-browser-other', { 'other.md': '# Other\n' })
    const other = await launchDaemon({ workspaces: [otherWorkspace] })
    const context = await browser.newContext()
    try {
      const otherLink = /^console: (\S+)$/m.exec(await printedUpToConsoleLine(other.process.stdout!))![1]!
      // A tab on each, so a signed-in console shows one (a signed-out one never does).
      const mcp = await other.connect()
      ok(await mcp.call('workspace', { action: 'open', filePath: join(otherWorkspace, 'other.md') }))
      await mcp.close()
      const first = await context.newPage()
      await first.goto(`${daemon.url}/?token=${daemon.token}`)
      await first.locator('.tabstrip .tab').first().waitFor()
      const second = await context.newPage()
      await second.goto(otherLink)
      await second.locator('.tabstrip .tab').first().waitFor()

      // What each page's own API calls get, with the cookies the browser chose to send (specs compile without DOM types).
      const apiStatus = (page: typeof first) =>
        page.evaluate(async () => (await (globalThis as unknown as { fetch: typeof fetch }).fetch('/console/api/state')).status)
      expect(await apiStatus(first)).toBe(200)
      expect(await apiStatus(second)).toBe(200)
      // Reloaded, both are still signed in: the second sign-in replaced nothing of the first's.
      for (const page of [first, second]) {
        await page.reload()
        await page.locator('.tabstrip .tab').first().waitFor()
        expect(await page.locator('.signed-out').count()).toBe(0)
      }

      // One cookie jar for 127.0.0.1, one cookie per daemon, each named for its daemon's port.
      const cookies = await context.cookies(daemon.url)
      expect(cookies.map((cookie) => cookie.name).sort()).toEqual([`quire_session_${daemon.port}`, `quire_session_${other.port}`].sort())
      for (const cookie of cookies) expect(cookie.httpOnly).toBe(true)
      const value = (port: number) => cookies.find((cookie) => cookie.name === `quire_session_${port}`)!.value
      // Each works only for its own daemon: presented to the other (under either name), it is refused.
      const status = async (url: string, cookie: string) => (await fetch(`${url}/console/api/state`, { headers: { cookie } })).status
      expect(await status(daemon.url, `quire_session_${daemon.port}=${value(daemon.port)}`)).toBe(200)
      expect(await status(other.url, `quire_session_${other.port}=${value(other.port)}`)).toBe(200)
      expect(await status(other.url, `quire_session_${other.port}=${value(daemon.port)}`)).toBe(401)
      expect(await status(daemon.url, `quire_session_${daemon.port}=${value(other.port)}`)).toBe(401)
    } finally {
      await context.close()
      await other.stop()
      await rm(otherWorkspace, { recursive: true, force: true })
    }
  })
})
