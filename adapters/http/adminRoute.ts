import { Hono } from 'hono'
import { z } from 'zod'
import { USER } from '../../core/events/actor.js'
import { isQuireError, QuireError } from '../../core/errors.js'
import type { Services } from '../host/services.js'
import { openWorkspaceAsPerson } from '../../core/workspace/commands.js'
import { auditLog, blameAnswer, historyAnswer } from '../host/auditAnswers.js'
import { replayDocument } from '../../core/audit/replay.js'
import { verify } from '../../core/audit/verify.js'
import { parseChainPoint } from '../../core/log/hashChain.js'
import { resolveDocument } from '../../core/audit/resolve.js'
import { settingEntries } from '../../core/settings/events.js'
import { adminCommentRoutes } from './adminComments.js'
import { adminCoherenceRoutes } from './adminCoherence.js'
import { adminBrowserRoutes } from './adminBrowser.js'
import { adminAgentRoutes, type AgentSessions } from './adminAgents.js'
import { adminReviewRoutes } from './adminReview.js'
import { apiBodyLimit } from './guard.js'
import { parseApprovalScope } from '../../core/approvals/events.js'

/**
 * The person's side of the daemon, for the `quire` CLI (and later the console): approvals and agent tokens.
 * Reachable only with the port file's access token, never with an agent's token: an assistant must not be able to
 * approve its own requests through the MCP credentials it holds.
 */
/** Most events one `/admin/log` answer carries; page with `after` for more. */
const MAX_LOG_EVENTS = 100_000

export interface AdminOptions {
  /** A fresh one-time console sign-in link, for `quire status` (the daemon's console sessions make it). */
  readonly newConsoleLink?: () => string
  /** The daemon's MCP sessions, which `quire agent list` shows and `quire agent end-session` ends. */
  readonly sessions?: AgentSessions
}

export function adminRoutes(services: Services, options: AdminOptions = {}): Hono {
  const app = new Hono()
  app.onError((error, c) => {
    if (isQuireError(error)) return c.json({ error: error.code, message: error.message }, error.code === 'NOT_FOUND' ? 404 : 400)
    return c.json({ error: 'INTERNAL', message: error.message }, 500)
  })
  app.use('*', apiBodyLimit())
  app.get('/approvals', (c) => c.json({ approvals: services.approvals.list() }))
  app.post('/approvals/:id/:decision{approve|deny}', async (c) => {
    const decision = c.req.param('decision') === 'approve' ? 'approved' : 'denied'
    return c.json({ approval: await services.approvals.decide(c.req.param('id'), decision, USER, parseApprovalScope(c.req.query('scope'))) })
  })
  app.get('/settings', (c) => c.json({ settings: Object.fromEntries(settingEntries(services.settings.state)) }))
  app.post('/settings', async (c) => {
    const body = z.object({ key: z.string().min(1), value: z.union([z.boolean(), z.string(), z.number()]) }).safeParse(await c.req.json().catch(() => null))
    if (!body.success) return c.json({ error: 'INVALID_ARGUMENT', message: 'expected {"key": "...", "value": true | "text" | 1}' }, 400)
    await services.settings.set(body.data.key, body.data.value, USER)
    return c.json({ settings: Object.fromEntries(settingEntries(services.settings.state)) })
  })
  // Names, when added, live or revoked, and their open MCP sessions: never a token (the log holds only their hashes).
  app.route('/agents', adminAgentRoutes(services, options.sessions))
  // `quire review list | keep | undo | redo | mark`: the person's review of AI changes.
  app.route('/review', adminReviewRoutes(services))
  app.post('/workspaces', async (c) => {
    const body = z.object({ path: z.string().min(1) }).safeParse(await c.req.json().catch(() => null))
    if (!body.success) return c.json({ error: 'INVALID_ARGUMENT', message: 'expected {"path": "/absolute/folder"}' }, 400)
    const { engine } = services
    return c.json({ workspaceInstanceId: await openWorkspaceAsPerson(engine.store, engine.views.workspace, body.data.path, USER) })
  })
  app.get('/history', async (c) => c.json(await historyAnswer(services.readModels, c.req.query('doc') ?? '', c.req.query('cwd') || undefined)))
  app.post('/divergence', async (c) => {
    const body = z.object({ doc: z.string().min(1), choice: z.enum(['keep', 'reload']), cwd: z.string().optional() }).safeParse(await c.req.json().catch(() => null))
    if (!body.success) return c.json({ error: 'INVALID_ARGUMENT', message: 'expected {"doc": ..., "choice": "keep" | "reload"}' }, 400)
    const docId = await resolveDocument(services.engine, body.data.doc, body.data.cwd)
    await services.files.resolveDivergence(docId, body.data.choice, USER)
    return c.json({ docId, choice: body.data.choice })
  })
  // `quire log` and its filters, answered by the audit index.
  app.get('/log', async (c) => {
    const number = (name: string) => {
      const value = c.req.query(name)
      return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined
    }
    const types = c.req.queries('type')
    const answer = await auditLog(services.readModels, services.engine.store, {
      actor: c.req.query('actor'),
      ...(types && types.length > 0 ? { types } : {}),
      doc: c.req.query('doc'),
      cwd: c.req.query('cwd') || undefined,
      stream: c.req.query('stream'),
      since: number('since'),
      until: number('until'),
      after: number('after'),
      limit: Math.min(number('limit') ?? MAX_LOG_EVENTS, MAX_LOG_EVENTS),
      full: c.req.query('full') === '1',
    })
    return c.json(answer)
  })
  app.get('/blame', async (c) => c.json(await blameAnswer(services.readModels, services.engine.store, c.req.query('doc') ?? '', c.req.query('cwd') || undefined, c.req.query('at'))))
  app.post('/rebuild', async (c) => {
    const body = z.object({ names: z.array(z.string().min(1)).optional() }).strict().safeParse(await c.req.json().catch(() => null))
    if (!body.success) return c.json({ error: 'INVALID_ARGUMENT', message: 'expected {"names"?: ["audit", ...]}' }, 400)
    return c.json({ models: await services.readModels.rebuild(body.data.names) })
  })
  app.get('/replay', async (c) => {
    const content = await replayDocument(services.engine, c.req.query('doc') ?? '', c.req.query('at'), c.req.query('cwd') || undefined)
    return c.json({ content })
  })
  app.route('/comments', adminCommentRoutes(services)) // the person's side of review threads
  app.route('/coherence', adminCoherenceRoutes(services)) // `quire coherence`: status, edges, grants, grant, revoke
  app.route('/browser', adminBrowserRoutes(services)) // `quire browser`: assistants' named profiles, shared by the person
  app.get('/verify', async (c) => {
    const given = c.req.query('against')
    const against = given === undefined ? undefined : parseChainPoint(given)
    if (given !== undefined && !against) return c.json({ error: 'INVALID_ARGUMENT', message: 'against: expected POSITION:HASH as verify --checkpoint prints it' }, 400)
    return c.json({ ...(await verify(services.engine, against ? { against } : {})), models: await services.readModels.verify() })
  })
  app.get('/status', (c) =>
    c.json({
      home: services.engine.home,
      head: services.engine.store.headPosition,
      pid: process.pid,
      version: services.version,
      quarantined: services.engine.store.quarantinedRecords().length,
    }),
  )
  app.post('/console-link', (c) => {
    if (!options.newConsoleLink) return c.json({ error: 'NOT_FOUND', message: 'this process serves no console' }, 404)
    return c.json({ link: options.newConsoleLink() })
  })
  return app
}
