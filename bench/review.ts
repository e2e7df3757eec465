import { join } from 'node:path'
import { ClassicLevel } from 'classic-level'
import * as Y from 'yjs'
import type { Engine } from '../core/engine.js'
import { openEmbeddedEngine } from '../adapters/leveldb/embeddedEngine.js'
import { DocumentChanged, documentStream } from '../core/documents/events.js'
import { dataOf } from '../core/events/schema.js'
import { USER, type Actor } from '../core/events/actor.js'
import { fmtInt, fmtMs, fmtRatio, now, percentile, printTable, settle, sized, withTempDir, type Benchmark, type RunOptions, type TargetResult } from './util.js'

/**
 * Reviewing AI changes (DESIGN §11), against references measured in the same run:
 * - undo (and redo) of one change in a large document with many later edits, end to end (the decision, the Yjs
 *   change by id, the append, durable), against applying the very same update to a plain Y.Doc of the same state,
 *   and against that plus one synced put (the durability any undo needs);
 * - `review list` of a document with many AI changes, against reading the document's stream once.
 */
const CLAUDE: Actor = { kind: 'mcp', principal: 'claude', connection: 'bench' }

async function run(options: RunOptions): Promise<TargetResult[]> {
  const size = sized(options, 'QUIRE_BENCH_REVIEW_BYTES', 1024 * 1024, 64 * 1024)
  const laterEdits = sized(options, 'QUIRE_BENCH_REVIEW_EDITS', 1_000, 50)
  const manyChanges = sized(options, 'QUIRE_BENCH_REVIEW_CHANGES', 10_000, 200)
  const rounds = sized(options, 'QUIRE_BENCH_REVIEW_ROUNDS', 20, 4)
  return withTempDir('review', async (root) => {
    const engine = await openEmbeddedEngine(join(root, 'home'))
    const floor = new ClassicLevel<string, Uint8Array>(join(root, 'floor'), { valueEncoding: 'view' })
    await floor.open()
    try {
      const undo = await undoRounds(engine, floor, size, laterEdits, rounds)
      await settle()
      const list = await listRounds(engine, manyChanges, rounds)
      const p50 = (values: number[]) => percentile(values, 50)
      printTable(
        `review: undo/redo of one change in a ${fmtInt(size)}-character document after ${fmtInt(laterEdits)} later edits (${rounds} rounds)`,
        ['run', 'p50', 'p99'],
        [
          ['undo or redo (core call, durable)', fmtMs(p50(undo.undo)), fmtMs(percentile(undo.undo, 99))],
          ['the same update applied to a plain Y.Doc', fmtMs(p50(undo.plain)), fmtMs(percentile(undo.plain, 99))],
          ['one synced 100-byte put', fmtMs(p50(undo.put)), fmtMs(percentile(undo.put, 99))],
        ],
      )
      printTable(
        `review: listing a document with ${fmtInt(manyChanges)} AI changes (${rounds} rounds)`,
        ['run', 'p50', 'p99'],
        [
          ['review list (core call)', fmtMs(p50(list.list)), fmtMs(percentile(list.list, 99))],
          ["reading the document's stream once", fmtMs(p50(list.read)), fmtMs(percentile(list.read, 99))],
        ],
      )
      const overFloor = p50(undo.undo) / (p50(undo.plain) + p50(undo.put))
      const listRatio = p50(list.list) / p50(list.read)
      return [
        { benchmark: 'review', name: 'for context: undo p50 / the same update on a plain Y.Doc p50', ratio: p50(undo.undo) / p50(undo.plain), target: 'none', met: null },
        { benchmark: 'review', name: 'undo p50 / (plain Y.Doc update + one synced put) p50', ratio: overFloor, target: '≤ 2x', met: overFloor <= 2 },
        { benchmark: 'review', name: `review list p50 / reading the stream once p50 (${fmtInt(manyChanges)} changes)`, ratio: listRatio, target: '≤ 1x', met: listRatio <= 1 },
      ]
    } finally {
      await floor.close()
      await engine.close()
    }
  })
}

