import { Hono } from 'hono'
import * as Y from 'yjs'
import { DocumentChanged, documentStream } from '../../core/documents/events.js'
import { revisionToken } from '../../core/documents/revision.js'
import { dataOf } from '../../core/events/schema.js'
import { ReviewMarked } from '../../core/review/events.js'
import type { Services } from '../host/services.js'
import type { ConsoleError } from './consoleApi.js'
import type { AiChange, AiChanges, IdRun } from './consoleAttributionApi.js'

/** How many of the latest unreviewed AI changes are highlighted. */
const MAX_CHANGES = 50

/**
 * The assistants' recent changes to a document (contract in consoleAttributionApi.ts), read from its stream: each
 * `document.changed` an `mcp` actor recorded, with the items its update inserted, plus those of the bridge's
 * follow-up that carries the same journal entry (the mirror side of the write, recorded by `system`). Changes up to
 * the person's last review mark are left out: reviewed is no longer "recent".
 */
export function consoleAttributionRoutes(services: Services): Hono {
  const app = new Hono()
  app.get('/docs/:docId/ai-changes', async (c) => {
    const docId = c.req.param('docId')
    if (!(await services.engine.documents.get(docId))) return c.json<ConsoleError>({ error: 'NOT_FOUND', message: `no document ${docId}` }, 404)
    return c.json<AiChanges>({ docId, changes: await aiChanges(services, docId) }, 200, { 'cache-control': 'no-store' })
  })
  return app
}

interface Scanned {
  /** The stream version read up to. */
  version: number
  reviewedUpTo: number
  /** The latest AI changes seen (trimmed), each with the position it landed at. */
  changes: Array<AiChange & { position: number; inserted: IdRun[] }>
  /** Journal entry → its change, for the bridge's follow-up (which comes right after the write it follows). */
  byJournal: Map<number, AiChange & { inserted: IdRun[] }>
}

/** Documents scanned lately: the next request reads only what was appended since (a stream only grows). */
const scanned = new Map<string, Scanned>()
const MAX_SCANNED = 64

/** One scan per document at a time: two at once would both read the same new events into its record. */
const scanning = new Map<string, Promise<AiChange[]>>()

async function aiChanges(services: Services, docId: string): Promise<AiChange[]> {
  const before = scanning.get(docId) ?? Promise.resolve([])
  const mine = before.catch(() => []).then(() => scan(services, docId))
  scanning.set(docId, mine)
  try {
    return await mine
  } finally {
    if (scanning.get(docId) === mine) scanning.delete(docId)
  }
}

async function scan(services: Services, docId: string): Promise<AiChange[]> {
  const state: Scanned = scanned.get(docId) ?? { version: 0, reviewedUpTo: -1, changes: [], byJournal: new Map() }
  scanned.delete(docId)
  scanned.set(docId, state) // most recently used last
  if (scanned.size > MAX_SCANNED) scanned.delete(scanned.keys().next().value!)
  for await (const event of services.engine.store.readStream(documentStream(docId), { fromVersion: state.version + 1 })) {
    state.version = event.streamVersion
    if (event.type === ReviewMarked.type) {
      state.reviewedUpTo = Math.max(state.reviewedUpTo, dataOf(event, ReviewMarked).upToPosition)
      continue
    }
    if (event.type !== DocumentChanged.type) continue
    const data = dataOf(event, DocumentChanged)
    const { actor } = event
    if (actor.kind === 'mcp') {
      const change = { principal: actor.principal, connection: actor.connection, at: event.at, revision: revisionToken(event.position), position: event.position, inserted: insertedRuns(data.update) }
      state.changes.push(change)
      if (data.journal !== undefined) state.byJournal.set(data.journal, change)
    } else if (actor.kind === 'system' && data.journal !== undefined) {
      // The bridge's follow-up of an assistant's write: the same change, seen in the other type.
      state.byJournal.get(data.journal)?.inserted.push(...insertedRuns(data.update))
    }
  }
  const reviewedUpTo = state.reviewedUpTo
  state.changes = state.changes.filter((change) => change.position > reviewedUpTo).slice(-MAX_CHANGES)
  const kept = new Set(state.changes)
  for (const [journal, change] of state.byJournal) if (!kept.has(change as (typeof state.changes)[number])) state.byJournal.delete(journal)
  return state.changes.filter((change) => change.inserted.length > 0).map(({ position: _position, ...change }) => ({ ...change, inserted: [...change.inserted] }))
}

/** The runs of item ids an update inserts (its structs, without garbage-collected or skipped ranges). */
function insertedRuns(update: Uint8Array): IdRun[] {
  try {
    return Y.decodeUpdate(update)
      .structs.filter((struct): struct is Y.Item => struct instanceof Y.Item && !struct.deleted)
      .map((item) => ({ client: item.id.client, clock: item.id.clock, length: item.length }))
  } catch {
    return [] // a malformed update changed nothing (the fold ignores it too)
  }
}
