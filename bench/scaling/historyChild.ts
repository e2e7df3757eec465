import { realpath } from 'node:fs/promises'
import * as Y from 'yjs'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { documentStream } from '../../core/documents/events.js'
import type { Actor } from '../../core/events/actor.js'
import { reportToParent } from '../util.js'

/**
 * Lengthens the history of the document of a file already open in a tab of `home` (bench/scaling/history.ts opened
 * it over MCP), in a fresh process owning the data directory while no server runs:
 *
 *   node dist/bench/scaling/historyChild.js <home> <file> <events>
 *
 * appends peer keystrokes to the document until its stream holds `events` events: pairs of updates, one typing a
 * character and the next deleting it, so the text stays what the file holds (the document stays clean) while the
 * history grows. They go in batches, several batches waiting for disk at once, as a typing peer's would.
 */

export interface HistorySample {
  readonly events: number
  readonly added: number
  readonly milliseconds: number
}

const BATCH = 256

const [home, file, target] = process.argv.slice(2)
if (!home || !file || !target) throw new Error('usage: historyChild.js <home> <file> <events>')
const started = performance.now()
const engine = await openEmbeddedEngine(home)
let events = 0
let added = 0
try {
  const path = await realpath(file)
  const docId = engine.views.workspace.state.documentsByPath.get(path)
  if (docId === undefined) throw new Error(`no document for ${path} in ${home}`)
  const stream = documentStream(docId)
  events = (await engine.store.streamHead(stream)).version
  const state = await engine.documents.get(docId)
  if (!state) throw new Error(`no document ${docId}`)
  const peer = new Y.Doc()
  Y.applyUpdate(peer, Y.encodeStateAsUpdate(state.ydoc))
  const text = peer.getText('source')
  const pending: Uint8Array[] = []
  peer.on('update', (update: Uint8Array) => pending.push(update))
  const actor: Actor = { kind: 'peer', peer: 'bench:history' }
  const inFlight: Promise<void>[] = []
  let insertedAt = 0
  const wanted = Number(target)
  while (events + added < wanted) {
    // Even, so every batch ends with the text as the file holds it.
    const missing = wanted - events - added
    const count = Math.min(BATCH, missing + (missing % 2))
    for (let index = 0; index < count; index++) {
      // Typing a character at a place that moves through the text, then deleting it: every update is a new item.
      if (index % 2 === 0) {
        insertedAt = ((events + added + index) * 7919) % (text.length + 1)
        text.insert(insertedAt, 'x')
      } else {
        text.delete(insertedAt, 1)
      }
    }
    const outcome = await engine.commands.documents.applyPeerUpdates(docId, pending.splice(0), actor)
    if (outcome.recorded === 0) throw new Error('the document recorded none of the peer updates')
    added += outcome.recorded
    inFlight.push(outcome.durable)
    if (inFlight.length > 16) await inFlight.shift()
  }
  await Promise.all(inFlight)
  events = (await engine.store.streamHead(stream)).version
} finally {
  await engine.close()
}
reportToParent({ events, added, milliseconds: performance.now() - started } satisfies HistorySample)
