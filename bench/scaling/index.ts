import { now, type Benchmark, type RunOptions, type TargetResult } from '../util.js'
import { historyCurve } from './history.js'
import { idleMemoryCurve } from './idleMemory.js'
import { startupCurve } from './startup.js'
import { writeSizeCurve } from './writeSize.js'

/**
 * How cost grows (issue 16): four curves, each against a reference measured in the same run, printed as a table and
 * a log-log ASCII plot and, in a full run, written to bench/scaling/<curve>.txt:
 * - write-size: document.write latency against document size, 1 KiB to 8 MiB, vs the floor of the same bytes;
 * - startup: `quire serve` start-up against log size, 10^4 to 10^6 events (snapshotted), vs reading the raw log;
 * - idle-memory: memory against open idle documents, 10 to 10,000, vs plain Y.Docs of the same texts;
 * - history: document.write latency against a document's history, 10 to 100,000 events, vs the floor.
 * QUIRE_BENCH_SCALING (e.g. `startup,history`) runs only the named curves.
 */

const CURVES = ['write-size', 'startup', 'idle-memory', 'history'] as const
type Curve = (typeof CURVES)[number]

const KiB = 1024
const MiB = 1024 * KiB

function selectedCurves(): readonly Curve[] {
  const raw = process.env.QUIRE_BENCH_SCALING
  if (raw === undefined || raw.trim() === '') return CURVES
  const names = raw.split(',').map((name) => name.trim())
  const unknown = names.filter((name) => !(CURVES as readonly string[]).includes(name))
  if (unknown.length > 0) throw new Error(`QUIRE_BENCH_SCALING names unknown curves ${unknown.join(', ')}; known: ${CURVES.join(', ')}`)
  return CURVES.filter((curve) => names.includes(curve))
}

async function run(options: RunOptions): Promise<TargetResult[]> {
  const smoke = options.smoke
  // A smoke run's figures mean nothing: print them, leave the committed files alone.
  const write = !smoke
  const results: TargetResult[] = []
  for (const curve of selectedCurves()) {
    const started = now()
    if (curve === 'write-size') {
      results.push(...(await writeSizeCurve(
        smoke
          ? { sizes: [KiB, 4 * KiB, 16 * KiB], phaseMs: 60, minCalls: 3, warmupMs: 50 }
          : { sizes: [KiB, 4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, MiB, 4 * MiB, 8 * MiB], phaseMs: 2_400, minCalls: 6, warmupMs: 1_000 },
        write,
      )))
    } else if (curve === 'startup') {
      results.push(...(await startupCurve(
        smoke ? { traceEdits: 200, checkpoints: [200, 600], runs: 1 } : { traceEdits: 10_000, checkpoints: [10_000, 30_000, 100_000, 300_000, 1_000_000], runs: 5 },
        write,
      )))
    } else if (curve === 'idle-memory') {
      results.push(...(await idleMemoryCurve(smoke ? { counts: [10, 30], bytes: 512, runs: 1 } : { counts: [10, 100, 1_000, 10_000], bytes: 2 * KiB, runs: 2 }, write)))
    } else {
      results.push(...(await historyCurve(smoke ? { checkpoints: [10, 100], writes: 3 } : { checkpoints: [10, 100, 1_000, 10_000, 100_000], writes: 40 }, write)))
    }
    console.log(`(${curve} took ${((now() - started) / 1000).toFixed(1)} s)`)
  }
  return results
}

export const scalingBenchmark: Benchmark = {
  name: 'scaling',
  description: 'how cost grows: write vs document size and history length, start-up vs log size, memory vs idle documents',
  run,
}
