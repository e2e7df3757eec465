import { join } from 'node:path'
import { LeveldbPersistence } from 'y-leveldb'
import { openEmbeddedEngine } from '../adapters/leveldb/embeddedEngine.js'
import { ingestTrace, type IngestResult } from '../adapters/trace/ingestTrace.js'
import { readTrace, type Trace } from '../adapters/trace/traceFile.js'
import { traceUpdates } from '../adapters/trace/tracePeers.js'
import { applyTracePlain } from './plainYjs.js'
import {
  fmtInt, fmtMs, fmtRate, fmtRatio, median, now, printTable, settle, sized, withTempDir,
  type Benchmark, type RunOptions, type TargetResult,
} from './util.js'
import { tracePath } from './trace.js'

/**
 * Durable trace ingest (`ingestTrace`: one fsync'd event per edit) against (a) the same edits applied to a plain
 * in-memory Y.Doc and (b) y-leveldb storing the same updates one by one, as y-websocket's server does.
 */

/** y-leveldb is measured on a prefix when the whole trace would take longer than this. */
const YLEVELDB_BUDGET_MS = 60_000
const YLEVELDB_PREFIX = 50_000

/** One ingest into a fresh data dir; the engine is closed (untimed) afterwards. */
export async function ingestOnce(path: string, home: string): Promise<IngestResult> {
  const engine = await openEmbeddedEngine(home)
  try {
    return await ingestTrace(engine, path)
  } finally {
    await engine.close()
  }
}

interface YLeveldbRun {
  readonly stored: number
  readonly milliseconds: number
  readonly extrapolated: boolean
}

async function yLeveldb(updates: readonly Uint8Array[], dir: string): Promise<YLeveldbRun> {
  const persistence = new LeveldbPersistence(join(dir, 'y-leveldb'))
  try {
    // Opening the database is not part of the measurement: the first update waits for it.
    await persistence.storeUpdate('warm-up', updates[0]!)
    const started = now()
    let stored = 0
    for (const update of updates) {
      await persistence.storeUpdate('automerge-paper', update)
      stored++
      if (stored === YLEVELDB_PREFIX && stored < updates.length) {
        const projected = ((now() - started) / stored) * updates.length
        if (projected > YLEVELDB_BUDGET_MS) return { stored, milliseconds: now() - started, extrapolated: true }
      }
    }
    return { stored, milliseconds: now() - started, extrapolated: false }
  } finally {
    await persistence.destroy()
  }
}

async function run(options: RunOptions): Promise<TargetResult[]> {
  const runs = sized(options, 'QUIRE_BENCH_INGEST_RUNS', 5, 1)
  const path = tracePath(options)
  const parseStarted = now()
  const trace: Trace = await readTrace(path)
  const parseMs = now() - parseStarted
  if (trace.kind !== 'sequential') throw new Error(`${path} is a concurrent trace; the ingest benchmark needs a sequential one`)
  const edits = trace.txns.length + (trace.startContent.length > 0 ? 1 : 0)
  console.log(`trace: ${path}\n${fmtInt(edits)} edits; reading and parsing it took ${fmtMs(parseMs)} (not in the plain Y.Doc time)`)

  // Alternate the two so neither always runs on a warmer JIT or a calmer machine.
  const plainMs: number[] = []
  const ingests: IngestResult[] = []
  for (let round = 0; round < runs; round++) {
    const plain = applyTracePlain(trace)
    if (plain.doc.getText('source').toString() !== trace.endContent) throw new Error('plain Y.Doc replay does not end at endContent')
    plain.doc.destroy()
    plainMs.push(plain.milliseconds)
    await settle()
    const result = await withTempDir('ingest', (home) => ingestOnce(path, home))
    if (!result.matchesEndContent) throw new Error('ingested document does not match the trace end content')
    if (result.events !== edits) throw new Error(`ingest recorded ${result.events} events for ${edits} edits`)
    ingests.push(result)
    await settle()
  }

  const updates = [...traceUpdates(trace)]
  await settle()
  const ylevel = await withTempDir('y-leveldb', (dir) => yLeveldb(updates, dir))
  const ylevelRate = (ylevel.stored / ylevel.milliseconds) * 1000
  const ylevelFullMs = (updates.length / ylevelRate) * 1000

  const ingestMs = median(ingests.map((result) => result.milliseconds))
  const plainMedian = median(plainMs)
  const ingestRate = (edits / ingestMs) * 1000
  printTable(
    `ingest: ${fmtInt(edits)} edits (median of ${runs} runs where repeated)`,
    ['run', 'time', 'edits/s', 'runs'],
    [
      ['plain in-memory Y.Doc (edits only)', fmtMs(plainMedian), fmtRate((edits / plainMedian) * 1000), plainMs.map(fmtMs).join(', ')],
      ['ingestTrace (durable, one event per edit)', fmtMs(ingestMs), fmtRate(ingestRate), ingests.map((r) => fmtMs(r.milliseconds)).join(', ')],
      [
        `y-leveldb storeUpdate, sequential${ylevel.extrapolated ? ` (first ${fmtInt(ylevel.stored)}, extrapolated)` : ''}`,
        fmtMs(ylevelFullMs),
        fmtRate(ylevelRate),
        ylevel.extrapolated ? `${fmtMs(ylevel.milliseconds)} for ${fmtInt(ylevel.stored)}` : fmtMs(ylevel.milliseconds),
      ],
    ],
  )
  console.log(
    'notes: ingestTrace time includes its worker reading and parsing the trace (~parse time above) and the final snapshot;\n' +
      '       y-leveldb writes without fsync (level default), so unlike the ingest it is not durable.',
  )
  if (ylevel.extrapolated) {
    console.log(
      `       y-leveldb projected over ${fmtMs(YLEVELDB_BUDGET_MS)} for the whole trace, so only the first ` +
        `${fmtInt(ylevel.stored)} updates were stored and the full time is extrapolated from their rate.`,
    )
  }

  const best = Math.min(...ingests.map((result) => result.milliseconds)) / Math.min(...plainMs)
  console.log(`       best of ${runs} each (least disturbed by other work on the machine): ingest / plain = ${fmtRatio(best)}`)
  const plainRatio = ingestMs / plainMedian
  const ylevelRatio = ylevelFullMs / ingestMs
  const targets: TargetResult[] = [
    { benchmark: 'ingest', name: 'ingest time / plain Y.Doc time', ratio: plainRatio, target: '≤ 3x', met: plainRatio <= 3 },
    { benchmark: 'ingest', name: 'y-leveldb time / ingest time', ratio: ylevelRatio, target: '> 1x', met: ylevelRatio > 1 },
  ]
  return targets
}

export const ingestBenchmark: Benchmark = {
  name: 'ingest',
  description: 'durable trace ingest vs a plain Y.Doc and vs y-leveldb storeUpdate',
  run,
}
