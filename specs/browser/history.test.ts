import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { consoleEditor, consoleRig, type ConsoleRig, eventually, openTab, screenshot } from '../support/browser.js'
import type { Session } from '../support/mcpHarness.js'

/**
 * The History sidebar in real Chromium against a real daemon: an assistant writes twice over MCP (each write saves:
 * an `(mcp)` entry, SAVE.4), the person opens History, sees both AI writes and the (mcp) saves, diffs the two
 * revisions, restores the older one (document.read then returns it), and marks everything reviewed.
 */
describe('console history sidebar (Chromium)', () => {
  let folder: string
  let mcp: Session
  let page: Page
  let rig: ConsoleRig

  beforeAll(async () => {
    rig = await consoleRig('quire-browser-history-')
    ;({ folder, mcp, page } = rig)
  })

  afterAll(() => rig?.close())

  const read = async (tabId: string) => (await mcp.call('document', { action: 'read', tabId })).structured as { content: string; revision: string }

  /** The sidebar's entries as the person sees them, newest first: kind, label, revision. */
  const entries = () =>
    page.locator('.history-sidebar .history-entry').evaluateAll((items) =>
      items.map((item) => ({
        kind: item.getAttribute('data-kind'),
        revision: item.getAttribute('data-revision'),
        label: item.querySelector('.history-label')?.textContent ?? '',
      })),
    )

  it('shows AI writes and (mcp) saves, diffs two revisions, restores the older one and marks all reviewed', async () => {
    const path = join(folder, 'plan.md')
    await writeFile(path, '# Plan\n\n- draft\n')
    const opened = await mcp.call('workspace', { action: 'open', filePath: path })
    expect(opened.isError, opened.text).toBe(false)
    const tabId = opened.structured!.tabId as string
    const first = await mcp.call('document', { action: 'write', tabId, content: '# Plan\n\n- draft\n- ship it\n' })
    expect(first.isError, first.text).toBe(false)
    const second = await mcp.call('document', { action: 'write', tabId, content: '# Plan\n\n- final\n- ship it\n- celebrate\n' })
    expect(second.isError, second.text).toBe(false)
    const older = first.structured!.revision as string
    const newer = second.structured!.revision as string

    await openTab(page, tabId, 'source')
    await page.locator('.history-toggle').click()
    const shown = await eventually(entries, (list) => list.length === 5)
    expect(shown.map((entry) => entry.kind)).toEqual(['mcp-save', 'ai-write', 'mcp-save', 'ai-write', 'mcp-save'])
    expect(shown.map((entry) => entry.revision)).toEqual([newer, newer, older, older, shown[4]!.revision])
    expect(shown[0]!.label).toBe('Saved (mcp)')
    expect(shown[1]!.label).toMatch(/^AI write by \S+/)
    expect(shown[4]!.label).toBe('Opened (mcp)')
    await expect(page.locator('.history-review').textContent()).resolves.toBe('Mark all reviewed (2)')
    await expect(page.locator('.history-entry[data-kind="ai-write"] .history-unreviewed').count()).resolves.toBe(2)
    await screenshot(page, 'history-sidebar')

    // Pick the two AI writes: the diff of their revisions, removed lines red and added lines green.
    await page.locator(`.history-entry[data-kind="ai-write"][data-revision="${older}"] input[type="checkbox"]`).check()
    await page.locator(`.history-entry[data-kind="ai-write"][data-revision="${newer}"] input[type="checkbox"]`).check()
    await page.locator('.history-diff').waitFor()
    await expect(page.locator('.diff-head').textContent()).resolves.toContain(`${older} → ${newer}`)
    await expect(page.locator('.diff-removed .diff-text').allTextContents()).resolves.toEqual(['- draft'])
    await expect(page.locator('.diff-added .diff-text').allTextContents()).resolves.toEqual(['- final', '- celebrate'])
    const colours = await page.locator('.diff-removed, .diff-added').evaluateAll((lines) =>
      // Specs compile without DOM types: the page's getComputedStyle, restated.
      lines.map((line) => (globalThis as unknown as { getComputedStyle(element: unknown): { backgroundColor: string } }).getComputedStyle(line).backgroundColor),
    )
    expect(new Set(colours).size).toBe(2)
    await screenshot(page, 'history-diff')

    // Restore the older revision: asked first (what it takes out), then a new change by the person, which the
    // assistant then reads and the editor shows.
    await page.locator(`.history-entry[data-kind="ai-write"][data-revision="${older}"] .history-restore`).click()
    await page.locator('.restore-confirm .restore-ok').click()
    const restored = await eventually(() => read(tabId), (document) => document.content === '# Plan\n\n- draft\n- ship it\n')
    expect(restored.revision).not.toBe(older)
    await eventually(() => consoleEditor(page), (editor) => editor?.text === '# Plan\n\n- draft\n- ship it\n')
    const afterRestore = await eventually(entries, (list) => list[0]?.kind === 'restore')
    expect(afterRestore[0]).toMatchObject({ label: `Restored ${older}`, revision: restored.revision })
    // A restore is the person's change, not an AI one: still two to review.
    await expect(page.locator('.history-review').textContent()).resolves.toBe('Mark all reviewed (2)')
    await screenshot(page, 'history-restored')

    await page.locator('.history-review').click()
    await eventually(() => page.locator('.history-review').textContent(), (text) => text === 'All reviewed')
    const afterReview = await eventually(entries, (list) => list[0]?.kind === 'reviewed')
    expect(afterReview[0]!.label).toBe(`Reviewed up to ${restored.revision}`)
    await expect(page.locator('.history-unreviewed').count()).resolves.toBe(0)
    await expect(page.locator('.history-review').isDisabled()).resolves.toBe(true)
    await screenshot(page, 'history-reviewed')
  })
})
