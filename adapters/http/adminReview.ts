import { Hono } from 'hono'
import { z } from 'zod'
import { USER } from '../../core/events/actor.js'
import { QuireError } from '../../core/errors.js'
import { resolveDocument } from '../../core/audit/resolve.js'
import type { ReviewOutcome, SessionUndone } from '../../core/review/commands.js'
import type { ChangeView } from '../../core/review/views.js'
import type { Services } from '../host/services.js'

/** `quire review list`: the document's changes (pending only unless `all`). */
export interface ReviewListing {
  readonly docId: string
  readonly changes: readonly ChangeView[]
}

/** What `quire review keep | undo | redo | mark` did, with the document's id. */
export type ReviewDone = ({ readonly docId: string } & ReviewOutcome) | ({ readonly docId: string } & SessionUndone) | { readonly docId: string; readonly revision: string; readonly reviewed: number }

const target = { doc: z.string().min(1), cwd: z.string().optional() }
const hunks = z.array(z.number().int().nonnegative()).min(1).optional()

/**
 * `/admin/review`, the person's review of AI changes from the CLI (DESIGN §11): list, keep, undo (a change, its hunks,
 * or one assistant's pending changes since a time or revision), redo, and "mark all reviewed" (POST /admin/review).
 * Each names the document by path or id, as the CLI was given it (relative to `cwd`).
 */
export function adminReviewRoutes(services: Services): Hono {
  const app = new Hono()
  const docOf = (doc: string, cwd: string | undefined) => resolveDocument(services.engine, doc, cwd)
  app.get('/', async (c) => {
    const docId = await docOf(c.req.query('doc') ?? '', c.req.query('cwd') || undefined)
    const all = c.req.query('all') === '1'
    const changes = (await services.review.list(docId)).filter((change) => all || change.state === 'pending')
    return c.json<ReviewListing>({ docId, changes })
  })
  app.post('/', async (c) => {
    const body = z.object(target).strict().safeParse(await c.req.json().catch(() => null))
    if (!body.success) return c.json({ error: 'INVALID_ARGUMENT', message: 'expected {"doc": "PATH_OR_ID", "cwd"?: "/dir"}' }, 400)
    const docId = await docOf(body.data.doc, body.data.cwd)
    const before = await services.review.unreviewed(docId)
    const state = await services.engine.documents.get(docId)
    if (!state) throw new QuireError('NOT_FOUND', `no document ${docId}`)
    await services.review.markReviewed(docId, state.revision, USER)
    return c.json<ReviewDone>({ docId, revision: state.revision, reviewed: before })
  })
  app.post('/:action{keep|redo}', async (c) => {
    const body = z.object({ ...target, change: z.string().min(1), hunks }).strict().safeParse(await c.req.json().catch(() => null))
    if (!body.success) return c.json({ error: 'INVALID_ARGUMENT', message: 'expected {"doc": "PATH_OR_ID", "change": "ch-…", "hunks"?: [N, …]}' }, 400)
    const docId = await docOf(body.data.doc, body.data.cwd)
    const act = c.req.param('action') === 'keep' ? services.review.keep.bind(services.review) : services.review.redo.bind(services.review)
    return c.json<ReviewDone>({ docId, ...(await act(docId, body.data.change, body.data.hunks, USER)) })
  })
  app.post('/undo', async (c) => {
    const body = z
      .object({ ...target, change: z.string().min(1).optional(), hunks, agent: z.string().min(1).optional(), since: z.union([z.string().min(1), z.number()]).optional() })
      .strict()
      .refine((data) => (data.change === undefined) !== (data.agent === undefined), 'exactly one of change and agent')
      .safeParse(await c.req.json().catch(() => null))
    if (!body.success) return c.json({ error: 'INVALID_ARGUMENT', message: 'expected {"doc": ..., "change": "ch-…", "hunks"?: [N]} or {"doc": ..., "agent": NAME, "since"?: ms | "rev-…"}' }, 400)
    const docId = await docOf(body.data.doc, body.data.cwd)
    if (body.data.agent !== undefined) {
      return c.json<ReviewDone>({ docId, ...(await services.review.undoBy(docId, { principal: body.data.agent, since: body.data.since }, USER)) })
    }
    return c.json<ReviewDone>({ docId, ...(await services.review.undo(docId, body.data.change!, body.data.hunks, USER)) })
  })
  return app
}
