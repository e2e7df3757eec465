import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { documentTimeline, type CommentStateResolver, type EditSessionEntry } from '../../projections/history/history.js'
import { positionOfRevision } from '../../core/documents/revision.js'
import { USER } from '../../core/events/actor.js'
import { isQuireError, QuireError } from '../../core/errors.js'
import { restoreRevision } from '../../core/review/restore.js'
import { diffRevisions } from '../../core/review/revisionDiff.js'
import type { Services } from '../host/services.js'
import type { ConsoleError } from './consoleApi.js'
import type { HistoryDiff, HistoryItem, HistoryRestored, HistoryRestorePreview, HistoryView } from './consoleHistoryApi.js'

type Status = 400 | 404 | 409

const NO_STORE = { 'cache-control': 'no-store' }

/** Diffs of texts larger than this (either side, UTF-16 code units) are refused: the console renders every line. */
const MAX_DIFF_CHARS = 2_000_000

export interface ConsoleHistoryOptions {
  /** The comments module's lookup, so addressed comments show their state (deleted ones as deleted, COM.ADDR.3). */
  readonly resolveComment?: CommentStateResolver
}

/**
 * The History sidebar's API (contract in consoleHistoryApi.ts): a document's history, a diff of two revisions, what a
 * restore would take out (asked before the person restores), the restore and "Mark all reviewed". Mounted under
 * `/console/api` after the token check.
 */
export function consoleHistoryRoutes(services: Services, options: ConsoleHistoryOptions = {}): Hono {
  const app = new Hono()
  app.onError((error, c) => {
    if (isQuireError(error)) return fail(c, error.code, error.message, statusOf(error.code))
    throw error
  })

  app.get('/docs/:docId/history', async (c) => c.json(await historyView(services, c.req.param('docId'), options), 200, NO_STORE))

  app.get('/docs/:docId/diff', async (c) => {
    const from = c.req.query('from')
    const to = c.req.query('to')
    if (!from || !to) return fail(c, 'INVALID_ARGUMENT', 'expected ?from=rev-…&to=rev-…', 400)
    const diff = await diffRevisions(services.engine, await known(services, c.req.param('docId')), from, to)
    if (tooLarge(diff)) return fail(c, 'TOO_LARGE', 'these revisions are too large to show as a diff here; use `quire replay` for each', 400)
    return c.json<HistoryDiff>(diff, 200, NO_STORE)
  })

  // What a restore of `revision` would take out: the diff from the text now, and the person's own typing since.
  app.get('/docs/:docId/restore-preview', async (c) => {
    const revision = c.req.query('revision')
    const restoredAt = revision === undefined ? undefined : positionOfRevision(revision)
    if (revision === undefined || restoredAt === undefined) return fail(c, 'INVALID_ARGUMENT', 'expected ?revision=rev-…', 400)
    const docId = await known(services, c.req.param('docId'))
    const current = (await services.engine.documents.get(docId))?.revision ?? 'rev-0'
    const diff = await diffRevisions(services.engine, docId, current, revision)
    if (tooLarge(diff)) return fail(c, 'TOO_LARGE', 'these revisions are too large to show as a diff here; use `quire replay` for each', 400)
    const yourEdits = (await documentTimeline(services.engine, docId)).filter(
      (entry): entry is EditSessionEntry => entry.kind === 'edits' && (positionOfRevision(entry.revision) ?? 0) > restoredAt,
    )
    return c.json<HistoryRestorePreview>({ revision, current, diff, yourEdits }, 200, NO_STORE)
  })

  app.post('/docs/:docId/restore', async (c) => {
    const body = z.object({ revision: z.string().min(1), expectedRevision: z.string().min(1).optional() }).safeParse(await c.req.json().catch(() => null))
    if (!body.success) return fail(c, 'INVALID_ARGUMENT', 'expected {"revision": "rev-…", "expectedRevision"?: "rev-…"}', 400)
    const docId = await known(services, c.req.param('docId'))
    const outcome = await restoreRevision(services.engine, docId, body.data.revision, body.data.expectedRevision)
    const restored: HistoryRestored = { ...outcome, history: await historyView(services, docId, options) }
    return c.json(restored)
  })

  app.post('/docs/:docId/review', async (c) => {
    const body = z.object({ upToRevision: z.string().min(1) }).safeParse(await c.req.json().catch(() => null))
    if (!body.success) return fail(c, 'INVALID_ARGUMENT', 'expected {"upToRevision": "rev-…"}', 400)
    const docId = await known(services, c.req.param('docId'))
    await services.review.markReviewed(docId, body.data.upToRevision, USER)
    return c.json(await historyView(services, docId, options))
  })
  return app
}

async function historyView(services: Services, docIdParam: string, options: ConsoleHistoryOptions): Promise<HistoryView> {
  const docId = await known(services, docIdParam)
  const state = await services.engine.documents.get(docId)
  const entries: HistoryItem[] = await documentTimeline(services.engine, docId, options.resolveComment ? { resolveComment: options.resolveComment } : {})
  return {
    docId,
    revision: state?.revision ?? 'rev-0',
    unreviewed: await services.review.unreviewed(docId),
    limit: services.review.limit,
    entries,
  }
}

const tooLarge = (diff: HistoryDiff): boolean => diff.lines.reduce((sum, line) => sum + line.text.length, 0) > MAX_DIFF_CHARS

/** The document's id, or NOT_FOUND: the console names documents by id only (never by path). */
async function known(services: Services, docId: string): Promise<string> {
  if (!(await services.engine.documents.get(docId))) throw new QuireError('NOT_FOUND', `no document ${docId}`)
  return docId
}

function statusOf(code: string): Status {
  if (code === 'NOT_FOUND') return 404
  if (code === 'STALE') return 409
  return 400
}

function fail(c: Context, error: string, message: string, status: Status) {
  return c.json<ConsoleError>({ error, message }, status)
}
