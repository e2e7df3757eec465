import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { consoleEditor, consoleRig, type ConsoleRig, coordsAt, eventually, openTab, screenshot } from '../support/browser.js'
import type { Session } from '../support/mcpHarness.js'

/** The source editor in real Chromium against a real daemon: typing, an assistant's write, a mouse selection. */
describe('console source editor (Chromium)', () => {
  let folder: string
  let mcp: Session
  let page: Page
  let rig: ConsoleRig

  beforeAll(async () => {
    rig = await consoleRig('quire-browser-source-')
    ;({ folder, mcp, page } = rig)
  })

  afterAll(() => rig?.close())

  async function openFile(name: string, content: string): Promise<string> {
    const path = join(folder, name)
    await writeFile(path, content)
    const opened = await mcp.call('workspace', { action: 'open', filePath: path })
    expect(opened.isError, opened.text).toBe(false)
    return opened.structured!.tabId as string
  }

  const read = async (tabId: string) => (await mcp.call('document', { action: 'read', tabId })).structured as { content: string; revision: string }

  it('typing in the source editor reaches document.read', async () => {
    const tabId = await openFile('typing.md', '# Typing\n\nfirst line\n')
    await openTab(page, tabId, 'source')
    await page.locator('.cm-content').click()
    await page.keyboard.press('Control+End')
    await page.keyboard.type('typed by a person')
    const expected = '# Typing\n\nfirst line\ntyped by a person'
    await eventually(() => read(tabId), (document) => document.content === expected)
    await screenshot(page, 'source-typing')
  })

  it('an assistant write below the caret shows in the editor and leaves the caret where it was', async () => {
    const tabId = await openFile('caret.md', 'line one\nline two\nline three\n')
    await openTab(page, tabId, 'source')
    await page.locator('.cm-content').click()
    await page.keyboard.press('Control+Home')
    for (let step = 0; step < 4; step++) await page.keyboard.press('ArrowRight')
    const before = await consoleEditor(page)
    expect(before?.selection).toEqual({ anchor: 4, head: 4 })

    const { revision } = await read(tabId)
    const written = 'line one\nline two\nline three, rewritten by the assistant\n'
    const write = await mcp.call('document', { action: 'write', tabId, content: written, expected_revision: revision, save: false })
    expect(write.isError, write.text).toBe(false)

    const after = await eventually(() => consoleEditor(page), (editor) => editor?.text === written)
    expect(after?.selection).toEqual({ anchor: 4, head: 4 })
    await screenshot(page, 'source-remote-write')
  })

  it('DOC.WRITE.SAVE_PERSON an assistant\'s write with save: true while the person\'s typing is unsaved: the file keeps its bytes and the status line asks the person to save', async () => {
    const tabId = await openFile('unsaved.md', 'Notes\n')
    await read(tabId)
    await openTab(page, tabId, 'source')
    await page.locator('.cm-content').click()
    await page.keyboard.press('Control+End')
    await page.keyboard.type('half typed')
    // Waited for without reading (a read is what the assistant's next write is based on): the tab's revision, from
    // session.get_state, until the ten keystrokes have all moved it and it stays put.
    const revisionOf = async () => {
      const state = (await mcp.call('session', { action: 'get_state' })).structured as { windows: { tabs: { id: string; revision: string }[] }[] }
      return state.windows.flatMap((window) => window.tabs).find((tab) => tab.id === tabId)!.revision
    }
    let last = ''
    await eventually(async () => {
      const now = await revisionOf()
      const settled = now === last && (await consoleEditor(page))?.text === 'Notes\nhalf typed'
      last = now
      await new Promise((resolve) => setTimeout(resolve, 200))
      return settled
    }, (settled) => settled)
    const write = await mcp.call('document', { action: 'write', tabId, content: 'Notes, by the assistant\n' })
    expect(write.structured).toMatchObject({ applied: true, saved: false, save_skipped: 'person_unsaved' })
    expect(await readFile(join(folder, 'unsaved.md'), 'utf8')).toBe('Notes\n')
    const note = page.locator('[data-status="assistant-unsaved"]')
    await note.waitFor({ state: 'visible' })
    await screenshot(page, 'source-assistant-unsaved')
    await page.keyboard.press('Control+s')
    await eventually(() => readFile(join(folder, 'unsaved.md'), 'utf8'), (text) => text === 'Notes, by the assistant\nhalf typed')
    await note.waitFor({ state: 'detached' })
  })

  it('a selection made with the mouse is what selection.get returns', async () => {
    const tabId = await openFile('select.md', 'alpha beta gamma\nsecond line\n')
    await openTab(page, tabId, 'source')
    const from = await coordsAt(page, 6)
    const to = await coordsAt(page, 16)
    const y = (from.top + from.bottom) / 2
    await page.mouse.move(from.left + 0.5, y)
    await page.mouse.down()
    await page.mouse.move((from.left + to.left) / 2, y, { steps: 4 })
    await page.mouse.move(to.left + 0.5, y, { steps: 4 })
    await page.mouse.up()
    const editor = await consoleEditor(page)
    expect(editor?.selection).toEqual({ anchor: 6, head: 16 })
    expect(editor?.presence).toMatchObject({ focused: true, mode: 'source', tabId })

    // Asked right away: the editor's last presence must already have reached the server.
    const { revision } = await read(tabId)
    const selection = await mcp.call('selection', { action: 'get' })
    expect(selection.isError, selection.text).toBe(false)
    expect(selection.structured).toEqual({
      text: 'beta gamma',
      isEmpty: false,
      range: { from: 6, to: 16 },
      mode: 'source',
      kind: 'markdown',
      tabId,
      revision,
    })
    await screenshot(page, 'source-mouse-selection')
  })
})
