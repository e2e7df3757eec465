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
})
