import { Hono, type Context } from 'hono'
import { z } from 'zod'
import type { BodyField, ThreadView } from '../../core/comments/views.js'
import { USER } from '../../core/events/actor.js'
import { isQuireError, QuireError } from '../../core/errors.js'
import type { Services } from '../host/services.js'
import type { ConsoleError } from './consoleApi.js'
import type { ConsoleCommentCreated, ConsoleComments, ConsoleCommentThread } from './consoleCommentsApi.js'

type Status = 400 | 404 | 409

const NO_STORE = { 'cache-control': 'no-store' }
const createBody = z.object({ from: z.number().int().nonnegative(), to: z.number().int().nonnegative(), body: z.string().min(1) })
const replyBody = z.object({ body: z.string().min(1) })

/**
 * The Comments sidebar's API (contract in consoleCommentsApi.ts): the person's side of review threads for one
 * document — list them whole, open one on a range of `source`, reply, resolve, reopen, delete. Mounted under
 * `/console/api` after the token check, so every change is the person's (actor `user`), never an assistant's.
 */
export function consoleCommentRoutes(services: Services): Hono {
  const app = new Hono()
  app.onError((error, c) => {
    if (isQuireError(error)) return fail(c, error.code, error.message, statusOf(error.code))
    throw error
  })

  app.get('/docs/:docId/comments', async (c) => c.json<ConsoleComments>(await threadsOf(services, c.req.param('docId')), 200, NO_STORE))

  app.post('/docs/:docId/comments', async (c) => {
    const body = createBody.safeParse(await c.req.json().catch(() => null))
    if (!body.success) return fail(c, 'INVALID_ARGUMENT', 'expected {"from": N, "to": N, "body": "..."} (offsets in the source text)', 400)
    const docId = c.req.param('docId')
    const created = await services.comments.create(docId, { from: body.data.from, to: body.data.to }, body.data.body, USER)
    return c.json<ConsoleCommentCreated>({ comment: created.comment, ...(await threadsOf(services, docId)) })
  })

  app.post('/docs/:docId/comments/:commentId/replies', async (c) => {
    const body = replyBody.safeParse(await c.req.json().catch(() => null))
    if (!body.success) return fail(c, 'INVALID_ARGUMENT', 'expected {"body": "..."}', 400)
    const docId = await known(services, c.req.param('docId'))
    // No expected commentGen: the person replies to whatever the thread is now.
    await services.comments.reply(docId, c.req.param('commentId'), body.data.body, undefined, USER)
    return c.json<ConsoleComments>(await threadsOf(services, docId))
  })

  const decisions = {
    resolve: (docId: string, id: string) => services.comments.resolve(docId, id, USER),
    reopen: (docId: string, id: string) => services.comments.reopen(docId, id, USER),
    delete: (docId: string, id: string) => services.comments.delete(docId, id, USER),
  } as const
  for (const [name, decide] of Object.entries(decisions)) {
    app.post(`/docs/:docId/comments/:commentId/${name}`, async (c) => {
      const docId = await known(services, c.req.param('docId'))
      await decide(docId, c.req.param('commentId'))
      return c.json<ConsoleComments>(await threadsOf(services, docId))
    })
  }
  return app
}

async function threadsOf(services: Services, docIdParam: string): Promise<ConsoleComments> {
  const docId = await known(services, docIdParam)
  const threads = (await services.comments.threads(docId)).map((view) => threadOf(view, services.engine.views.comments.find(view.head.comment)?.anchor))
  // Oldest first (the projection keeps creation order; sorting makes it explicit and stable).
  return { docId, threads: [...threads].sort((a, b) => a.createdAt.localeCompare(b.createdAt)) }
}

/** A thread as the sidebar shows it: plain bodies (the console is never paged, so no base64 is needed). */
function threadOf(view: ThreadView, anchor: { readonly start: Uint8Array; readonly end: Uint8Array } | undefined): ConsoleCommentThread {
  const { head } = view
  return {
    anchor: anchor ? { start: Buffer.from(anchor.start).toString('base64'), end: Buffer.from(anchor.end).toString('base64') } : null,
    id: head.comment,
    state: head.state,
    commentGen: head.commentGen,
    quote: head.quote,
    quoteTruncated: head.quoteTruncated === true,
    anchorLost: head.anchorLost === true,
    body: plain(head),
    author: head.author,
    createdAt: head.createdAt,
    replies: view.replies.map((reply) => ({ id: reply.reply, author: reply.author, body: plain(reply), at: reply.at })),
  }
}

function plain(field: BodyField): string {
  return 'body' in field ? field.body : Buffer.from(field.bodyBase64, 'base64').toString('utf8')
}

/** The document's id, or NOT_FOUND: the console names documents by id only (never by path). */
async function known(services: Services, docId: string): Promise<string> {
  if (!(await services.engine.documents.get(docId))) throw new QuireError('NOT_FOUND', `no document ${docId}`)
  return docId
}

function statusOf(code: string): Status {
  if (code === 'NOT_FOUND' || code === 'INVALID_COMMENT') return 404
  if (code === 'STALE_COMMENT') return 409
  return 400
}

function fail(c: Context, error: string, message: string, status: Status) {
  return c.json<ConsoleError>({ error, message }, status)
}
