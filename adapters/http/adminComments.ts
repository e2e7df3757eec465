import { Hono } from 'hono'
import { z } from 'zod'
import { USER } from '../../core/events/actor.js'
import { isQuireError } from '../../core/errors.js'
import { resolveDocument } from '../../core/audit/resolve.js'
import type { Services } from '../host/services.js'

const target = { doc: z.string().min(1), cwd: z.string().optional() }
const createBody = z.object({ ...target, from: z.number().int().nonnegative(), to: z.number().int().nonnegative(), body: z.string() })
const replyBody = z.object({ ...target, body: z.string() })
const decisionBody = z.object(target)

/**
 * The person's side of review threads, under `/admin/comments` (the `quire comments` CLI): list whole threads, open
 * a thread on a range, reply, resolve, reopen, delete. Documents are named by id or path (`cwd` for relative paths).
 */
export function adminCommentRoutes(services: Services): Hono {
  const app = new Hono()
  app.onError((error, c) => {
    if (isQuireError(error)) return c.json({ error: error.code, message: error.message }, error.code === 'NOT_FOUND' ? 404 : 400)
    return c.json({ error: 'INTERNAL', message: error.message }, 500)
  })
  const invalid = (message: string) => ({ error: 'INVALID_ARGUMENT', message })
  app.get('/', async (c) => {
    const docId = await resolveDocument(services.engine, c.req.query('doc') ?? '', c.req.query('cwd') || undefined)
    return c.json({ docId, threads: await services.comments.threads(docId) })
  })
  app.post('/', async (c) => {
    const body = createBody.safeParse(await c.req.json().catch(() => null))
    if (!body.success) return c.json(invalid('expected {"doc": ..., "from": N, "to": N, "body": "..."}'), 400)
    const docId = await resolveDocument(services.engine, body.data.doc, body.data.cwd)
    return c.json({ docId, ...(await services.comments.create(docId, { from: body.data.from, to: body.data.to }, body.data.body, USER)) })
  })
  app.post('/:id/replies', async (c) => {
    const body = replyBody.safeParse(await c.req.json().catch(() => null))
    if (!body.success) return c.json(invalid('expected {"doc": ..., "body": "..."}'), 400)
    const docId = await resolveDocument(services.engine, body.data.doc, body.data.cwd)
    return c.json({ docId, ...(await services.comments.reply(docId, c.req.param('id'), body.data.body, undefined, USER)) })
  })
  app.post('/:id/:decision{resolve|reopen|delete}', async (c) => {
    const body = decisionBody.safeParse(await c.req.json().catch(() => null))
    if (!body.success) return c.json(invalid('expected {"doc": ...}'), 400)
    const docId = await resolveDocument(services.engine, body.data.doc, body.data.cwd)
    const id = c.req.param('id')
    const decision = c.req.param('decision')
    const outcome =
      decision === 'resolve' ? await services.comments.resolve(docId, id, USER)
        : decision === 'reopen' ? await services.comments.reopen(docId, id, USER)
          : await services.comments.delete(docId, id, USER)
    return c.json({ docId, ...outcome })
  })
  return app
}
