import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { consoleEditor, consoleRig, type ConsoleRig, eventually, openTab, screenshot } from '../support/browser.js'
import type { Session } from '../support/mcpHarness.js'

/** The WYSIWYG editor in real Chromium: it shows the `prosemirror` mirror, and typing there reaches `source`. */
describe('console WYSIWYG editor (Chromium)', () => {
  let folder: string
  let mcp: Session
  let page: Page
  let rig: ConsoleRig

  beforeAll(async () => {
    rig = await consoleRig('quire-browser-wysiwyg-')
    ;({ folder, mcp, page } = rig)
  })

  afterAll(() => rig?.close())

  const read = async (tabId: string) => (await mcp.call('document', { action: 'read', tabId })).structured as { content: string }

  it('typing in the WYSIWYG editor reaches document.read', async () => {
    const path = join(folder, 'rich.md')
    await writeFile(path, '# Rich\n\nA paragraph.\n')
    const opened = await mcp.call('workspace', { action: 'open', filePath: path })
    expect(opened.isError, opened.text).toBe(false)
    const tabId = opened.structured!.tabId as string
    await openTab(page, tabId, 'wysiwyg')
    // The server's bridge fills the mirror from the file's text.
    await eventually(() => consoleEditor(page), (editor) => editor?.text === 'Rich\nA paragraph.')
    await page.locator('.ProseMirror p').last().click()
    await page.keyboard.press('End')
    await page.keyboard.type(' Typed in WYSIWYG.')
    await page.keyboard.press('Enter')
    await page.keyboard.type('A second paragraph.')
    await eventually(() => read(tabId), (document) => document.content === '# Rich\n\nA paragraph. Typed in WYSIWYG.\n\nA second paragraph.\n')
    await screenshot(page, 'wysiwyg-typing')
  })

  it('a document first opened in source mode shows its text when switched to WYSIWYG', async () => {
    const path = join(folder, 'later.md')
    await writeFile(path, '# Later\n\n- one\n- two\n')
    const opened = await mcp.call('workspace', { action: 'open', filePath: path })
    expect(opened.isError, opened.text).toBe(false)
    const tabId = opened.structured!.tabId as string
    // The person last used source mode on this tab, so the console connects without asking for the mirror.
    await page.evaluate((key) => (globalThis as unknown as { sessionStorage: { setItem(k: string, v: string): void } }).sessionStorage.setItem(key, 'source'), `quire.console.mode.${tabId}`)
    await openTab(page, tabId, 'source')
    await openTab(page, tabId, 'wysiwyg')
    await eventually(() => consoleEditor(page), (editor) => editor?.text === 'Later\none\ntwo')
    await screenshot(page, 'wysiwyg-after-source')
  })

  it('DOC.WRITE.12 / .13 an assistant write into the active WYSIWYG tab is the editor\'s serialization and one step the person can undo', async () => {
    const path = join(folder, 'undo.md')
    await writeFile(path, '# Undo\n\nMine.\n')
    const opened = await mcp.call('workspace', { action: 'open', filePath: path })
    expect(opened.isError, opened.text).toBe(false)
    const tabId = opened.structured!.tabId as string
    await openTab(page, tabId, 'wysiwyg')
    await eventually(() => consoleEditor(page), (editor) => editor?.text === 'Undo\nMine.')
    // The person types, then an assistant rewrites the document while the person looks at it.
    await page.locator('.ProseMirror p').last().click()
    await page.keyboard.press('End')
    await page.keyboard.type(' Typed.')
    await eventually(() => read(tabId), (document) => document.content === '# Undo\n\nMine. Typed.\n')
    const written = await mcp.call('document', { action: 'write', tabId, content: 'Undo\n====\n\nMine. Typed.\n\n* added by the assistant\n', save: false })
    expect(written.isError, written.text).toBe(false)
    // DOC.WRITE.13: the text is what the WYSIWYG editor makes of it (the setext heading becomes an ATX one).
    await eventually(() => read(tabId), (document) => document.content === '# Undo\n\nMine. Typed.\n\n* added by the assistant\n')
    await eventually(() => consoleEditor(page), (editor) => editor?.text === 'Undo\nMine. Typed.\nadded by the assistant')
    await screenshot(page, 'wysiwyg-assistant-write')
    // One undo takes back the assistant's write, and only it; a second one takes back the person's typing.
    await page.keyboard.press('Control+z')
    await eventually(() => read(tabId), (document) => document.content === '# Undo\n\nMine. Typed.\n')
    await page.keyboard.press('Control+z')
    await eventually(() => read(tabId), (document) => document.content === '# Undo\n\nMine.\n')
    await screenshot(page, 'wysiwyg-assistant-write-undone')
  })
})
