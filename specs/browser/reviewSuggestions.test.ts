import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectAgent, consoleEditor, consoleRig, type ConsoleRig, eventually, openConsole, openTab, screenshot } from '../support/browser.js'
import { ok } from '../support/conformance.js'
import type { Session } from '../support/mcpHarness.js'

interface Shown {
  readonly text: string
  readonly tip: string
  readonly change: string
  readonly hunk: string
}

/**
 * Reviewing AI changes in the console (issue 26 item 3), in real Chromium against a real daemon, with assistants on
 * the MCP SDK client, each with its own token: pending changes shown as suggestions in both editors (inserted text
 * marked, deleted text struck through where it was, who and when on hover), Keep / Undo on one hunk (the text and
 * the other peers follow), "Undo all by <assistant>", the Review list across documents, the History panel's
 * word-level summaries and the person's own editing sessions, and a restore that asks first and can be undone.
 */
describe('reviewing AI changes in the console (Chromium)', () => {
  let rig: ConsoleRig
  let page: Page
  let claude: Session
  let codex: Session
  let other: BrowserContext | undefined

  beforeAll(async () => {
    rig = await consoleRig('quire-browser-suggestions-')
    page = rig.page
    claude = await connectAgent(rig, 'claude')
    codex = await connectAgent(rig, 'codex')
  })
  afterAll(async () => {
    await other?.close()
    await claude?.close()
    await codex?.close()
    await rig?.close()
  })

  const read = async (tabId: string) => ok(await claude.call('document', { action: 'read', tabId })) as { content: string; revision: string }
  const write = async (agent: Session, tabId: string, content: string) => {
    ok(await agent.call('document', { action: 'read', tabId }))
    return ok(await agent.call('document', { action: 'write', tabId, content, save: false })) as { revision: string }
  }
  async function openFile(name: string, text: string): Promise<string> {
    const path = join(rig.folder, name)
    await writeFile(path, text)
    return ok(await claude.call('workspace', { action: 'open', filePath: path })).tabId as string
  }
  const shown = (on: Page, selector: string) =>
    on.locator(`.editor-host ${selector}`).evaluateAll((elements) =>
      elements.map((element) => ({
        text: element.textContent ?? '',
        tip: element.getAttribute('data-tip') ?? '',
        change: element.getAttribute('data-change') ?? '',
        hunk: element.getAttribute('data-hunk') ?? '',
      })),
    )
  const texts = (found: readonly Shown[]) => found.map((each) => each.text)
  /** The editor's visible text, the struck-through deletions included, line by line. */
  const drawn = (on: Page, selector: string) => on.locator(`.editor-host ${selector}`).allTextContents()
  const struckThrough = (on: Page) =>
    on.locator('.editor-host .suggestion-deleted').evaluateAll((elements) =>
      elements.map((element) => (globalThis as unknown as { getComputedStyle(element: unknown): { textDecorationLine: string } }).getComputedStyle(element).textDecorationLine),
    )

  it('shows an assistant\'s pending change as a suggestion in source and WYSIWYG: inserted marked, deleted struck through where it was, who and when on hover', async () => {
    const tabId = await openFile('list.md', 'alpha beta gamma\n')
    const { revision } = await write(claude, tabId, 'alpha BETA gamma delta\n')
    await openTab(page, tabId, 'source')
    const inserted = await eventually(() => shown(page, '.suggestion-inserted'), (found) => texts(found).join('|') === 'BETA| delta')
    const deleted = await eventually(() => shown(page, '.suggestion-deleted'), (found) => texts(found).join('|') === 'beta')
    // The deletion stands where the deleted word was: right before its replacement.
    await eventually(() => drawn(page, '.cm-line'), (lines) => lines[0] === 'alpha betaBETA gamma delta')
    expect(await struckThrough(page)).toEqual(['line-through'])
    for (const mark of [...inserted, ...deleted]) expect(mark.tip).toMatch(new RegExp(`^claude \\(AI\\) · .+ · ${revision}$`))
    expect(inserted.map((mark) => mark.hunk)).toEqual(['0', '1'])
    expect(deleted[0]!.hunk).toBe('0')
    await page.locator('.editor-host .suggestion-deleted').hover()
    await eventually(() => page.locator('.mark-tip').textContent(), (tip) => tip === deleted[0]!.tip)
    // The editor's text is the document's: a suggestion is drawn, never typed into it.
    expect((await consoleEditor(page))!.text).toBe('alpha BETA gamma delta\n')
    await screenshot(page, 'suggestions-source')

    await page.locator('.mode-switch [data-mode="wysiwyg"]').click()
    await eventually(() => consoleEditor(page), (editor) => editor?.mode === 'wysiwyg' && editor.mounted)
    await eventually(() => shown(page, '.suggestion-inserted'), (found) => texts(found).join('|') === 'BETA| delta')
    await eventually(() => drawn(page, '.ProseMirror p'), (paragraphs) => paragraphs[0] === 'alpha betaBETA gamma delta')
    expect(await struckThrough(page)).toEqual(['line-through'])
    expect((await consoleEditor(page))!.text).toBe('alpha BETA gamma delta')
    await page.locator('.editor-host .suggestion-inserted').first().hover()
    await eventually(() => page.locator('.mark-tip').textContent(), (tip) => tip?.startsWith('claude (AI) · ') === true)
    await screenshot(page, 'suggestions-wysiwyg')
  })

  it('Undo and Keep on one hunk: the text changes for every peer at once, and the other hunk stays until kept', async () => {
    const tabId = (await consoleEditor(page))!.tabId
    other = await rig.browser.newContext({ viewport: { width: 1100, height: 700 } })
    const second = await other.newPage()
    await second.goto(`${rig.daemon.url}/?token=${rig.daemon.token}`)
    await openTab(second, tabId, 'source')
    await eventually(() => shown(second, '.suggestion-inserted'), (found) => texts(found).join('|') === 'BETA| delta')

    // The person clicks the suggestion in WYSIWYG: its card offers Keep and Undo for that hunk and for the change.
    await page.locator('.editor-host .suggestion-inserted', { hasText: 'BETA' }).click()
    const card = page.locator('.suggestion-card')
    await card.waitFor()
    await expect(card.locator('.suggestion-who').textContent()).resolves.toMatch(/^claude \(AI\) · /)
    await expect(card.locator('.suggestion-what').textContent()).resolves.toBe("replaced 'beta' with 'BETA'")
    await screenshot(page, 'suggestions-card')
    await card.locator('.suggestion-undo').click()
    await eventually(() => read(tabId), (document) => document.content === 'alpha beta gamma delta\n')
    for (const peer of [page, second]) {
      await eventually(() => consoleEditor(peer), (editor) => editor?.text?.startsWith('alpha beta gamma delta') === true)
      await eventually(() => shown(peer, '.suggestion-inserted'), (found) => texts(found).join('|') === ' delta')
      await eventually(() => shown(peer, '.suggestion-deleted'), (found) => found.length === 0)
    }

    // Keep, from the other window, on the hunk that is left: no suggestion remains anywhere; the text stays.
    await second.locator('.editor-host .suggestion-inserted').click()
    await second.locator('.suggestion-card .suggestion-keep').click()
    for (const peer of [page, second]) await eventually(() => shown(peer, '.suggestion-inserted'), (found) => found.length === 0)
    expect((await read(tabId)).content).toBe('alpha beta gamma delta\n')
    await expect(page.locator('.review-bar').isHidden()).resolves.toBe(true)
    await other.close()
    other = undefined
  })

  it('"Undo all by" one assistant takes back its changes and leaves the other assistant\'s', async () => {
    const tabId = await openFile('team.md', 'one\n')
    await write(claude, tabId, 'one\ntwo by claude\n')
    await write(codex, tabId, 'one\ntwo by claude\nthree by codex\n')
    await write(claude, tabId, 'one\ntwo by claude\nthree by codex\nfour by claude\n')
    await openTab(page, tabId, 'source')
    const bar = page.locator('.review-bar')
    await eventually(() => bar.locator('.review-count').textContent(), (text) => text === '3 AI changes to review')
    await expect(bar.locator('.review-undo-by').allTextContents()).resolves.toEqual(['Undo all by claude', 'Undo all by codex'])
    await eventually(() => shown(page, '.suggestion-inserted'), (found) => found.length === 3)
    // Each change, each hunk with what it deleted and inserted, and Keep / Undo on both.
    await bar.locator('.review-show').click()
    await expect(bar.locator('.review-change .review-who').allTextContents()).resolves.toEqual([
      expect.stringMatching(/^claude \(AI\) · /),
      expect.stringMatching(/^codex \(AI\) · /),
      expect.stringMatching(/^claude \(AI\) · /),
    ])
    await expect(bar.locator('.review-hunk ins').allTextContents()).resolves.toEqual(['two by claude\n', 'three by codex\n', 'four by claude\n'])
    await expect(bar.locator('.review-change').first().locator('.review-keep-change, .review-undo-change, .review-keep, .review-undo').count()).resolves.toBe(4)
    await screenshot(page, 'suggestions-review-bar')
    await bar.locator('.review-undo-by[data-agent="claude"]').click()
    await eventually(() => read(tabId), (document) => document.content === 'one\nthree by codex\n')
    await eventually(() => consoleEditor(page), (editor) => editor?.text === 'one\nthree by codex\n')
    const left = await eventually(() => shown(page, '.suggestion-inserted'), (found) => found.length === 1)
    expect(left[0]!.tip).toMatch(/^codex \(AI\) · /)
    await eventually(() => bar.locator('.review-count').textContent(), (text) => text === '1 AI change to review')
  })

  it('the Review list: every pending change across documents, by whom and where, newest first; Open goes to it', async () => {
    const notes = await openFile('notes.md', 'Notes.\n')
    await write(claude, notes, 'Notes, with more.\n')
    await page.locator('.review-toggle').click()
    const items = () =>
      page.locator('.review-sidebar .review-item').evaluateAll((elements) =>
        elements.map((element) => ({
          agent: element.querySelector('.review-item-agent')?.textContent ?? '',
          doc: element.querySelector('.review-item-doc')?.textContent ?? '',
          summary: element.querySelector('.review-item-summary')?.textContent ?? '',
        })),
      )
    const listed = await eventually(items, (found) => found.length === 2)
    expect(listed).toEqual([
      { agent: 'claude', doc: 'notes.md', summary: "added ', with more'" },
      { agent: 'codex', doc: 'team.md', summary: "added 'three by codex↵'" },
    ])
    await expect(page.locator('.review-toggle .review-badge').textContent()).resolves.toBe('2')
    await screenshot(page, 'review-list')
    await page.locator('.review-sidebar .review-item', { hasText: 'notes.md' }).locator('.review-item-open').click()
    await eventually(() => consoleEditor(page), (editor) => editor?.tabId === notes && editor.mounted)
    await eventually(() => shown(page, '.suggestion-inserted'), (found) => texts(found).join('') === ', with more')
    // Kept from the list, it leaves the list and the editor.
    await page.locator('.review-sidebar .review-item', { hasText: 'notes.md' }).locator('.review-item-keep').click()
    await eventually(items, (found) => found.length === 1)
    await eventually(() => shown(page, '.suggestion-inserted'), (found) => found.length === 0)
    await page.locator('.review-toggle').click()
  })

  it('History: each AI change summarized word by word, the person\'s own typing as a session with its paragraph', async () => {
    const tabId = await openFile('story.md', '# Story\n\nIntro.\n\nBody.\n')
    await openTab(page, tabId, 'source')
    await page.locator('.cm-line', { hasText: 'Body.' }).click()
    await page.keyboard.press('End')
    await page.keyboard.type(' More.')
    await eventually(() => read(tabId), (document) => document.content === '# Story\n\nIntro.\n\nBody. More.\n')
    await write(claude, tabId, '# Story\n\nIntro, rewritten.\n\nBody. More.\n')
    await page.locator('.history-toggle').click()
    const aiWrite = page.locator('.history-entry[data-kind="ai-write"]').first()
    await eventually(() => aiWrite.locator('.history-summary').textContent().catch(() => ''), (text) => text === "added ', rewritten'")
    const session = page.locator('.history-entry[data-kind="edits"]').first()
    await expect(session.locator('.history-label').textContent()).resolves.toBe('You edited ¶3 for less than a minute')
    await screenshot(page, 'history-summaries')
  })

  it('"Restore this revision" says what it would take out, the person\'s own typing called out, asks first, and can be undone', async () => {
    const tabId = (await consoleEditor(page))!.tabId
    const now = (await read(tabId)).content
    const opened = page.locator('.history-entry[data-kind="mcp-save"]').last()
    await opened.locator('.history-restore').click()
    const ask = page.locator('.restore-confirm')
    await ask.waitFor()
    await expect(ask.locator('.diff-removed .diff-text').allTextContents()).resolves.toEqual(['Intro, rewritten.', 'Body. More.'])
    await expect(ask.locator('.restore-yours').textContent()).resolves.toContain('You edited ¶3')
    await screenshot(page, 'history-restore-confirm')
    // Nothing happens until the person says so.
    await ask.locator('.restore-cancel').click()
    await eventually(() => ask.isHidden(), (hidden) => hidden)
    expect((await read(tabId)).content).toBe(now)

    await opened.locator('.history-restore').click()
    await page.locator('.restore-confirm .restore-ok').click()
    await eventually(() => read(tabId), (document) => document.content === '# Story\n\nIntro.\n\nBody.\n')
    await eventually(() => consoleEditor(page), (editor) => editor?.text === '# Story\n\nIntro.\n\nBody.\n')
    const done = page.locator('.restore-done')
    await done.waitFor()
    await screenshot(page, 'history-restored-undoable')
    await done.locator('.restore-undo').click()
    await eventually(() => read(tabId), (document) => document.content === now)
    await eventually(() => consoleEditor(page), (editor) => editor?.text === now)
    await eventually(() => page.locator('.history-entry[data-kind="review"]').first().locator('.history-label').textContent(), (text) => text?.startsWith('Undid the restore') === true)
  })
})
