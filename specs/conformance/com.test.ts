/**
 * comments (TOOLS.md §7): COM.GEN.1–3, COM.LIST.1–9, COM.REPLY.1–4, COM.MARK_ADDRESSED.1–3 and COM.MUTATE.1–5 plus
 * INVALID_TEXT (COM.MUTATE.6), over stdio and HTTP. The person opens, replies to, resolves and deletes threads
 * through the owning process's admin API (what `quire comments` uses; one test runs the CLI itself). The journal
 * faults and WRITE_BUSY (COM.MUTATE.6–7) are in com.faults.test.ts; `addresses` (COM.ADDR.4–7) in com.addresses.test.ts.
 *
 * Readings: a thread's quote is `quote` (`anchorLost: true` once the anchored text is deleted), its replies
 * `replies: [{reply, author, at, body}]`; `body`/`bodyBase64` live on threads and replies alike; the first part of a
 * split thread carries `repliesFrom: 0` and `repliesTotal`; reply answers {comment, reply, commentGen},
 * mark_addressed {comment, state, commentGen}.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_OUTPUT_BYTES } from '../../adapters/mcp/results.js'
import {
  TRANSPORTS, cli, envelope, folder, logHead, ok, open, plain, removeAll, rig, write, type Json, type Rig, type Transport,
} from '../support/conformance.js'

/** The person's side: a request to the owning process's admin API with the port file's token. */
async function person(home: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Json> {
  const [port, token] = (await readFile(join(home, 'port'), 'utf8')).trim().split(':') as [string, string]
  const response = await fetch(`http://127.0.0.1:${port}/admin/comments${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const payload = await response.json()
  expect(response.ok, `${method} ${path}: ${JSON.stringify(payload)}`).toBe(true)
  return payload
}

describe.each<Transport>(TRANSPORTS)('comments over %s', (transport) => {
  let r: Rig
  let w: string
  const add = (file: string, from: number, to: number, body: string) => person(r.home, 'POST', '', { doc: `${w}/${file}`, from, to, body })
  const decide = (file: string, comment: string, decision: 'resolve' | 'reopen' | 'delete') => person(r.home, 'POST', `/${comment}/${decision}`, { doc: `${w}/${file}` })
  const personReply = (file: string, comment: string, body: string) => person(r.home, 'POST', `/${comment}/replies`, { doc: `${w}/${file}`, body })
  const list = async (tabId: string, cursor?: string) => ok(await r.session.call('comments', { action: 'list', tabId, ...(cursor === undefined ? {} : { cursor }) }))
  const thread = async (tabId: string, comment: string) => (await list(tabId)).threads.find((entry: Json) => entry.comment === comment)
  const reply = (tabId: string, commentId: string, body: string, expectedCommentGen: string) =>
    r.session.call('comments', { action: 'reply', tabId, commentId, body, expectedCommentGen })
  const mark = (tabId: string, commentId: string, expectedCommentGen: string) =>
    r.session.call('comments', { action: 'mark_addressed', tabId, commentId, expectedCommentGen })

  beforeAll(async () => {
    const files: Record<string, string> = {}
    for (const name of ['gen', 'list', 'anchor', 'pages', 'b64', 'cursor', 'other', 'reply', 'mark', 'mutate', 'cli']) files[`${name}.md`] = `The ${name} document has some text to review.\n`
    w = await folder('com', files)
    r = await rig(transport, { workspaces: [w] })
  })
  afterAll(async () => {
    await r?.close()
    await removeAll(w)
  })

  it('COM.GEN.1 the tool offers exactly list, reply and mark_addressed', async () => {
    const { tools } = await r.session.client.listTools()
    const comments = tools.find((tool) => tool.name === 'comments')
    expect(comments).toBeDefined()
    expect((comments!.inputSchema.properties as Record<string, { enum?: string[] }>).action!.enum).toEqual(['list', 'reply', 'mark_addressed'])
    expect(comments!.annotations?.readOnlyHint).not.toBe(true)
  })

  it('COM.GEN.2 resolve, reopen, delete (or any other action) are plain-string argument errors that change nothing', async () => {
    const tabId = await open(r.session, `${w}/gen.md`)
    const { comment, commentGen } = await add('gen.md', 4, 7, 'resolve me?')
    const head = await logHead(r.home)
    for (const action of ['resolve', 'reopen', 'delete', 'RESOLVE', 'remove']) {
      plain(await r.session.call('comments', { action, tabId, commentId: comment, expectedCommentGen: commentGen }))
    }
    expect(await logHead(r.home)).toBe(head)
    expect(await thread(tabId, comment)).toMatchObject({ state: 'open', commentGen })
  })

  it('COM.GEN.3 COM.LIST.1 COM.LIST.2 COM.LIST.3 list → {doc, generation, threads} oldest first; each thread has comment, state, commentGen, quote and replies', async () => {
    const tabId = await open(r.session, `${w}/list.md`)
    const first = await add('list.md', 4, 8, 'first')
    const second = await add('list.md', 9, 17, 'second')
    const third = await add('list.md', 0, 3, 'third')
    await personReply('list.md', second.comment, 'a note')
    await decide('list.md', third.comment, 'resolve')
    const page = await list(tabId)
    expect(Object.keys(page).sort()).toEqual(['doc', 'generation', 'threads'])
    expect(page.doc).toBeTypeOf('string')
    expect(page.generation).toBeTypeOf('string')
    expect(page.threads.map((entry: Json) => entry.comment)).toEqual([first.comment, second.comment, third.comment])
    for (const entry of page.threads) {
      expect(['open', 'addressed', 'resolved', 'reopened']).toContain(entry.state)
      expect(entry.commentGen).toBeTypeOf('string')
      expect(Array.isArray(entry.replies)).toBe(true)
    }
    expect(page.threads.map((entry: Json) => entry.quote)).toEqual(['list', 'document', 'The'])
    expect(page.threads.map((entry: Json) => entry.state)).toEqual(['open', 'open', 'resolved'])
    expect(page.threads[1].replies).toEqual([expect.objectContaining({ body: 'a note', author: 'user', reply: expect.stringMatching(/^r-/) })])
    expect(page.threads[0].body).toBe('first')
  })

  it('COM.LIST.3 the quote follows the anchored text through edits; once deleted, the creation quote with anchorLost: true', async () => {
    const tabId = await open(r.session, `${w}/anchor.md`)
    const { comment } = await add('anchor.md', 4, 10, 'about this word') // "anchor"
    await write(r.session, tabId, 'Prepended. The anchor document has some text to review.\n', { save: false })
    expect(await thread(tabId, comment)).toMatchObject({ quote: 'anchor' })
    expect((await thread(tabId, comment)).anchorLost).toBeUndefined()
    await write(r.session, tabId, 'Prepended. The  document has some text to review.\n', { save: false })
    expect(await thread(tabId, comment)).toMatchObject({ quote: 'anchor', anchorLost: true })
  })

  it('COM.LIST.4 COM.LIST.5 COM.LIST.6 COM.LIST.7 long threads page within the output bound; split threads carry repliesFrom/repliesTotal, continuations only comment, state, commentGen, continued, replies', async () => {
    const tabId = await open(r.session, `${w}/pages.md`)
    const small = await add('pages.md', 0, 3, 'a small one first')
    const big = await add('pages.md', 4, 9, 'a long discussion')
    let gen = big.commentGen
    const bodies: string[] = []
    for (let index = 0; index < 14; index++) {
      const body = `${index}: ${'長い返信 '.repeat(1_500)}`
      bodies.push(body)
      gen = ok(await reply(tabId, big.comment, body, gen)).commentGen
    }
    const last = await add('pages.md', 10, 18, 'the newest thread')
    const replies: string[] = []
    const order: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const result = await r.session.call('comments', { action: 'list', tabId, ...(cursor === undefined ? {} : { cursor }) })
      expect(Buffer.byteLength(result.text, 'utf8')).toBeLessThanOrEqual(MAX_OUTPUT_BYTES)
      const page = ok(result)
      expect(page.truncated).toBeUndefined()
      pages++
      for (const part of page.threads) {
        if (part.continued) {
          expect(Object.keys(part).sort()).toEqual(['comment', 'commentGen', 'continued', 'replies', 'state'])
          expect(part.continued).toBe(true)
        } else {
          order.push(part.comment)
          if (part.comment === big.comment) expect(part).toMatchObject({ repliesFrom: 0, repliesTotal: 14 })
        }
        if (part.comment === big.comment) replies.push(...part.replies.map((entry: Json) => entry.body))
      }
      cursor = page.nextCursor
      if (cursor !== undefined) expect(cursor).toBeTypeOf('string')
    } while (cursor !== undefined && pages < 50)
    expect(pages).toBeGreaterThan(2)
    expect(order).toEqual([small.comment, big.comment, last.comment])
    expect(replies).toEqual(bodies)
  })

  it('COM.LIST.8 a body whose JSON is too long for any page arrives as bodyBase64 (base64 of its UTF-8)', async () => {
    const tabId = await open(r.session, `${w}/b64.md`)
    const escaped = '\u0001\u0002"\\'.repeat(2_500)
    const { comment, commentGen } = await add('b64.md', 4, 7, escaped)
    ok(await reply(tabId, comment, '\u0007'.repeat(10_000), commentGen))
    const entry = await thread(tabId, comment)
    expect(entry.body).toBeUndefined()
    expect(Buffer.from(entry.bodyBase64, 'base64').toString('utf8')).toBe(escaped)
    expect(entry.replies[0].body).toBeUndefined()
    expect(Buffer.from(entry.replies[0].bodyBase64, 'base64').toString('utf8')).toBe('\u0007'.repeat(10_000))
  })

  it('COM.LIST.9 a cursor of another document, or one pointing at a thread deleted since, is STALE_COMMENT', async () => {
    const tabId = await open(r.session, `${w}/cursor.md`)
    const otherTab = await open(r.session, `${w}/other.md`)
    await add('other.md', 0, 3, 'elsewhere')
    const first = await add('cursor.md', 0, 3, 'x'.repeat(9_000))
    let gen = first.commentGen
    for (let index = 0; index < 8; index++) gen = ok(await reply(tabId, first.comment, `${index}`.repeat(9_000), gen)).commentGen
    const second = await add('cursor.md', 4, 10, 'y'.repeat(9_000))
    // A cursor that goes on inside the first thread.
    const cursor = (await list(tabId)).nextCursor
    expect(cursor).toBeTypeOf('string')
    envelope(await r.session.call('comments', { action: 'list', tabId: otherTab, cursor }), 'STALE_COMMENT')
    await decide('cursor.md', first.comment, 'delete')
    envelope(await r.session.call('comments', { action: 'list', tabId, cursor }), 'STALE_COMMENT')
    envelope(await r.session.call('comments', { action: 'list', tabId, cursor: 'not-a-cursor' }), 'STALE_COMMENT')
    expect((await list(tabId)).threads.map((entry: Json) => entry.comment)).toEqual([second.comment])
  })

  it('COM.REPLY.1 COM.REPLY.2 COM.REPLY.3 a reply is appended with a server-made id; a retry returns the first answer and adds nothing', async () => {
    const tabId = await open(r.session, `${w}/reply.md`)
    const { comment, commentGen } = await add('reply.md', 4, 9, 'please expand')
    // A client cannot even offer an id: replyId is an argument comments does not define (strict arguments).
    plain(await r.session.call('comments', { action: 'reply', tabId, commentId: comment, body: 'Expanded it.', expectedCommentGen: commentGen, replyId: 'r-client' }), /^unknown argument replyId\b/)
    const answer = ok(await reply(tabId, comment, 'Expanded it.', commentGen))
    expect(answer).toMatchObject({ comment, reply: expect.stringMatching(/^r-[0-9a-f]+$/), commentGen: expect.any(String) })
    expect(answer.commentGen).not.toBe(commentGen)
    const head = await logHead(r.home)
    expect(ok(await reply(tabId, comment, 'Expanded it.', commentGen))).toEqual(answer)
    expect(ok(await reply(tabId, comment, 'Expanded it.', commentGen))).toEqual(answer)
    expect(await logHead(r.home)).toBe(head)
    const entry = await thread(tabId, comment)
    expect(entry.replies).toEqual([expect.objectContaining({ reply: answer.reply, body: 'Expanded it.', author: expect.stringMatching(/^mcp:/) })])
    expect(entry.commentGen).toBe(answer.commentGen)
    // Another body with the old commentGen is not a retry: the thread changed.
    envelope(await reply(tabId, comment, 'Something else.', commentGen), 'STALE_COMMENT')
  })

  it('COM.MARK_ADDRESSED.1 COM.MARK_ADDRESSED.2 COM.MARK_ADDRESSED.3 mark_addressed sets addressed, never resolved; the person still resolves', async () => {
    const tabId = await open(r.session, `${w}/mark.md`)
    const { comment, commentGen } = await add('mark.md', 4, 8, 'fix this')
    const marked = ok(await mark(tabId, comment, commentGen))
    expect(marked).toMatchObject({ comment, state: 'addressed' })
    expect(await thread(tabId, comment)).toMatchObject({ state: 'addressed', commentGen: marked.commentGen })
    expect(ok(await mark(tabId, comment, commentGen))).toEqual(marked)
    envelope(await mark(tabId, comment, 'cg-zz'), 'STALE_COMMENT')
    expect((await thread(tabId, comment)).state).toBe('addressed')
    await decide('mark.md', comment, 'resolve')
    expect((await thread(tabId, comment)).state).toBe('resolved')
    await decide('mark.md', comment, 'reopen')
    expect((await thread(tabId, comment)).state).toBe('reopened')
  })

  it('COM.MUTATE.1 COM.MUTATE.2 COM.MUTATE.3 COM.MUTATE.4 COM.MUTATE.5 COM.MUTATE.6 (INVALID_TEXT) COM.REPLY.4 each refusal changes nothing', async () => {
    const tabId = await open(r.session, `${w}/mutate.md`)
    const otherTab = await open(r.session, `${w}/other.md`)
    const { comment, commentGen } = await add('mutate.md', 4, 10, 'one')
    const other = await add('other.md', 4, 9, 'another document')
    const resolved = await add('mutate.md', 11, 19, 'resolved one')
    await decide('mutate.md', resolved.comment, 'resolve')
    const resolvedGen = (await thread(tabId, resolved.comment)).commentGen
    const before = await list(tabId)
    const head = await logHead(r.home)
    const refusals: Array<[string, () => Promise<Json>]> = [
      ['STALE_COMMENT', () => reply(tabId, comment, 'x', 'cg-0')],
      ['STALE_COMMENT', () => mark(tabId, comment, 'cg-0')],
      ['INVALID_COMMENT', () => reply(tabId, 'not an id', 'x', commentGen)],
      ['INVALID_COMMENT', () => mark(tabId, 'c-zz', commentGen)],
      ['INVALID_COMMENT', () => reply(tabId, other.comment, 'x', other.commentGen)],
      ['INVALID_COMMENT', () => mark(otherTab, comment, commentGen)],
      ['COMMENT_NOT_ALLOWED', () => reply(tabId, resolved.comment, 'x', resolvedGen)],
      ['COMMENT_NOT_ALLOWED', () => mark(tabId, resolved.comment, resolvedGen)],
      ['COMMENT_LIMIT', () => reply(tabId, comment, 'z'.repeat(10_001), commentGen)],
      ['INVALID_TEXT', () => reply(tabId, comment, 'lone \uD800 surrogate', commentGen)],
    ]
    for (const [code, call] of refusals) envelope(await call(), code)
    expect(await logHead(r.home)).toBe(head)
    expect(await list(tabId)).toEqual(before)
    // The thread changed (the person replied) or was deleted since the commentGen: STALE_COMMENT.
    await personReply('mutate.md', comment, 'the person adds something')
    envelope(await reply(tabId, comment, 'x', commentGen), 'STALE_COMMENT')
    const current = (await thread(tabId, comment)).commentGen
    await decide('mutate.md', comment, 'delete')
    envelope(await reply(tabId, comment, 'x', current), 'STALE_COMMENT')
    envelope(await mark(tabId, comment, current), 'STALE_COMMENT')
    // Missing arguments are plain strings.
    plain(await r.session.call('comments', { action: 'reply', tabId, commentId: comment, expectedCommentGen: current }))
    plain(await r.session.call('comments', { action: 'mark_addressed', tabId, commentId: comment }))
  })

  it('the person\'s `quire comments` CLI opens, lists, resolves and deletes threads through the running process', async () => {
    const tabId = await open(r.session, `${w}/cli.md`)
    const added = await cli(r.home, 'comments', 'add', `${w}/cli.md`, '--from', '4', '--to', '7', 'from the CLI')
    expect(added.code, added.stderr).toBe(0)
    const comment = added.stdout.trim().split('\n').at(-1)!
    expect(comment).toMatch(/^c-/)
    expect(await thread(tabId, comment)).toMatchObject({ quote: 'cli', body: 'from the CLI', author: 'user' })
    const listed = await cli(r.home, 'comments', 'list', `${w}/cli.md`)
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).toContain(comment)
    expect((await cli(r.home, 'comments', 'resolve', `${w}/cli.md`, comment)).code).toBe(0)
    expect((await thread(tabId, comment)).state).toBe('resolved')
    expect((await cli(r.home, 'comments', 'delete', `${w}/cli.md`, comment)).code).toBe(0)
    expect(await thread(tabId, comment)).toBeUndefined()
  })
})
