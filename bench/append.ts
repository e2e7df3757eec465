import type { EventStore } from '../adapters/leveldb/eventStore.js'
import { join } from 'node:path'
import { ClassicLevel } from 'classic-level'
import * as Y from 'yjs'
import type { Engine } from '../core/engine.js'
import { openEmbeddedEngine } from '../adapters/leveldb/embeddedEngine.js'
import type { EventInput } from '../core/log/eventLog.js'
import type { BatchOperation } from '../core/log/groupCommit.js'
import {
  fmtInt, fmtMs, fmtRate, fmtRatio, median, now, percentile, printTable, settle, sized, withTempDir,
  type Benchmark, type RunOptions, type TargetResult,
} from './util.js'

/**
 * Durable append throughput and latency: 1, 8 and 64 concurrent appenders (each on its own stream, one event per
 * append, awaiting durability) against two raw classic-level references in the same run:
 *
 * - one-at-a-time synced puts of the same payload size, before and after the appenders, pooled (so drift in the
 *   disk's speed shows up in both sides): the floor for one appender's latency;
 * - the store's own batches replayed raw, right after each appender phase: every synced batch the store wrote in
 *   that phase (recorded through `interceptWrite`), with the same keys, values and sizes, written back to back into
 *   a raw database that got the same writes before (the warm-ups' and earlier phases'). That is the ceiling of group commit for the
 *   batches the store chose: the disk doing nothing but those writes. A second replay regroups the same operations
 *   into batches of exactly one append per appender, the best shape a closed loop of N appenders can offer, so a
 *   store that gets its ratio by cutting smaller batches shows it.
 *
 * The appender phases run as short rounds, each replayed right after it ran, and the ratios judged are the medians
 * of the rounds' ratios: on a machine whose disk other work shares, a figure pooled over the whole run compares
 * moments seconds apart.
 */

const CONCURRENCIES = [1, 8, 64] as const

interface Phase {
  readonly label: string
  readonly count: number
  readonly milliseconds: number
  readonly latencies: number[]
  /** CPU time of the whole process (all threads), microseconds. */
  readonly cpuMicros: number
}

const cpuSince = (start: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(start)
  return used.user + used.system
}

/**
 * A longer pause than `settle` between the measured phases: each phase writes tens of MB, and LevelDB's flushes and
 * compactions of it run on background threads for a while after; the next phase must not pay for them.
 */
const quiesce = async (): Promise<void> => {
  await new Promise((resolve) => setTimeout(resolve, 300))
  await settle()
}

const rate = (phase: Phase): number => (phase.count / phase.milliseconds) * 1000

/** A real Yjs update (one insertion by one client, like a burst of typing) of about `targetBytes` bytes. */
export function keystrokeUpdate(targetBytes = 40): Uint8Array {
  for (let length = 1; ; length++) {
    const doc = new Y.Doc()
    doc.clientID = 2_345_678_901
    let update: Uint8Array = new Uint8Array(0)
    doc.on('update', (produced: Uint8Array) => {
      update = produced
    })
    doc.getText('source').insert(0, 'x'.repeat(length))
    doc.destroy()
    if (update.length >= targetBytes) return update
  }
}

async function rawSyncedPuts(db: ClassicLevel<string, Uint8Array>, value: Uint8Array, ms: number, label: string, from: number): Promise<Phase> {
  const latencies: number[] = []
  let count = 0
  const cpu = process.cpuUsage()
  const started = now()
  const deadline = started + ms
  for (let t = started; t < deadline; ) {
    const key = `k${(from + count).toString().padStart(10, '0')}`
    await db.put(key, value, { sync: true })
    const end = now()
    latencies.push(end - t)
    t = end
    count++
  }
  return { label, count, milliseconds: now() - started, latencies, cpuMicros: cpuSince(cpu) }
}

/** Every synced batch the store writes while `recording` is set, as the operations it handed to LevelDB. */
class BatchRecorder {
  recording = false
  batches: (readonly BatchOperation[])[] = []
  readonly interceptWrite = (write: () => Promise<void>, operations: readonly BatchOperation[]): Promise<void> => {
    // A copy: the recording must not depend on the committer never reusing its array.
    if (this.recording) this.batches.push(operations.slice())
    return write()
  }
  take(): (readonly BatchOperation[])[] {
    const batches = this.batches
    this.batches = []
    return batches
  }
}

