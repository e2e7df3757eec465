import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { consoleEditor, consoleRig, type ConsoleRig, eventually, openTab, screenshot } from '../support/browser.js'
import type { Session, ToolResult } from '../support/mcpHarness.js'

/** The grace period after a composition ends in the source editor (DOC.WRITE.16, COMPOSITION_GRACE_MS). */
const GRACE_MS = 500

/** IME composition in the console, driven through the DevTools protocol, holds assistants' writes off (CONC.5). */
describe('console IME composition (Chromium)', () => {
  let folder: string
  let mcp: Session
  let page: Page
  let rig: ConsoleRig

  beforeAll(async () => {
    rig = await consoleRig('quire-browser-ime-')
    ;({ folder, mcp, page } = rig)
  })

  afterAll(() => rig?.close())

  const read = async (tabId: string) => (await mcp.call('document', { action: 'read', tabId })).structured as { content: string; revision: string }
  const write = (tabId: string, content: string): Promise<ToolResult> => mcp.call('document', { action: 'write', tabId, content, save: false })
  const isBusy = (result: ToolResult) => result.isError && result.structured?.error === 'BUSY'

  it('document.write answers BUSY while the person composes, and works again after the grace period', async () => {
    const path = join(folder, 'ime.md')
    await writeFile(path, 'kana: \n')
    const opened = await mcp.call('workspace', { action: 'open', filePath: path })
    expect(opened.isError, opened.text).toBe(false)
    const tabId = opened.structured!.tabId as string
    await openTab(page, tabId, 'source')
    await page.locator('.cm-content').click()
    await page.keyboard.press('Control+Home')
    await page.keyboard.press('End')

    const cdp = await page.context().newCDPSession(page)
    await cdp.send('Input.imeSetComposition', { text: 'にほ', selectionStart: 2, selectionEnd: 2 })
    await eventually(() => consoleEditor(page), (editor) => editor?.presence.composing === true)

    const attempted = 'kana: written by the assistant\n'
    const busy = await eventually(() => write(tabId, attempted), isBusy)
    expect(busy.structured).toMatchObject({ error: 'BUSY' })
    expect((await read(tabId)).content).not.toBe(attempted)
    await screenshot(page, 'ime-composing')

    await cdp.send('Input.insertText', { text: '日本' })
    const ended = await eventually(() => consoleEditor(page), (editor) => editor?.presence.composing === false && editor.presence.compositionEndedAt !== null)
    const committed = await eventually(() => read(tabId), (document) => document.content === 'kana: 日本\n')

    // Still composing for the source editor's grace period, then writes land again.
    const content = `${committed.content}written after the composition\n`
    const landed = await eventually(() => write(tabId, content), (result) => !result.isError, 5_000)
    expect(landed.structured).toMatchObject({ applied: true })
    expect(Date.now()).toBeGreaterThanOrEqual(ended!.presence.compositionEndedAt! + GRACE_MS)
    await eventually(() => consoleEditor(page), (editor) => editor?.text === content)
  })
})
