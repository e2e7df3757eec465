import { join } from 'node:path'
import { ClassicLevel } from 'classic-level'
import * as Y from 'yjs'
import { openEngine, type Engine } from '../core/engine.js'
import type { EventInput } from '../core/log/eventLog.js'
import {
  fmtInt, fmtMs, fmtRate, fmtRatio, now, percentile, printTable, settle, sized, withTempDir,
  type Benchmark, type RunOptions, type TargetResult,
} from './util.js'

/**
 * Durable append throughput and latency: 1, 8 and 64 concurrent appenders (each on its own stream, one event per
 * append, awaiting durability) against one-at-a-time synced puts on a raw classic-level database of the same
 * payload size. The raw reference runs before and after the appenders and the two runs are pooled, so drift in the
 * disk's speed during the run shows up in both sides.
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

async function appenders(engine: Engine, event: EventInput, concurrency: number, ms: number, label: string, round: number): Promise<Phase> {
  const latencies: number[] = []
  let count = 0
  const cpu = process.cpuUsage()
  const started = now()
  const deadline = started + ms
  const loop = async (index: number) => {
    const stream = `doc:bench-${round}-${index}`
    for (let t = now(); t < deadline; ) {
      await engine.store.appendToStream(stream, [event])
      const end = now()
      latencies.push(end - t)
      t = end
      count++
    }
  }
  await Promise.all(Array.from({ length: concurrency }, (_, index) => loop(index)))
  return { label, count, milliseconds: now() - started, latencies, cpuMicros: cpuSince(cpu) }
}

async function run(options: RunOptions): Promise<TargetResult[]> {
  const phaseMs = sized(options, 'QUIRE_BENCH_APPEND_MS', 3_000, 150)
  const warmupMs = sized(options, undefined, 500, 100)
  const update = keystrokeUpdate()
  const event: EventInput = { type: 'document.changed', actor: { kind: 'peer', peer: 'bench' }, data: { update } }
  console.log(`payload: a ${update.length}-byte Yjs update; ${phaseMs} ms per phase after ${warmupMs} ms warm-ups`)

  return withTempDir('append-raw', (rawDir) =>
    withTempDir('append-engine', async (engineDir) => {
      const raw = new ClassicLevel<string, Uint8Array>(join(rawDir, 'db'), { valueEncoding: 'view' })
      await raw.open()
      const engine = await openEngine(engineDir)
      try {
        // Warm-ups: JIT, LevelDB files and the disk's write path, for both sides.
        let written = (await rawSyncedPuts(raw, update, warmupMs, 'warm-up', 0)).count
        await appenders(engine, event, 1, warmupMs, 'warm-up', 0)
        await appenders(engine, event, 64, warmupMs, 'warm-up', 1)
        await settle()

        const rawBefore = await rawSyncedPuts(raw, update, phaseMs, 'raw before', written)
        written += rawBefore.count
        await settle()
        const phases: Phase[] = []
        for (const [index, concurrency] of CONCURRENCIES.entries()) {
          phases.push(await appenders(engine, event, concurrency, phaseMs, `${concurrency} appender${concurrency > 1 ? 's' : ''}`, index + 2))
          await settle()
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
          ['run', 'events', 'events/s', 'vs raw', 'p50', 'p99', 'CPU/event'],
          [row(rawBefore), row(rawAfter), row(rawPooled), ...phases.map(row)],
        )

        const single = phases[0]!
        const most = phases[phases.length - 1]!
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
        const throughputRatio = rate(most) / rawRate
        const latencyRatio = singleP50 / rawP50
        const targets: TargetResult[] = [
          { benchmark: 'append', name: '64 appenders / raw synced put rate', ratio: throughputRatio, target: '≥ 20x', met: throughputRatio >= 20 },
          { benchmark: 'append', name: '1 appender p50 / raw synced put p50', ratio: latencyRatio, target: '≤ 1.5x', met: latencyRatio <= 1.5 },
        ]
        console.log('CPU/event: process CPU time (all threads) per event; near the wall time per event means CPU-bound.')
        return targets
      } finally {
        await engine.close()
        await raw.close()
      }
    }),
  )
}

export const appendBenchmark: Benchmark = {
  name: 'append',
  description: 'durable append throughput (1/8/64 appenders) and latency vs raw synced classic-level puts',
  run,
}
