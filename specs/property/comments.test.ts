/**
 * Properties of `comments.list` paging (COM.LIST.2, .4–8) and of retried replies (COM.REPLY.3): over random threads,
 * reply counts and bodies (huge and escape-heavy ones included), following nextCursor returns every thread in order
 * and every reply exactly once, in order, with bodies intact; every page's JSON stays within the bound; and a retried
 * reply never adds a second one.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { USER, type Actor } from '../../core/events/actor.js'
import { commentGenOf } from '../../core/comments/events.js'
import { MAX_BODY_CHARS, PAGE_BUDGET } from '../../core/comments/limits.js'
import { listPage, type CommentsPage } from '../../core/comments/pages.js'
import type { RecordedEvent } from '../../core/log/eventLog.js'
import { MAX_OUTPUT_BYTES } from '../../adapters/mcp/results.js'
import { DocumentThreads } from '../../core/comments/commentsState.js'
import { useTempHomes } from '../support/tempHome.js'
import { fuzzParameters } from '../support/fuzz.js'

const AI: Actor = { kind: 'mcp', principal: 'claude', connection: 'c-1' }
const newHome = useTempHomes()

const body = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom('\u0001', '"', '漢', '😀', 'a').chain((unit) => fc.integer({ min: 1, max: Math.floor(MAX_BODY_CHARS / unit.length) }).map((n) => unit.repeat(n))) },
)
const quote = fc.oneof(fc.string({ maxLength: 20 }), fc.constant('\u0001'.repeat(2_000)))
const threadsArb = fc.array(fc.record({ quote, body, replies: fc.array(body, { maxLength: 25 }) }), { maxLength: 5 })

const hex = (n: number) => n.toString(16).padStart(10, '0')

function fold(spec: Array<{ quote: string; body: string; replies: string[] }>): DocumentThreads {
  const threads = new DocumentThreads()
  let version = 0
  const event = (type: string, data: unknown): RecordedEvent => ({ position: ++version, stream: 'comments:d-1', streamVersion: version, type, v: 1, at: 0, actor: USER, data })
  spec.forEach((thread, t) => {
    const commentId = `c-${hex(t)}`
    threads.evolve(event('comment.created', { commentId, anchor: { start: new Uint8Array(), end: new Uint8Array() }, quote: thread.quote, quoteTruncated: false, body: thread.body }), 'd-1')
    thread.replies.forEach((reply, r) => threads.evolve(event('comment.replied', { commentId, replyId: `r-${hex(t * 1000 + r)}`, body: reply }), 'd-1'))
  })
  return threads
}

const text = (item: { body?: string; bodyBase64?: string }) => item.body ?? Buffer.from(item.bodyBase64!, 'base64').toString('utf8')

describe('comments.list paging', () => {
  it('returns every thread once, oldest first, and every reply exactly once in order; each page within the bound', () => {
    fc.assert(
      fc.property(threadsArb, (spec) => {
        const threads = fold(spec)
        const heads: string[] = []
        const replies = new Map<string, string[]>()
        let cursor: string | undefined
        let pages = 0
        do {
          const page: CommentsPage = listPage('d-1', threads, (thread) => ({ quote: thread.quote, quoteTruncated: false, anchorLost: true }), cursor)
          pages++
          const bytes = Buffer.byteLength(JSON.stringify(page, null, 2), 'utf8')
          expect(bytes).toBeLessThanOrEqual(PAGE_BUDGET)
          expect(bytes).toBeLessThan(MAX_OUTPUT_BYTES)
          for (const part of page.threads) {
            if ('continued' in part) {
              expect(Object.keys(part).sort()).toEqual(['comment', 'commentGen', 'continued', 'replies', 'state'])
            } else {
              heads.push(part.comment)
              const index = Number.parseInt(part.comment.slice(2), 16)
              expect(text(part)).toBe(spec[index]!.body)
              expect(part.quote).toBe(spec[index]!.quote)
              if (part.repliesTotal !== undefined) expect(part).toMatchObject({ repliesFrom: 0, repliesTotal: spec[index]!.replies.length })
            }
            replies.set(part.comment, [...(replies.get(part.comment) ?? []), ...part.replies.map(text)])
          }
          cursor = page.nextCursor
        } while (cursor !== undefined && pages < 1000)
        expect(cursor).toBeUndefined()
        expect(heads).toEqual(spec.map((_, t) => `c-${hex(t)}`))
        spec.forEach((thread, t) => expect(replies.get(`c-${hex(t)}`) ?? []).toEqual(thread.replies))
      }),
      fuzzParameters({ numRuns: 60 }),
    )
  })
})

describe('comments.reply retries', () => {
  it('a retried call (same thread, expectedCommentGen and body) returns the first answer and never adds a reply', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ body: fc.constantFrom('a', 'b', 'c'), retries: fc.nat({ max: 3 }) }), { minLength: 1, maxLength: 6 }), async (calls) => {
        const engine = await openEmbeddedEngine(await newHome())
        try {
          const { docId } = await engine.commands.documents.create({ kind: 'markdown', content: 'text\n', path: null, title: 'T', origin: 'untitled', actor: USER })
          const comments = engine.commands.comments
          let { comment, commentGen } = await comments.create(docId, { from: 0, to: 4 }, 'review', USER)
          for (const call of calls) {
            const first = await comments.reply(docId, comment, call.body, commentGen, AI)
            for (let retry = 0; retry < call.retries; retry++) expect(await comments.reply(docId, comment, call.body, commentGen, AI)).toEqual(first)
            commentGen = first.commentGen
          }
          const [thread] = await comments.threads(docId)
          expect(thread!.replies.map(text)).toEqual(calls.map((call) => call.body))
          expect(commentGen).toBe(commentGenOf(1 + calls.length))
        } finally {
          await engine.close()
        }
      }),
      fuzzParameters({ numRuns: 20 }),
    )
  })
})
