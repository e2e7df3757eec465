import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { consoleEditor, consoleRig, type ConsoleRig, eventually, openTab, screenshot } from '../support/browser.js'
import { ok } from '../support/conformance.js'
import type { Session } from '../support/mcpHarness.js'

interface Mark {
  readonly text: string
  readonly title: string
}

/**
 * Who is here and what they did (issue 12 item 3): the assistants connected now and the tab each last read or wrote,
 * the person's other windows, an assistant's recent change marked in both editors with who, when and which revision
 * on hover, and a comment's anchored text marked while the Comments sidebar shows its thread.
 */
describe('console presence and attribution (Chromium)', () => {
  let rig: ConsoleRig
  let page: Page
  let ai: Session

  beforeAll(async () => {
    rig = await consoleRig('quire-browser-who-')
    page = rig.page
    const added = await fetch(`${rig.daemon.url}/admin/agents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rig.daemon.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'claude' }),
    })
    ai = await rig.daemon.connect(((await added.json()) as { token: string }).token)
  })
  afterAll(async () => {
    await ai?.close()
    await rig?.close()
  })

  const marks = (selector: string) =>
    page.locator(`.editor-host ${selector}`).evaluateAll((elements) => elements.map((element) => ({ text: element.textContent ?? '', title: element.getAttribute('data-tip') ?? '' })))
  const joined = (found: readonly Mark[]) => found.map((mark) => mark.text).join('')

  it('lists the connected assistant with the tab it last read, then wrote; and the person\'s other window', async () => {
    const path = join(rig.folder, 'plan.md')
    await writeFile(path, '# Plan\n\nShip by Friday.\n')
    const tabId = ok(await ai.call('workspace', { action: 'open', filePath: path })).tabId as string
    await openTab(page, tabId, 'source')
    ok(await ai.call('document', { action: 'read', tabId }))
    const assistant = page.locator('.who-assistant[data-principal="claude"]')
    await eventually(() => assistant.locator('.who-last').textContent().catch(() => ''), (text) => text?.startsWith('read plan') === true)
    await expect(assistant.locator('.who-conn').textContent()).resolves.toMatch(/^mcp-[0-9a-f]{8}$/)
    await expect(assistant.locator('.who-detail').first().textContent()).resolves.toMatch(/^connected \d+ s ago$/)

    // A second console page of the person's, on another window's view of the same tab.
    const context: BrowserContext = await rig.browser.newContext({ viewport: { width: 1000, height: 700 } })
    const other = await context.newPage()
    await other.goto(`${rig.daemon.url}/?token=${rig.daemon.token}`)
    await other.locator('.tabstrip .tab').first().waitFor()
    await eventually(() => page.locator('.who-editor').count(), (count) => count === 2)
    await expect(page.locator('.who-editor.self').count()).resolves.toBe(1)

    ok(await ai.call('document', { action: 'write', tabId, content: '# Plan\n\nShip by Thursday, with tests.\n', save: false }))
    await eventually(() => assistant.locator('.who-last').textContent().catch(() => ''), (text) => text?.startsWith('wrote plan') === true)
    await eventually(() => page.locator('.who-editor').allTextContents(), (rows) => rows.some((row) => row.includes('WYSIWYG')))
    await screenshot(page, 'who-is-here')
    await context.close()
    await eventually(() => page.locator('.who-editor').count(), (count) => count === 1)
  })

  it('marks an assistant\'s change in source and in WYSIWYG, attributed on hover; the person\'s own typing is not marked', async () => {
    const tabId = (await consoleEditor(page))!.tabId
    const revision = (ok(await ai.call('document', { action: 'read', tabId })) as { revision: string }).revision
    const source = await eventually(() => marks('.ai-change'), (found) => joined(found).includes('Thursday, with tests'))
    expect(joined(source)).not.toContain('Ship by')
    expect(source[0]!.title).toMatch(new RegExp(`^claude \\(AI\\) · .+ · ${revision}$`))
    await page.locator('.editor-host .ai-change').first().hover()
    await eventually(() => page.locator('.mark-tip').isVisible(), (shown) => shown)
    await expect(page.locator('.mark-tip').textContent()).resolves.toBe(source[0]!.title)
    await screenshot(page, 'attribution-source')

    // The person types next to it: still only the assistant's characters are marked.
    await page.locator('.cm-content').click()
    await page.keyboard.press('Control+End')
    await page.keyboard.type('Mine.')
    await eventually(() => consoleEditor(page), (editor) => editor?.text?.endsWith('Mine.') === true)
    await eventually(() => marks('.ai-change'), (found) => joined(found).includes('Thursday') && !joined(found).includes('Mine'))

    await page.locator('.mode-switch [data-mode="wysiwyg"]').click()
    await eventually(() => consoleEditor(page), (editor) => editor?.mode === 'wysiwyg' && editor.mounted)
    const rich = await eventually(() => marks('.ai-change'), (found) => joined(found).includes('Thursday'))
    expect(joined(rich)).not.toContain('Mine')
    expect(rich[0]!.title).toMatch(/^claude \(AI\) · /)
    await page.locator('.editor-host .ai-change').first().hover()
    await eventually(() => page.locator('.mark-tip').textContent(), (shown) => shown === rich[0]!.title)
    await screenshot(page, 'attribution-wysiwyg')

    // Reviewed is no longer recent: the person's "Mark all reviewed" takes the marks away.
    const docId = (await consoleEditor(page))!.docId
    const reviewed = await fetch(`${rig.daemon.url}/console/api/docs/${docId}/review`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rig.daemon.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ upToRevision: (ok(await ai.call('document', { action: 'read', tabId })) as { revision: string }).revision }),
    })
    expect(reviewed.status).toBe(200)
    await eventually(() => marks('.ai-change'), (found) => found.length === 0)
  })

  it('marks a comment\'s anchored text while the Comments sidebar shows its open thread, in both editors', async () => {
    const tabId = (await consoleEditor(page))!.tabId
    await openTab(page, tabId, 'source')
    const text = (await consoleEditor(page))!.text!
    const from = text.indexOf('Plan')
    const docId = (await consoleEditor(page))!.docId
    const created = await fetch(`${rig.daemon.url}/console/api/docs/${docId}/comments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rig.daemon.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ from, to: from + 'Plan'.length, body: 'Name the plan?' }),
    })
    expect(created.status, `${await created.clone().text()} (from ${from} in ${JSON.stringify(text)})`).toBe(200)
    expect(await marks('.comment-anchor')).toEqual([])
    await page.locator('.comments-toggle').click()
    await eventually(() => marks('.comment-anchor'), (found) => joined(found) === 'Plan' && found[0]!.title === 'Comment: Name the plan?')
    await page.locator('.comments-sidebar .comment-thread').first().hover()
    await eventually(() => marks('.comment-anchor.active'), (found) => joined(found) === 'Plan')
    await screenshot(page, 'comment-anchor-source')

    await page.locator('.mode-switch [data-mode="wysiwyg"]').click()
    await eventually(() => consoleEditor(page), (editor) => editor?.mode === 'wysiwyg' && editor.mounted)
    await eventually(() => marks('.comment-anchor'), (found) => joined(found) === 'Plan')
    await screenshot(page, 'comment-anchor-wysiwyg')

    // Resolved, or with the sidebar closed, it is no longer marked.
    await page.locator('.comments-sidebar .comment-resolve').first().click()
    await eventually(() => marks('.comment-anchor'), (found) => found.length === 0)
    await page.locator('.comments-toggle').click()
  })
})
