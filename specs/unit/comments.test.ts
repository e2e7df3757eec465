import type { EventStore } from '../../adapters/leveldb/eventStore.js'
/**
 * Review threads in the core (core/comments, projections/comments): anchors that follow edits, the fold surviving a
 * restart (withdrawn changes included), the person's commands, and the page cutter's edge cases.
 */
import { describe, expect, it } from 'vitest'
import type { Engine } from '../../core/engine.js'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { USER, type Actor } from '../../core/events/actor.js'
import { isQuireError } from '../../core/errors.js'
import { MAX_BODY_CHARS, MAX_REPLIES, PAGE_BUDGET } from '../../core/comments/limits.js'
import { useTempHomes } from '../support/tempHome.js'

const AI: Actor = { kind: 'mcp', principal: 'claude', connection: 'c-1' }
const newHome = useTempHomes()

async function withEngine<T>(home: string, work: (engine: Engine) => Promise<T>): Promise<T> {
  const engine = await openEmbeddedEngine(home)
  try {
    return await work(engine)
  } finally {
    await engine.close()
  }
}

async function document(engine: Engine, content: string): Promise<string> {
  const { docId } = await engine.commands.documents.create({ kind: 'markdown', content, path: null, title: 'Untitled', origin: 'untitled', actor: USER })
  return docId
}

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    if (isQuireError(error)) return error.code
    throw error
  }
  return 'OK'
}

