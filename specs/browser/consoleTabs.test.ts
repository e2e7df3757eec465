import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually, launchChromium, openConsole, screenshot } from '../support/browser.js'
import { launchDaemon, tempDir, type Daemon, type Session } from '../support/mcpHarness.js'

interface StateTab {
  readonly id: string
  readonly title: string
  readonly dirty: boolean
  readonly kind: string
  readonly active: boolean
  readonly visible: boolean
}
interface StateWindow {
  readonly label: string
  readonly tabs: readonly StateTab[]
}

/** The console shows what `session.get_state` reports, and a person's tab switch is what get_state then reports. */
describe('console windows and tabs (Chromium)', () => {
  let folder: string
  let daemon: Daemon
  let mcp: Session
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    folder = await tempDir('quire-browser-tabs-')
    daemon = await launchDaemon({ workspaces: [folder] })
    mcp = await daemon.connect()
    browser = await launchChromium()
  })

  afterAll(async () => {
    await browser?.close()
    await mcp?.close()
    await daemon?.stop()
    await rm(folder, { recursive: true, force: true })
  })

  const windows = async () => ((await mcp.call('session', { action: 'get_state' })).structured as { windows: StateWindow[] }).windows

  /** The tab strip as the person sees it: id, title, kind badge, dirty marker, which one is current. */
  const strip = (page: Page) =>
    page.locator('.tabstrip .tab').evaluateAll((tabs) =>
      tabs.map((tab) => ({
        id: tab.getAttribute('data-tab-id'),
        title: tab.querySelector('.tab-title')?.textContent,
        kind: tab.querySelector('.tab-kind')?.textContent,
        dirty: tab.querySelector('.tab-dirty')?.textContent === '●',
        active: tab.getAttribute('aria-selected') === 'true',
      })),
    )

  it('lists the windows and tabs get_state reports, and a click in the console switches the tab get_state reports', async () => {
    for (const [name, content] of [['alpha.md', '# Alpha\n'], ['beta.md', '# Beta\n']] as const) {
      await writeFile(join(folder, name), content)
      const opened = await mcp.call('workspace', { action: 'open', filePath: join(folder, name) })
      expect(opened.isError, opened.text).toBe(false)
    }
    const created = await mcp.call('workspace', { action: 'new', kind: 'yaml-workflow' })
    expect(created.isError, created.text).toBe(false)
    const untitled = created.structured!.tabId as string
    // An unsaved edit, so one tab is dirty.
    const write = await mcp.call('document', { action: 'write', tabId: untitled, content: 'on: push\njobs: {}\n', save: false })
    expect(write.isError, write.text).toBe(false)

    page = await openConsole(browser, daemon)
    const reported = await windows()
    const labels = await page.locator('#window-select option').evaluateAll((options) => options.map((option) => option.getAttribute('value')))
    expect(labels).toEqual(reported.map((window) => window.label))
    const main = reported.find((window) => window.label === 'main')!
    const expected = main.tabs
      .filter((tab) => tab.visible)
      .map((tab) => ({ id: tab.id, title: tab.title, kind: tab.kind === 'yaml-workflow' ? 'yaml' : 'md', dirty: tab.dirty, active: tab.active }))
    await eventually(() => strip(page), (shown) => JSON.stringify(shown) === JSON.stringify(expected))
    expect(expected.map((tab) => tab.title)).toEqual(['alpha', 'beta', 'Untitled'])
    expect(expected.find((tab) => tab.id === untitled)).toMatchObject({ dirty: true, active: true, kind: 'yaml' })

    const alpha = main.tabs.find((tab) => tab.title === 'alpha')!
    await page.locator(`.tab[data-tab-id="${alpha.id}"]`).click()
    const after = await eventually(windows, (now) => now[0]!.tabs.find((tab) => tab.id === alpha.id)!.active)
    expect(after[0]!.tabs.filter((tab) => tab.active).map((tab) => tab.id)).toEqual([alpha.id])
    await eventually(() => strip(page), (shown) => shown.find((tab) => tab.active)?.id === alpha.id)
    await screenshot(page, 'console-tabs')

    // And the other way: an assistant's switch_tab shows in the console.
    const switched = await mcp.call('workspace', { action: 'switch_tab', tabId: untitled })
    expect(switched.isError, switched.text).toBe(false)
    await eventually(() => strip(page), (shown) => shown.find((tab) => tab.active)?.id === untitled)
    await eventually(() => page.locator('.mode-switch .mode').count(), (count) => count === 1)
  })

  it('without a token the page says how to get the link, and the API refuses it', async () => {
    const context = await browser.newContext()
    const anonymous = await context.newPage()
    await anonymous.goto(daemon.url)
    await expect(anonymous.locator('.signed-out').textContent()).resolves.toContain('quire serve')
    await screenshot(anonymous, 'console-signed-out')
    const refused = await fetch(`${daemon.url}/console/api/state`)
    expect(refused.status).toBe(401)
    const agentless = await fetch(`${daemon.url}/console/api/state`, { headers: { authorization: 'Bearer not-the-token' } })
    expect(agentless.status).toBe(401)
    await context.close()
  })

  it('the link drops the token from the address bar and keeps working after a reload', async () => {
    const context = await browser.newContext()
    const person = await context.newPage()
    await person.goto(`${daemon.url}/?token=${daemon.token}`)
    await person.locator('.tabstrip .tab').first().waitFor()
    expect(person.url()).toBe(`${daemon.url}/`)
    await person.reload()
    await person.locator('.tabstrip .tab').first().waitFor()
    await context.close()
  })
})
