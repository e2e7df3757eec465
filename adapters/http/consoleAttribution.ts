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

async function aiChanges(services: Services, docId: string): Promise<AiChange[]> {
  const changes: (AiChange & { position: number; inserted: IdRun[] })[] = []
  const byJournal = new Map<number, AiChange & { inserted: IdRun[] }>()
  let reviewedUpTo = -1
  for await (const event of services.engine.store.readStream(documentStream(docId))) {
    if (event.type === ReviewMarked.type) {
      reviewedUpTo = Math.max(reviewedUpTo, dataOf(event, ReviewMarked).upToPosition)
      continue
    }
    if (event.type !== DocumentChanged.type) continue
    const data = dataOf(event, DocumentChanged)
    const { actor } = event
    if (actor.kind === 'mcp') {
      const change = { principal: actor.principal, connection: actor.connection, at: event.at, revision: revisionToken(event.position), position: event.position, inserted: insertedRuns(data.update) }
      changes.push(change)
      if (data.journal !== undefined) byJournal.set(data.journal, change)
    } else if (actor.kind === 'system' && data.journal !== undefined) {
      // The bridge's follow-up of an assistant's write: the same change, seen in the other type.
      byJournal.get(data.journal)?.inserted.push(...insertedRuns(data.update))
    }
  }
  return changes
    .filter((change) => change.position > reviewedUpTo && change.inserted.length > 0)
    .slice(-MAX_CHANGES)
    .map(({ position: _position, ...change }) => change)
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
