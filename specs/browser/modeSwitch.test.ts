import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { consoleEditor, consoleRig, type ConsoleRig, eventually, openTab } from '../support/browser.js'
import type { Session } from '../support/mcpHarness.js'

/**
 * Switching a tab between WYSIWYG and source mode, back and forth: each editor shows the document and no JavaScript
 * error escapes (the rig fails any test during which the page threw; switching WYSIWYG → source used to throw
 * `Cannot read properties of null (reading 'matchesNode')` every time).
 */
describe('console mode switch (Chromium)', () => {
  let folder: string
  let mcp: Session
  let page: Page
  let rig: ConsoleRig

  beforeAll(async () => {
    rig = await consoleRig('quire-browser-modes-')
    ;({ folder, mcp, page } = rig)
  })

  afterAll(() => rig?.close())

  it('WYSIWYG → source → WYSIWYG → source, typing in each, throws nothing', async () => {
    const path = join(folder, 'modes.md')
    await writeFile(path, '# Modes\n\nOne paragraph.\n')
    const opened = await mcp.call('workspace', { action: 'open', filePath: path })
    expect(opened.isError, opened.text).toBe(false)
    const tabId = opened.structured!.tabId as string
    await openTab(page, tabId, 'wysiwyg')
    await eventually(() => consoleEditor(page), (editor) => editor?.text === 'Modes\nOne paragraph.')
    await page.locator('.ProseMirror p').last().click()
    await page.keyboard.press('End')
    await page.keyboard.type(' More.')
    for (const mode of ['source', 'wysiwyg', 'source'] as const) {
      await page.locator(`.mode-switch [data-mode="${mode}"]`).click()
      const editor = await eventually(() => consoleEditor(page), (shown) => shown?.mode === mode && shown.mounted)
      expect(editor?.text).toBe(mode === 'source' ? '# Modes\n\nOne paragraph. More.\n' : 'Modes\nOne paragraph. More.')
      // Give anything deferred (a focus handler, a queued selection report of the editor just destroyed) its turn.
      await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)))
    }
    await page.keyboard.type('x')
    await eventually(() => consoleEditor(page), (shown) => shown?.text?.includes('x') === true)
  })
})
