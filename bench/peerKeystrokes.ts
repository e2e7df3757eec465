import { mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import * as Y from 'yjs'
import { readTrace } from '../adapters/trace/traceFile.js'
import { openEmbeddedEngine } from '../adapters/leveldb/embeddedEngine.js'
import { USER, type Actor } from '../core/events/actor.js'
import { threadCpuMs } from './fanoutServers.js'
import { tracePath } from './trace.js'
import { printTable, tempRoot } from './util.js'

/**
 * `node dist/bench/peerKeystrokes.js [KEYSTROKES] [ROUNDS]`: what a peer's keystroke costs in the core alone, with no
 * sockets: the automerge-paper trace's first KEYSTROKES (4,000) transactions, made on a typist's Y.Doc beforehand,
 * each handed to `applyPeerUpdates` and awaited to the disk (one synced write per keystroke, as the durable fan-out
 * does at a typist's pace), beside a bare `Y.applyUpdate` and a bare `Y.decodeUpdate` of the same updates. CPU per
 * keystroke of this process's main thread (the JavaScript) and of its other threads (LevelDB's writes and fsyncs),
 * from /proc, in ROUNDS (3) rounds. The fan-out benchmark's server CPU, less its sockets, for a before/after that
 * a change of tens of microseconds can show through this machine's noise.
 */

const PEER: Actor = Object.freeze({ kind: 'peer', peer: 'typist' })

async function keystrokes(count: number): Promise<Uint8Array[]> {
  const trace = await readTrace(tracePath({ smoke: false }))
  const typist = new Y.Doc()
  const text = typist.getText('source')
  const updates: Uint8Array[] = []
  typist.on('update', (update: Uint8Array) => updates.push(update))
  for (const txn of trace.txns.slice(0, count)) {
    typist.transact(() => {
      for (const [position, deleteCount, insert] of txn.patches) {
        if (deleteCount > 0) text.delete(position, deleteCount)
        if (insert.length > 0) text.insert(position, insert)
      }
    })
  }
  return updates
}

interface Cost {
  readonly mainUs: number
  readonly otherUs: number
}

async function measured(count: number, run: () => Promise<void> | void): Promise<Cost> {
  const before = threadCpuMs(process.pid)
  await run()
  const after = threadCpuMs(process.pid)
  return { mainUs: ((after.mainMs - before.mainMs) * 1000) / count, otherUs: ((after.otherMs - before.otherMs) * 1000) / count }
}

async function throughCore(updates: readonly Uint8Array[]): Promise<Cost> {
  const dir = mkdtempSync(join(tempRoot(), 'quire-keystrokes-'))
  const engine = await openEmbeddedEngine(dir)
  try {
    // Empty, so the typist's updates (made on an empty Y.Text) apply as they would to a new document.
    const { docId } = await engine.commands.documents.create({ kind: 'markdown', content: '', path: null, title: 'k', origin: 'untitled', actor: USER })
    return await measured(updates.length, async () => {
      for (const update of updates) {
        const outcome = await engine.commands.documents.applyPeerUpdates(docId, [update], PEER)
        await outcome.durable
      }
    })
  } finally {
    await engine.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The bare Yjs calls take a few ms per pass: repeated, so /proc's 10 ms ticks do not swamp them. */
const BARE_PASSES = 20

const bare = (updates: readonly Uint8Array[]): Promise<Cost> =>
  measured(updates.length * BARE_PASSES, () => {
    for (let pass = 0; pass < BARE_PASSES; pass++) {
      const doc = new Y.Doc()
      for (const update of updates) Y.applyUpdate(doc, update)
      doc.destroy()
    }
  })

const decodeOnly = (updates: readonly Uint8Array[]): Promise<Cost> =>
  measured(updates.length * BARE_PASSES, () => {
    for (let pass = 0; pass < BARE_PASSES; pass++) for (const update of updates) Y.decodeUpdate(update)
  })

const count = Number(process.argv[2] ?? 4_000)
const rounds = Number(process.argv[3] ?? 3)
const updates = await keystrokes(count)
const rows: string[][] = []
const us = (value: number) => `${value.toFixed(0)} µs`
for (let round = 1; round <= rounds; round++) {
  const core = await throughCore(updates)
  const apply = await bare(updates)
  const decode = await decodeOnly(updates)
  rows.push([String(round), us(core.mainUs), us(core.otherUs), us(apply.mainUs), us(decode.mainUs)])
}
printTable(
  `peer keystrokes in the core: ${updates.length} automerge-paper keystrokes, CPU per keystroke`,
  ['round', 'applyPeerUpdates, main thread', 'its other threads', 'bare Y.applyUpdate', 'bare Y.decodeUpdate'],
  rows,
)