/** An append starts with its chunk, the only operation under an event key. */
const isChunk = (operation: BatchOperation): boolean => operation.key[0] === EVENT_KEY_TAG
const EVENT_KEY_TAG = 0x65
const appendsIn = (operations: readonly BatchOperation[]): number => operations.filter(isChunk).length

/** The same operations in the same order, cut into batches of `appendsPerBatch` appends each. */
function regroup(batches: readonly (readonly BatchOperation[])[], appendsPerBatch: number): BatchOperation[][] {
  const regrouped: BatchOperation[][] = []
  let current: BatchOperation[] = []
  let appends = 0
  for (const operation of batches.flat()) {
    if (isChunk(operation)) {
      if (appends === appendsPerBatch) {
        regrouped.push(current)
        current = []
        appends = 0
      }
      appends++
    }
    current.push(operation)
  }
  if (current.length > 0) regrouped.push(current)
  return regrouped
}

/**
 * Writes `batches` one after the other as synced chained batches, the way the store writes them (the raw side's own
 * JavaScript, building each batch, is counted too). Latencies are per batch.
 */
async function replayRaw(db: RawBatchDb, batches: readonly (readonly BatchOperation[])[], label: string): Promise<Phase> {
  const latencies: number[] = []
  let count = 0
  const cpu = process.cpuUsage()
  const started = now()
  let t = started
  for (const operations of batches) {
    const batch = db.batch()
    for (const operation of operations) batch.put(operation.key, operation.value)
    await batch.write({ sync: true })
    const end = now()
    latencies.push(end - t)
    t = end
    count += appendsIn(operations)
  }
  return { label, count, milliseconds: now() - started, latencies, cpuMicros: cpuSince(cpu) }
}

type RawBatchDb = ClassicLevel<Uint8Array, Uint8Array>

async function openRawBatchDb(location: string): Promise<RawBatchDb> {
  const db: RawBatchDb = new ClassicLevel<Uint8Array, Uint8Array>(location, { keyEncoding: 'view', valueEncoding: 'view' })
  await db.open()
  return db
}

/** How big the batches were, in appends: count, mean and percentiles. */
function batchShape(batches: readonly (readonly BatchOperation[])[]): string[] {
  const sizes = batches.map(appendsIn)
  const total = sizes.reduce((sum, size) => sum + size, 0)
  return [
    fmtInt(batches.length),
    (total / Math.max(1, batches.length)).toFixed(1),
    ...[10, 50, 90, 100].map((p) => String(percentile(sizes, p))),
  ]
}

async function appenders(engine: Engine, event: EventInput, concurrency: number, ms: number, label: string, round: number): Promise<Phase> {
  const latencies: number[] = []
  let count = 0
  const cpu = process.cpuUsage()
  const started = now()
  const deadline = started + ms
  const loop = async (index: number) => {
    const stream = `doc:bench-${round}-${index}`
    for (let t = now(); t < deadline; ) {
      await (engine.store as EventStore).appendToStream(stream, [event])
      const end = now()
      latencies.push(end - t)
      t = end
      count++
    }
  }
  await Promise.all(Array.from({ length: concurrency }, (_, index) => loop(index)))
  return { label, count, milliseconds: now() - started, latencies, cpuMicros: cpuSince(cpu) }
}

interface AppenderRound {
  readonly store: Phase
  readonly batches: (readonly BatchOperation[])[]
  /** The store's batches replayed raw. */
  readonly sameShape: Phase
  /** The same operations replayed raw in batches of one append per appender. */
  readonly fullTurns: Phase
}

interface AppenderRun {
  readonly concurrency: number
  readonly rounds: readonly AppenderRound[]
  /** The rounds pooled. */
  readonly store: Phase
  readonly batches: (readonly BatchOperation[])[]
  readonly sameShape: Phase
  readonly fullTurns: Phase
}

function pooled(label: string, phases: readonly Phase[]): Phase {
  return {
    label,
    count: phases.reduce((sum, phase) => sum + phase.count, 0),
    milliseconds: phases.reduce((sum, phase) => sum + phase.milliseconds, 0),
    latencies: phases.flatMap((phase) => phase.latencies),
    cpuMicros: phases.reduce((sum, phase) => sum + phase.cpuMicros, 0),
  }
}

