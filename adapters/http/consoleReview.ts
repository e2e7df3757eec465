import { basename } from 'node:path'
import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { changeIdOf } from '../../core/documents/aiChanges.js'
import { USER } from '../../core/events/actor.js'
import { isQuireError, QuireError } from '../../core/errors.js'
import { MAIN_WINDOW } from '../../core/workspace/events.js'
import type { ChangeView } from '../../core/review/views.js'
import { hunksSummary } from '../../projections/history/wordSummary.js'
import type { Services } from '../host/services.js'
import type { ConsoleError } from './consoleApi.js'
import type { DocumentChanges, ReviewActed, ReviewChange, ReviewList, ReviewListItem } from './consoleReviewApi.js'

const NO_STORE = { 'cache-control': 'no-store' }
const hunks = z.array(z.number().int().nonnegative()).min(1).optional()
const oneChange = z.object({ change: z.string().min(1), hunks }).strict()

/**
 * The console's review of AI changes (contract in consoleReviewApi.ts): a document's changes for the editor's
 * suggestions and the History panel, keep / undo / redo of a change or some of its hunks, "Keep all", "Undo all by
 * <assistant>", and the Review list across documents. Each action goes through the review commands as the person,
 * so every peer sees its effect at once (an undo or redo is a content change of the document). Mounted under
 * `/console/api` after the sign-in check.
 */
export function consoleReviewRoutes(services: Services): Hono {
  const app = new Hono()
  app.onError((error, c) => {
    if (isQuireError(error)) return fail(c, error.code, error.message, error.code === 'NOT_FOUND' ? 404 : 400)
    throw error
  })

  app.get('/docs/:docId/changes', async (c) => c.json<DocumentChanges>(await changesOf(services, c.req.param('docId'), c.req.query('all') === '1'), 200, NO_STORE))

  // Before the route of one change, whose pattern would take `keep-all` for `keep`.
  app.post('/docs/:docId/changes/keep-all', async (c) => {
    const body = z.object({ upToRevision: z.string().min(1) }).strict().safeParse(await c.req.json().catch(() => null))
    if (!body.success) return fail(c, 'INVALID_ARGUMENT', 'expected {"upToRevision": "rev-…"} (the revision the person has seen)', 400)
    const docId = await known(services, c.req.param('docId'))
    const before = await changesOf(services, docId, false)
    await services.review.markReviewed(docId, body.data.upToRevision, USER)
    const pending = await changesOf(services, docId, false)
    const still = new Set(pending.changes.map((change) => change.id))
    const acted = before.changes
      .filter((change) => !still.has(change.id))
      .map((change) => ({ change: change.id, done: change.hunks.filter((hunk) => hunk.state === 'pending').map((hunk) => hunk.index), skipped: [] }))
    return c.json<ReviewActed>({ docId, revision: pending.revision, acted, pending })
  })

  app.post('/docs/:docId/changes/undo-by', async (c) => {
    const body = z
      .object({ agent: z.string().min(1), connection: z.string().min(1).optional(), since: z.union([z.string().min(1), z.number().int().nonnegative()]).optional() })
      .strict()
      .safeParse(await c.req.json().catch(() => null))
    if (!body.success) return fail(c, 'INVALID_ARGUMENT', 'expected {"agent": NAME, "connection"?: ID, "since"?: ms | "rev-…"}', 400)
    const docId = await known(services, c.req.param('docId'))
    const { agent, connection, since } = body.data
    const outcome = await services.review.undoBy(docId, { principal: agent, ...(connection === undefined ? {} : { connection }), ...(since === undefined ? {} : { since }) }, USER)
    const acted = outcome.changes.map((change) => ({ change: change.change, done: change.undone, skipped: change.skipped }))
    return c.json<ReviewActed>({ docId, revision: outcome.revision, acted, pending: await changesOf(services, docId, false) })
  })

  app.post('/docs/:docId/changes/:action{keep|undo|redo}', async (c) => {
    const body = oneChange.safeParse(await c.req.json().catch(() => null))
    if (!body.success) return fail(c, 'INVALID_ARGUMENT', 'expected {"change": "ch-…", "hunks"?: [N, …]}', 400)
    const docId = await known(services, c.req.param('docId'))
    const { review } = services
    const act = { keep: review.keep, undo: review.undo, redo: review.redo }[c.req.param('action') as 'keep' | 'undo' | 'redo'].bind(review)
    const outcome = await act(docId, body.data.change, body.data.hunks, USER)
    return c.json<ReviewActed>({ docId, revision: outcome.revision, acted: [{ change: outcome.change, done: outcome.done, skipped: outcome.skipped }], pending: await changesOf(services, docId, false) })
  })

  app.get('/review', async (c) => c.json<ReviewList>({ changes: await reviewList(services) }, 200, NO_STORE))
  return app
}

/** The document's changes (pending only unless `all`), each with its summary, and the revision they were read at. */
async function changesOf(services: Services, docIdParam: string, all: boolean): Promise<DocumentChanges> {
  const docId = await known(services, docIdParam)
  const changes = (await services.review.list(docId)).filter((change) => all || change.state === 'pending').map(withSummary)
  const state = await services.engine.documents.get(docId)
  return { docId, revision: state?.revision ?? 'rev-0', changes }
}

const withSummary = (change: ChangeView): ReviewChange => ({
  ...change,
  summary: hunksSummary(change.hunks),
  hunks: change.hunks.map((hunk) => ({ ...hunk, summary: hunksSummary([hunk]) })),
})

/**
 * Every assistant's pending change on the documents open in a tab, newest first. Only those: a closed document keeps
 * its pending changes (reopening its file continues it, and shows them), and reading every document ever opened
 * would load each of them into memory.
 */
async function reviewList(services: Services): Promise<ReviewListItem[]> {
  const workspace = services.engine.views.workspace.state
  const docIds = new Set([...workspace.tabs.values()].map((tab) => tab.docId))
  const items: ReviewListItem[] = []
  for (const docId of docIds) {
    const state = await services.engine.documents.get(docId)
    if (!state) continue
    const pending = (await services.review.list(docId)).filter((change) => change.by === 'assistant' && change.state === 'pending')
    if (pending.length === 0) continue
    const tabs = workspace.tabsOfDocument(docId).sort((a, b) => Number(b.windowLabel === MAIN_WINDOW) - Number(a.windowLabel === MAIN_WINDOW))
    const path = state.meta?.path ?? null
    const title = path === null ? (state.meta?.title ?? docId) : basename(path)
    for (const change of pending) items.push({ ...withSummary(change), docId, title, path, tabId: tabs[0]!.tabId })
  }
  // A change's id is its journal entry's log position: the log's order is the order they were made in.
  return items.sort((a, b) => (changeIdOf(b.id) ?? 0) - (changeIdOf(a.id) ?? 0))
}

/** The document's id, or NOT_FOUND: the console names documents by id only (never by path). */
async function known(services: Services, docId: string): Promise<string> {
  if (!(await services.engine.documents.get(docId))) throw new QuireError('NOT_FOUND', `no document ${docId}`)
  return docId
}

function fail(c: Context, error: string, message: string, status: 400 | 404) {
  return c.json<ConsoleError>({ error, message }, status)
}