describe('comments in the core', () => {
  it('the anchor follows edits around it, and once its text is deleted the creation quote is shown with anchorLost', async () => {
    await withEngine(await newHome(), async (engine) => {
      const docId = await document(engine, 'alpha beta gamma\n')
      const comments = engine.commands.comments
      const { comment } = await comments.create(docId, { from: 6, to: 10 }, 'why beta?', USER)
      expect((await comments.list(docId)).threads[0]).toMatchObject({ comment, quote: 'beta', state: 'open' })
      await engine.commands.documents.write({ docId, content: 'NEW alpha beta gamma, more\n', actor: AI })
      const moved = (await comments.list(docId)).threads[0]!
      expect(moved).toMatchObject({ quote: 'beta' })
      expect('anchorLost' in moved).toBe(false)
      await engine.commands.documents.write({ docId, content: 'NEW alpha  gamma, more\n', actor: AI })
      expect((await comments.list(docId)).threads[0]).toMatchObject({ quote: 'beta', anchorLost: true })
    })
  })

  it('threads, replies and states survive a restart; a withdrawn change never takes effect on reload', async () => {
    const home = await newHome()
    const { docId, comment } = await withEngine(home, async (engine) => {
      const docId = await document(engine, 'text\n')
      const comments = engine.commands.comments
      const { comment, commentGen } = await comments.create(docId, { from: 0, to: 4 }, 'body', USER)
      const replied = await comments.reply(docId, comment, 'a reply', commentGen, AI)
      await comments.markAddressed(docId, comment, replied.commentGen, AI)
      // A withdrawn reply, written the way a refused one is: the event, then its withdrawal.
      const stream = `comments:${docId}`
      const late = (engine.store as EventStore).enqueue(stream, [{ type: 'comment.replied', actor: AI, data: { commentId: comment, replyId: 'r-00000000aa', body: 'refused' } }])
      const withdrawal = (engine.store as EventStore).enqueue(stream, [{ type: 'comment.withdrawn', actor: AI, data: { streamVersion: late.events[0]!.streamVersion } }])
      engine.views.comments.apply(withdrawal.events)
      await withdrawal.durable
      return { docId, comment }
    })
    await withEngine(home, async (engine) => {
      const [thread] = await engine.commands.comments.threads(docId)
      expect(thread!.head).toMatchObject({ comment, state: 'addressed', quote: 'text' })
      expect(thread!.replies.map((reply) => 'body' in reply && reply.body)).toEqual(['a reply'])
      expect(thread!.replies[0]!.author).toBe('mcp:claude')
    })
  })

  it('the person resolves, reopens and deletes; deleted threads leave the list and turn STALE_COMMENT', async () => {
    await withEngine(await newHome(), async (engine) => {
      const docId = await document(engine, 'some text\n')
      const comments = engine.commands.comments
      const { comment } = await comments.create(docId, { from: 0, to: 4 }, 'b', USER)
      expect((await comments.resolve(docId, comment, USER)).state).toBe('resolved')
      expect((await comments.reopen(docId, comment, USER)).state).toBe('reopened')
      const gen = (await comments.list(docId)).threads[0]!.commentGen
      await comments.delete(docId, comment, USER)
      expect((await comments.list(docId)).threads).toEqual([])
      expect(await code(comments.reply(docId, comment, 'x', gen, AI))).toBe('STALE_COMMENT')
      expect(await code(comments.create(docId, { from: 3, to: 1 }, 'x', USER))).toBe('INVALID_ARGUMENT')
      expect(await code(comments.create(docId, { from: 0, to: 99 }, 'x', USER))).toBe('INVALID_ARGUMENT')
    })
  })

  it(`limits: a body over ${MAX_BODY_CHARS} characters, and a reply past ${MAX_REPLIES}, are COMMENT_LIMIT`, async () => {
    await withEngine(await newHome(), async (engine) => {
      const docId = await document(engine, 'x\n')
      const comments = engine.commands.comments
      const { comment } = await comments.create(docId, { from: 0, to: 1 }, 'b', USER)
      expect(await code(comments.reply(docId, comment, 'y'.repeat(MAX_BODY_CHARS + 1), undefined, USER))).toBe('COMMENT_LIMIT')
      let gen = ''
      for (let index = 0; index < MAX_REPLIES; index++) gen = (await comments.reply(docId, comment, `r${index}`, undefined, USER)).commentGen
      expect(await code(comments.reply(docId, comment, 'one too many', gen, AI))).toBe('COMMENT_LIMIT')
    })
  })

  it('the largest head and the largest replies never share a page beyond the budget', async () => {
    await withEngine(await newHome(), async (engine) => {
      const docId = await document(engine, '\u0001'.repeat(3000))
      const comments = engine.commands.comments
      const { comment } = await comments.create(docId, { from: 0, to: 3000 }, '漢'.repeat(MAX_BODY_CHARS), USER)
      for (let index = 0; index < 3; index++) await comments.reply(docId, comment, '字'.repeat(MAX_BODY_CHARS), undefined, USER)
      let cursor: string | undefined
      let replies = 0
      do {
        const page = await comments.list(docId, cursor)
        expect(Buffer.byteLength(JSON.stringify(page, null, 2))).toBeLessThanOrEqual(PAGE_BUDGET)
        for (const part of page.threads) replies += part.replies.length
        cursor = page.nextCursor
      } while (cursor !== undefined)
      expect(replies).toBe(3)
    })
  })

  it('a thread whose head alone nearly fills a page still pages: every page within the budget, no reply lost', async () => {
    await withEngine(await newHome(), async (engine) => {
      const docId = await document(engine, 'x'.repeat(5000))
      const comments = engine.commands.comments
      const escaped = '\u0001'.repeat(MAX_BODY_CHARS)
      const { comment } = await comments.create(docId, { from: 0, to: 5000 }, escaped, USER)
      for (let index = 0; index < 6; index++) await comments.reply(docId, comment, `${index}`.repeat(MAX_BODY_CHARS), undefined, USER)
      const seen: string[] = []
      let cursor: string | undefined
      do {
        const page = await comments.list(docId, cursor)
        expect(Buffer.byteLength(JSON.stringify(page, null, 2))).toBeLessThanOrEqual(PAGE_BUDGET)
        for (const part of page.threads) for (const reply of part.replies) seen.push(reply.reply)
        cursor = page.nextCursor
      } while (cursor !== undefined)
      expect(seen).toHaveLength(6)
      const first = (await comments.list(docId)).threads[0]!
      expect('bodyBase64' in first && Buffer.from(first.bodyBase64, 'base64').toString('utf8')).toBe(escaped)
      expect(first).toMatchObject({ quoteTruncated: true })
    })
  })
})