/** Per round, the store's rate over `reference`'s, and their median: rounds pair up moments of the same disk. */
function roundRatios(rounds: readonly AppenderRound[], reference: (round: AppenderRound) => Phase): { each: number[]; median: number } {
  const each = rounds.map((round) => rate(round.store) / rate(reference(round)))
  return { each, median: median(each) }
}

async function run(options: RunOptions): Promise<TargetResult[]> {
  const phaseMs = sized(options, 'QUIRE_BENCH_APPEND_MS', 3_000, 150)
  const roundCount = sized(options, 'QUIRE_BENCH_APPEND_ROUNDS', 5, 1)
  const warmupMs = sized(options, undefined, 500, 100)
  const update = keystrokeUpdate()
  const event: EventInput = { type: 'document.changed', actor: { kind: 'peer', peer: 'bench' }, data: { update } }
  console.log(`payload: a ${update.length}-byte Yjs update; ${phaseMs} ms per phase (appenders: ${roundCount} rounds, each replayed raw right after) after ${warmupMs} ms warm-ups`)

  return withTempDir('append-raw', (rawDir) =>
    withTempDir('append-engine', async (engineDir) => {
      const raw = new ClassicLevel<string, Uint8Array>(join(rawDir, 'db'), { valueEncoding: 'view' })
      await raw.open()
      // One raw database per replay shape, each getting every batch the store's database got, so each phase's
      // replay writes into the state the store wrote into.
      const sameShapeReplay = await openRawBatchDb(join(rawDir, 'same-shape'))
      const fullTurnsReplay = await openRawBatchDb(join(rawDir, 'full-turns'))
      const recorder = new BatchRecorder()
      const engine = await openEmbeddedEngine(engineDir, { interceptWrite: recorder.interceptWrite })
      try {
        // Warm-ups: JIT, LevelDB files and the disk's write path, for every side. The replay database gets the
        // warm-ups' batches too, so it holds what the store's database held when each phase began.
        recorder.recording = true
        let written = (await rawSyncedPuts(raw, update, warmupMs, 'warm-up', 0)).count
        await appenders(engine, event, 1, warmupMs, 'warm-up', 0)
        await appenders(engine, event, 64, warmupMs, 'warm-up', 1)
        const warmUpBatches = recorder.take()
        await replayRaw(sameShapeReplay, warmUpBatches, 'warm-up')
        await replayRaw(fullTurnsReplay, warmUpBatches, 'warm-up')
        await quiesce()

        const rawBefore = await rawSyncedPuts(raw, update, phaseMs, 'raw before', written)
        written += rawBefore.count
        await quiesce()
        const runs: AppenderRun[] = []
        for (const [index, concurrency] of CONCURRENCIES.entries()) {
          const label = `${concurrency} appender${concurrency > 1 ? 's' : ''}`
          // Short rounds, each replayed right after it ran: on a disk other work shares, each ratio compares the
          // store and its ceiling a few seconds apart, and the median of the rounds is the figure.
          const rounds: AppenderRound[] = []
          for (let round = 0; round < roundCount; round++) {
            const store = await appenders(engine, event, concurrency, phaseMs / roundCount, label, index + 2)
            const batches = recorder.take()
            await quiesce()
            const sameShape = await replayRaw(sameShapeReplay, batches, `${label}: raw same-shape batches`)
            await quiesce()
            const fullTurns = await replayRaw(fullTurnsReplay, regroup(batches, concurrency), `${label}: raw batches of ${concurrency}`)
            await quiesce()
            rounds.push({ store, batches, sameShape, fullTurns })
          }
          runs.push({
            concurrency,
            rounds,
            store: pooled(label, rounds.map((round) => round.store)),
            batches: rounds.flatMap((round) => round.batches),
            sameShape: pooled(`${label}: raw same-shape batches`, rounds.map((round) => round.sameShape)),
            fullTurns: pooled(`${label}: raw batches of ${concurrency}`, rounds.map((round) => round.fullTurns)),
          })
        }
        const rawAfter = await rawSyncedPuts(raw, update, phaseMs, 'raw after', written)
        const rawPooled: Phase = {
          label: 'raw synced put (pooled)',
          count: rawBefore.count + rawAfter.count,
          milliseconds: rawBefore.milliseconds + rawAfter.milliseconds,
          latencies: [...rawBefore.latencies, ...rawAfter.latencies],
          cpuMicros: rawBefore.cpuMicros + rawAfter.cpuMicros,
        }
        const rawRate = rate(rawPooled)
        const rawP50 = percentile(rawPooled.latencies, 50)
        const rawP99 = percentile(rawPooled.latencies, 99)

        const row = (phase: Phase) => [
          phase.label,
          fmtInt(phase.count),
          fmtRate(rate(phase)),
          fmtRatio(rate(phase) / rawRate),
          fmtMs(percentile(phase.latencies, 50)),
          fmtMs(percentile(phase.latencies, 99)),
          `${(phase.cpuMicros / phase.count).toFixed(1)} µs`,
        ]
        printTable(
          'append: durable appends (one event each) vs one-at-a-time synced raw classic-level puts',
          ['run', 'events', 'events/s', 'vs raw put', 'p50', 'p99', 'CPU/event'],
          [row(rawBefore), row(rawAfter), row(rawPooled), ...runs.map(({ store }) => row(store))],
        )
        printTable(
          'append: the store against its own batches replayed raw (p50/p99 of the replays are per batch)',
          ['run', 'events', 'events/s', 'vs raw put', 'p50', 'p99', 'CPU/event', 'store / this'],
          runs.flatMap(({ store, sameShape, fullTurns }) =>
            [store, sameShape, fullTurns].map((phase) => [...row(phase), fmtRatio(rate(store) / rate(phase))]),
          ),
        )
        printTable(
          'append: the batches the store cut, in appends per batch',
          ['run', 'batches', 'mean', 'p10', 'p50', 'p90', 'max'],
          runs.map(({ store, batches }) => [store.label, ...batchShape(batches)]),
        )

        const single = runs[0]!.store
        const most = runs[runs.length - 1]!
        const singleP50 = percentile(single.latencies, 50)
        const singleP99 = percentile(single.latencies, 99)
        printTable(
          'append: single-appender latency vs one raw synced put',
          ['percentile', 'appendToStream', 'raw put', 'ratio'],
          [
            ['p50', fmtMs(singleP50), fmtMs(rawP50), fmtRatio(singleP50 / rawP50)],
            ['p99', fmtMs(singleP99), fmtMs(rawP99), fmtRatio(singleP99 / rawP99)],
          ],
        )
        printTable(
          'append: store rate / raw replay rate, per round (median: the figure judged)',
          ['run', 'raw replay', 'median', 'rounds'],
          runs.flatMap(({ store, rounds }) =>
            ([['same-shape batches', (round: AppenderRound) => round.sameShape], ['one append per appender', (round: AppenderRound) => round.fullTurns]] as const).map(
              ([name, reference]) => {
                const ratios = roundRatios(rounds, reference)
                return [store.label, name, fmtRatio(ratios.median), ratios.each.map(fmtRatio).join(' ')]
              },
            ),
          ),
        )
        const sameShapeRatio = roundRatios(most.rounds, (round) => round.sameShape).median
        const fullTurnsRatio = roundRatios(most.rounds, (round) => round.fullTurns).median
        const throughputRatio = rate(most.store) / rawRate
        const latencyRatio = singleP50 / rawP50
        const targets: TargetResult[] = [
          { benchmark: 'append', name: '64 appenders / raw same-shape synced batches rate (median of rounds)', ratio: sameShapeRatio, target: '≥ 0.8x', met: sameShapeRatio >= 0.8 },
          { benchmark: 'append', name: '64 appenders / raw synced batches of 64 rate (median of rounds)', ratio: fullTurnsRatio, target: 'record', met: null },
          { benchmark: 'append', name: '64 appenders / raw synced put rate', ratio: throughputRatio, target: '≥ 20x', met: throughputRatio >= 20 },
          { benchmark: 'append', name: '1 appender p50 / raw synced put p50', ratio: latencyRatio, target: '≤ 1.2x', met: latencyRatio <= 1.2 },
        ]
        console.log('CPU/event: process CPU time (all threads) per event; near the wall time per event means CPU-bound.')
        return targets
      } finally {
        await engine.close()
        await sameShapeReplay.close()
        await fullTurnsReplay.close()
        await raw.close()
      }
    }),
  )
}

export const appendBenchmark: Benchmark = {
  name: 'append',
  description: 'durable append throughput (1/8/64 appenders) and latency vs raw synced classic-level puts and the store\'s own batches replayed raw',
  run,
}