/** A document of `size` characters, one AI change in its middle, `laterEdits` edits after it; then undo and redo it in turns. */
async function undoRounds(engine: Engine, floor: ClassicLevel<string, Uint8Array>, size: number, laterEdits: number, rounds: number): Promise<{ undo: number[]; plain: number[]; put: number[] }> {
  const paragraph = 'A paragraph of the long document, long enough to be a paragraph people write.\n\n'
  const text = paragraph.repeat(Math.ceil(size / paragraph.length)).slice(0, size)
  const { docId } = await engine.commands.documents.create({ kind: 'markdown', content: text, path: null, title: 'long', origin: 'untitled', actor: USER })
  const middle = Math.floor(text.length / 2)
  const changed = text.slice(0, middle) + 'THE ASSISTANT REWROTE THIS. ' + text.slice(middle + 40)
  await engine.commands.documents.write({ docId, content: changed, actor: CLAUDE })
  const [change] = await engine.commands.review.list(docId)
  // Later edits: a person typing near the start, as peer updates.
  const typist = new Y.Doc()
  Y.applyUpdate(typist, Y.encodeStateAsUpdate((await engine.documents.get(docId))!.ydoc))
  for (let n = 0; n < laterEdits; n += 1) {
    const vector = Y.encodeStateVector(typist)
    typist.getText('source').insert((n * 37) % 2_000, 'x')
    await (await engine.commands.documents.applyPeerUpdates(docId, [Y.encodeStateAsUpdate(typist, vector)], { kind: 'peer', peer: 'bench' })).durable
  }
  const undo: number[] = []
  const plain: number[] = []
  const put: number[] = []
  for (let round = 0; round < rounds; round += 1) {
    // The reference starts from the document as it is before the undo.
    const reference = new Y.Doc()
    Y.applyUpdate(reference, Y.encodeStateAsUpdate((await engine.documents.get(docId))!.ydoc))
    const started = now()
    if (round % 2 === 0) await engine.commands.review.undo(docId, change!.id, undefined, USER)
    else await engine.commands.review.redo(docId, change!.id, undefined, USER)
    undo.push(now() - started)
    const update = await lastUpdate(engine, docId)
    const applying = now()
    Y.applyUpdate(reference, update)
    plain.push(now() - applying)
    reference.destroy()
    const putting = now()
    await floor.put(`k${round}`, new Uint8Array(100), { sync: true })
    put.push(now() - putting)
  }
  return { undo, plain, put }
}

async function lastUpdate(engine: Engine, docId: string): Promise<Uint8Array> {
  let update: Uint8Array | undefined
  for await (const event of engine.store.readStream(documentStream(docId), { fromVersion: Math.max(1, (await engine.documents.get(docId))!.version - 3) })) {
    if (event.type === DocumentChanged.type) update = dataOf(event, DocumentChanged).update
  }
  return update!
}

/** A document with `count` AI changes; then `review list` and one read of its stream, in turns. */
async function listRounds(engine: Engine, count: number, rounds: number): Promise<{ list: number[]; read: number[] }> {
  const { docId } = await engine.commands.documents.create({ kind: 'markdown', content: 'start\n', path: null, title: 'many', origin: 'untitled', actor: USER })
  let text = 'start\n'
  for (let n = 0; n < count; n += 1) {
    text += `line ${n}\n`
    await engine.commands.documents.write({ docId, content: text, actor: CLAUDE })
  }
  const list: number[] = []
  const read: number[] = []
  for (let round = 0; round < rounds; round += 1) {
    const started = now()
    const listed = await engine.commands.review.list(docId)
    list.push(now() - started)
    if (listed.length !== count) throw new Error(`review list found ${listed.length} changes, not ${count}`)
    const reading = now()
    let events = 0
    for await (const _event of engine.store.readStream(documentStream(docId))) events += 1
    read.push(now() - reading)
    if (events < count) throw new Error(`the stream holds ${events} events`)
  }
  return { list, read }
}

export const reviewBenchmark: Benchmark = {
  name: 'review',
  description: 'undo of one AI change in 1 MiB after 1,000 edits vs plain Yjs applying its update; review list of 10,000 changes vs reading the stream',
  run,
}
