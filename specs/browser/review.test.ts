import { writeFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { consoleEditor, consoleRig, eventually, openTab, screenshot, type ConsoleRig } from '../support/browser.js'
import { folder, ok, windowOf } from '../support/conformance.js'
import type { Session } from '../support/mcpHarness.js'

const ORIGINAL = '# Plan\n\nShip by Friday.\n'
const REVISED = '# Plan\n\nShip by Thursday, after QA.\n'

interface ListedThread {
  comment: string
  state: string
  commentGen: string
  quote: string
  body: string
  author: string
  replies: Array<{ author: string; body: string }>
}

/**
 * The review loop end to end, in real Chromium against a real daemon: the person selects text in the console and
 * comments on it; an assistant lists the thread, replies, rewrites the document naming the comment in `addresses`
 * and marks it addressed; the person sees the reply and the state in Comments and the linked AI write in History,
 * restores the older revision, and approves the assistant's open_workspace request from the Approvals panel.
 */
describe('review loop (Chromium)', () => {
  let rig: ConsoleRig
  let ai: Session
  let agentToken: string
  const folders: string[] = []

  beforeAll(async () => {
    rig = await consoleRig('quire-browser-review-')
    // The assistant has its own token, so its name (claude) is the principal on its replies and writes.
    const added = await fetch(`${rig.daemon.url}/admin/agents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rig.daemon.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'claude' }),
    })
    agentToken = ((await added.json()) as { token: string }).token
    ai = await rig.daemon.connect(agentToken)
  })
  afterAll(async () => {
    await ai?.close()
    await rig?.close()
    for (const path of folders) await rm(path, { recursive: true, force: true })
  })

  const read = async (tabId: string) => ok(await ai.call('document', { action: 'read', tabId })) as { content: string; revision: string }
  const threadsShown = () =>
    rig.page.locator('.comments-sidebar .comment-thread').evaluateAll((items) =>
      items.map((item) => ({
        id: item.getAttribute('data-comment-id'),
        state: item.getAttribute('data-state'),
        quote: item.querySelector('.comment-quote')?.textContent ?? '',
        replies: [...item.querySelectorAll('.comment-reply')].map((reply) => ({
          author: reply.querySelector('.comment-author')?.textContent ?? '',
          body: reply.querySelector('.comment-body')?.textContent ?? '',
        })),
      })),
    )

  it('a comment made on a WYSIWYG selection anchors to those words in the Markdown, even inside formatting', async () => {
    const { page } = rig
    const path = join(rig.folder, 'rich.md')
    await writeFile(path, '# Rich\n\nShip by **Friday** at noon.\n')
    const tabId = ok(await ai.call('workspace', { action: 'open', filePath: path })).tabId as string
    await openTab(page, tabId, 'wysiwyg')
    await eventually(() => consoleEditor(page), (editor) => editor?.text === 'Rich\nShip by Friday at noon.')
    // A double click selects the bold word, as a person would. (First in this file: the next test switches the
    // window to another workspace when it approves open_workspace.)
    await page.locator('.ProseMirror strong').dblclick()
    await page.keyboard.press('Control+Alt+KeyM')
    await expect(page.locator('.comment-new .comment-quote').textContent()).resolves.toBe('Friday')
    await page.locator('.comment-new-input').fill('Which Friday?')
    await page.locator('.comment-new-submit').click()
    await eventually(threadsShown, (list) => list.some((thread) => thread.quote === 'Friday'))
    const listed = ok(await ai.call('comments', { action: 'list', tabId })) as { threads: ListedThread[] }
    expect(listed.threads.map((thread) => [thread.quote, thread.body])).toEqual([['Friday', 'Which Friday?']])
    await screenshot(page, 'review-wysiwyg-comment')
    // Leave the console as the next test expects it: the Comments sidebar closed.
    await page.locator('.comments-toggle').click()
    await eventually(() => page.locator('.comments-sidebar').isHidden(), (hidden) => hidden)
  })

  it('comment → AI reply, addressed write, mark_addressed → person sees it, restores, approves', async () => {
    const { page } = rig
    const path = join(rig.folder, 'plan.md')
    await writeFile(path, ORIGINAL)
    const tabId = ok(await ai.call('workspace', { action: 'open', filePath: path })).tabId as string
    const before = await read(tabId)

    // The person selects "Friday" in the source editor and comments on it with Mod-Alt-m.
    await openTab(page, tabId, 'source')
    await page.locator('.comments-toggle').click()
    await page.locator('.cm-content').click()
    await page.keyboard.press('Control+Home')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('ArrowDown')
    for (let step = 0; step < 'Ship by '.length; step++) await page.keyboard.press('ArrowRight')
    for (let step = 0; step < 'Friday'.length; step++) await page.keyboard.press('Shift+ArrowRight')
    const selected = await consoleEditor(page)
    expect(selected?.text?.slice(Math.min(selected.selection!.anchor, selected.selection!.head), Math.max(selected.selection!.anchor, selected.selection!.head))).toBe('Friday')
    await page.keyboard.press('Control+Alt+KeyM')
    await expect(page.locator('.comment-new .comment-quote').textContent()).resolves.toBe('Friday')
    await page.locator('.comment-new-input').fill('Can we make this Thursday?')
    await screenshot(page, 'review-compose')
    await page.locator('.comment-new-submit').click()
    const [created] = await eventually(threadsShown, (list) => list.length === 1)
    expect(created).toMatchObject({ state: 'open', quote: 'Friday', replies: [] })

    // The assistant's side of the loop.
    const listed = ok(await ai.call('comments', { action: 'list', tabId })) as { threads: ListedThread[] }
    expect(listed.threads).toHaveLength(1)
    const thread = listed.threads[0]!
    expect(thread).toMatchObject({ comment: created!.id, state: 'open', quote: 'Friday', body: 'Can we make this Thursday?', author: 'user' })
    // The sidebar's API is the person's: the assistant's own token is refused.
    const asAgent = await fetch(`${rig.daemon.url}/console/api/docs/${selected!.docId}/comments`, { headers: { authorization: `Bearer ${agentToken}` } })
    expect(asAgent.status).toBe(401)
    const replied = ok(await ai.call('comments', { action: 'reply', tabId, commentId: thread.comment, body: 'Moved it to Thursday, after QA.', expectedCommentGen: thread.commentGen }))
    const written = ok(await ai.call('document', { action: 'write', tabId, content: REVISED, addresses: [thread.comment] }))
    const marked = ok(await ai.call('comments', { action: 'mark_addressed', tabId, commentId: thread.comment, expectedCommentGen: replied.commentGen as string }))
    expect(marked.state).toBe('addressed')

    // The person sees the reply (marked as the AI's) and the addressed state…
    const [addressed] = await eventually(threadsShown, (list) => list[0]?.state === 'addressed' && list[0].replies.length === 1)
    expect(addressed!.replies).toEqual([{ author: 'claude (AI)', body: 'Moved it to Thursday, after QA.' }])
    // The rewrite removed "Friday": the thread keeps its quote, shown as text that is gone.
    await expect(page.locator(`.comment-thread[data-comment-id="${thread.comment}"] .comment-quote.lost`).count()).resolves.toBe(1)
    await eventually(() => consoleEditor(page), (editor) => editor?.text === REVISED)
    await screenshot(page, 'review-addressed')

    // …and, in History, the AI write that lists the comment.
    await page.locator('.history-toggle').click()
    const aiWrite = page.locator(`.history-entry[data-kind="ai-write"][data-revision="${written.revision as string}"]`)
    await aiWrite.waitFor()
    await expect(aiWrite.locator('.history-comment').textContent()).resolves.toBe(`addresses ${thread.comment} (addressed)`)
    await screenshot(page, 'review-history')

    // The person restores the revision from before the AI's write; the assistant reads it back.
    await page.locator(`.history-entry[data-revision="${before.revision}"] .history-restore`).first().click()
    await page.locator('.restore-confirm .restore-ok').click()
    const restored = await eventually(() => read(tabId), (document) => document.content === ORIGINAL)
    expect(restored.revision).not.toBe(written.revision)
    await eventually(() => consoleEditor(page), (editor) => editor?.text === ORIGINAL)
    await page.locator('.history-entry[data-kind="restore"]').first().waitFor()
    await screenshot(page, 'review-restored')

    // The assistant asks to open another folder; the person approves it in the Approvals panel; the retry opens it.
    const target = await folder('review-approve', { 'notes.md': 'notes\n' })
    folders.push(target)
    const asked = ok(await ai.call('workspace', { action: 'open_workspace', folderPath: target }))
    expect(asked.needsApproval).toBe(true)
    await page.locator('.panel-open[data-panel="approvals"]').click()
    const request = page.locator(`.approval[data-approval-id="${asked.approvalId as string}"]`)
    await request.waitFor()
    await screenshot(page, 'review-approval')
    await request.locator('button.approve').click()
    await eventually(() => request.getAttribute('data-status'), (status) => status === 'approved')
    const opened = ok(await ai.call('workspace', { action: 'open_workspace', folderPath: target }))
    expect(opened.needsApproval).toBeUndefined()
    expect((await windowOf(ai)).activeWorkspaceInstanceId).toBe(opened.workspaceInstanceId)

    // Resolving stays the person's: done from the sidebar, and the assistant sees it.
    await page.locator('.drawer-close').click()
    await page.locator(`.comment-thread[data-comment-id="${thread.comment}"] .comment-resolve`).click()
    await eventually(threadsShown, (list) => list[0]?.state === 'resolved')
    const relisted = ok(await ai.call('comments', { action: 'list', tabId })) as { threads: ListedThread[] }
    expect(relisted.threads[0]!.state).toBe('resolved')
    await screenshot(page, 'review-resolved')
  }, 60_000)
})
