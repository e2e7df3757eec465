/**
 * comments.reply / mark_addressed against a faulty log, in-process (TOOLS.md §7.4): COM.MUTATE.6 (JOURNAL_UNAVAILABLE,
 * JOURNAL_BUSY, JOURNAL_DEGRADED; JRNL.15) and COM.MUTATE.7 / CONC.4 (WRITE_BUSY after 3 s, one line per document
 * shared with document.write). A refused change leaves nothing: not then, not once the log lands it late, not after
 * a restart. The person opens threads through the core's own commands.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openQuire } from '../../adapters/host/quire.js'
import { USER } from '../../core/events/actor.js'
import { openWorkspaceAsPerson } from '../../core/workspace/commands.js'
import { docOfTab, envelope, eventually, launchFaulty, LogStall, ok, openTab, plainString, real, within, type FaultySession } from '../support/faultSession.js'
import { launchInProcess, tempDir } from '../support/mcpHarness.js'
import { withTestStore } from '../support/testStore.js'

describe('comments against a faulty log (in-process)', () => {
  let T: string
  let ws: string
  let count = 0

  beforeAll(async () => {
    T = await real(await tempDir('quire-com-faults-'))
    ws = join(T, 'ws')
    await mkdir(ws)
  })
  afterAll(async () => {
    await rm(T, { recursive: true, force: true })
  })

  /** A session on a fresh home with a stallable log, a tab, and one thread the person opened. */
  async function fresh(session?: FaultySession & { stall?: LogStall }) {
    const file = join(ws, `doc-${++count}.md`)
    await writeFile(file, 'Some text the person reviews.\n')
    const home = join(T, `home-${count}`)
    await mkdir(home)
    const stall = new LogStall()
    const s = session ?? (await launchFaulty({ workspaces: [ws], stall, home }))
    const tabId = await openTab(s, file)
    const docId = docOfTab(s.quire, tabId)
    const { comment, commentGen } = await s.quire.services.comments.create(docId, { from: 5, to: 9 }, 'review this', USER)
    return { session: s, stall, home, tabId, docId, comment, commentGen }
  }

  const list = async (session: FaultySession, tabId: string) => ok(await session.call('comments', { action: 'list', tabId }))

  it('COM.MUTATE.6 JOURNAL_UNAVAILABLE when the log does not answer in time; JOURNAL_BUSY meanwhile; the late record never applies, even after a restart', async () => {
    const { session, stall, home, tabId, comment, commentGen, docId } = await fresh()
    try {
      const before = await list(session, tabId)
      const held = stall.engage()
      const started = Date.now()
      envelope(await within(15_000, 'reply against a stalled log', session.call('comments', { action: 'reply', tabId, commentId: comment, body: 'must not land', expectedCommentGen: commentGen })), 'JOURNAL_UNAVAILABLE')
      expect(Date.now() - started).toBeLessThan(10_000)
      envelope(await session.call('comments', { action: 'mark_addressed', tabId, commentId: comment, expectedCommentGen: commentGen }), 'JOURNAL_BUSY')
      envelope(await session.call('comments', { action: 'reply', tabId, commentId: comment, body: 'also not', expectedCommentGen: commentGen }), 'JOURNAL_BUSY')
      expect((await list(session, tabId)).threads).toEqual(before.threads)
      held.release()
      await session.quire.services.engine.store.flush()
      expect((await list(session, tabId)).threads).toEqual(before.threads)
      // The thread takes changes again, with the same commentGen: nothing changed it.
      expect(await eventually(async () => !(await session.call('comments', { action: 'mark_addressed', tabId, commentId: comment, expectedCommentGen: commentGen })).isError)).toBe(true)
      expect((await list(session, tabId)).threads[0]).toMatchObject({ state: 'addressed', replies: [] })
    } finally {
      await session.close()
    }
    const reopened = await openQuire(home, withTestStore(home, { watchDisk: false }))
    try {
      const [thread] = await reopened.services.comments.threads(docId)
      expect(thread!.head.state).toBe('addressed')
      expect(thread!.replies).toEqual([])
    } finally {
      await reopened.close()
    }
  })

  it('COM.MUTATE.6 JOURNAL_DEGRADED while the refused record has landed but its withdrawal has not; then changes proceed', async () => {
    const { session, stall, tabId, comment, commentGen } = await fresh()
    try {
      const first = stall.engage()
      envelope(await within(15_000, 'mark_addressed against a stalled log', session.call('comments', { action: 'mark_addressed', tabId, commentId: comment, expectedCommentGen: commentGen })), 'JOURNAL_UNAVAILABLE')
      const second = stall.engage()
      first.release()
      await second.reached
      envelope(await session.call('comments', { action: 'reply', tabId, commentId: comment, body: 'not yet', expectedCommentGen: commentGen }), 'JOURNAL_DEGRADED')
      second.release()
      await session.quire.services.engine.store.flush()
      expect(await eventually(async () => !(await session.call('comments', { action: 'reply', tabId, commentId: comment, body: 'now', expectedCommentGen: commentGen })).isError)).toBe(true)
      const [thread] = (await list(session, tabId)).threads
      expect(thread).toMatchObject({ state: 'open' })
      expect(thread.replies.map((reply: { body: string }) => reply.body)).toEqual(['now'])
    } finally {
      await session.close()
    }
  })

  it('COM.MUTATE.7 a reply still waiting for its turn after 3 s behind another write answers the plain-string WRITE_BUSY and is never applied', async () => {
    const stall = new LogStall()
    const session = await launchInProcess({ interceptWrite: stall.intercept, journalDeadlineMs: 15_000, watchDisk: false })
    const { engine } = session.quire.services
    await openWorkspaceAsPerson(engine.store, engine.views.workspace, ws, USER)
    const { tabId, comment, commentGen } = await fresh(session)
    try {
      const held = stall.engage()
      const slow = session.call('comments', { action: 'reply', tabId, commentId: comment, body: 'the first, slow', expectedCommentGen: commentGen })
      await held.reached
      const started = Date.now()
      const busy = plainString(await session.call('comments', { action: 'reply', tabId, commentId: comment, body: 'behind it', expectedCommentGen: commentGen }))
      expect(busy).toMatch(/WRITE_BUSY/)
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_900)
      // One line per document: a document.write waits behind the reply too.
      plainString(await session.call('document', { action: 'write', tabId, content: 'changed\n', save: false }))
      held.release()
      const answered = ok(await slow)
      const [thread] = (await list(session, tabId)).threads
      expect(thread.replies.map((reply: { body: string }) => reply.body)).toEqual(['the first, slow'])
      expect(thread.commentGen).toBe(answered.commentGen)
    } finally {
      await session.close()
    }
  })
})
