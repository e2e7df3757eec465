import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectAgent, consoleEditor, consoleRig, type ConsoleRig, eventually, openTab, screenshot } from '../support/browser.js'
import { runCli } from '../support/cli.js'
import type { Session, ToolResult } from '../support/mcpHarness.js'

/**
 * The person's typing in the WYSIWYG editor is never altered by an assistant's write to another paragraph (issue 24
 * item 2), in real Chromium against the daemon, the assistant a real MCP client with its own token.
 */
describe('console WYSIWYG editor beside an assistant\'s write (Chromium)', () => {
  let rig: ConsoleRig
  let page: Page
  let ai: Session

  beforeAll(async () => {
    rig = await consoleRig('quire-browser-write-elsewhere-')
    page = rig.page
    ai = await connectAgent(rig, 'claude')
  })
  afterAll(async () => {
    await ai?.close()
    await rig?.close()
  })

  const succeeded = (result: ToolResult): Record<string, unknown> => {
    expect(result.isError, result.text).toBe(false)
    return result.structured!
  }
  const read = async (tabId: string) => succeeded(await ai.call('document', { action: 'read', tabId })) as { content: string; revision: string }

  it('"Ben ", a pause, an assistant\'s paragraph, then "volunteers": the document reads "Ben volunteers"', async () => {
    const path = join(rig.folder, 'team.md')
    await writeFile(path, '# Team\n')
    const tabId = succeeded(await ai.call('workspace', { action: 'open', filePath: path })).tabId as string
    await openTab(page, tabId, 'wysiwyg')
    await eventually(() => consoleEditor(page), (editor) => editor?.text === 'Team')
    await page.locator('.ProseMirror h1').click()
    await page.keyboard.press('End')
    await page.keyboard.press('Enter')
    await page.keyboard.type('Ben ')
    // The pause: the keystrokes have reached the document (the trailing space is the editor's, not the Markdown's).
    await eventually(() => read(tabId), (document) => document.content === '# Team\n\nBen\n')

    succeeded(await ai.call('document', { action: 'write', tabId, content: '# Team\n\nBen\n\nThe assistant added this paragraph.\n', save: false }))
    await eventually(() => consoleEditor(page), (editor) => editor?.text === 'Team\nBen \nThe assistant added this paragraph.')

    await page.keyboard.type('volunteers')
    const expected = '# Team\n\nBen volunteers\n\nThe assistant added this paragraph.\n'
    await eventually(() => read(tabId), (document) => document.content === expected)
    await expect(consoleEditor(page).then((editor) => editor?.text)).resolves.toBe('Team\nBen volunteers\nThe assistant added this paragraph.')
    await screenshot(page, 'wysiwyg-ben-volunteers')

    const docId = (await consoleEditor(page))!.docId
    const replayed = await runCli(['replay', '--doc', docId], { home: rig.daemon.home })
    expect(replayed.code, replayed.stderr).toBe(0)
    expect(replayed.stdout).toBe(expected)
  })
})
