import { fork } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Shared helpers of the benchmarks: timing, percentiles, temp dirs, child processes, tables. */

export const now = (): number => performance.now()

/** One target a benchmark checks: `ratio` against its reference, and whether it meets `target`. */
export interface TargetResult {
  readonly benchmark: string
  readonly name: string
  readonly ratio: number
  /** Human-readable target, e.g. "≥ 20x" or "≤ 1.5x". */
  readonly target: string
  /** Null when there is no target, only a figure to record. */
  readonly met: boolean | null
}

/**
 * How big a run is. A full run (the default) measures what bench/RESULTS.md records. A smoke run (`--smoke`) gives
 * every benchmark tiny phases and inputs made in this process (no data files), so the whole suite shows in
 * seconds that every benchmark still runs to the end; its figures mean nothing and its targets are not judged.
 */
export interface RunOptions {
  readonly smoke: boolean
}

export interface Benchmark {
  readonly name: string
  readonly description: string
  /** Measures and returns its targets; the runner prints them (and judges them, except in a smoke run). */
  run(options: RunOptions): Promise<TargetResult[]>
}

/**
 * A size of a run: in a full run `$variable` when set (a positive number), else `full`; in a smoke run `smoke`,
 * whatever the environment says, so a smoke run always stays small.
 */
export function sized(options: RunOptions, variable: string | undefined, full: number, smoke: number): number {
  if (options.smoke) return smoke
  const raw = variable === undefined ? undefined : process.env[variable]
  if (raw === undefined || raw === '') return full
  const value = Number(raw)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${variable} must be a positive number, not ${JSON.stringify(raw)}`)
  return value
}

/** `p` in [0, 100], nearest-rank on a copy of `values`. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = Float64Array.from(values).sort()
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN
  const sorted = Float64Array.from(values).sort()
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** Where temp data dirs go: $QUIRE_BENCH_TMP, else the OS temp dir. */
export const tempRoot = (): string => process.env.QUIRE_BENCH_TMP ?? tmpdir()

export interface TempDir {
  readonly path: string
  remove(): Promise<void>
}

export async function tempDir(label: string): Promise<TempDir> {
  const path = await mkdtemp(join(tempRoot(), `quire-bench-${label}-`))
  return { path, remove: () => rm(path, { recursive: true, force: true }) }
}

/** Runs `body` with a fresh temp dir, removing it afterwards whatever happens. */
export async function withTempDir<T>(label: string, body: (path: string) => Promise<T>): Promise<T> {
  const dir = await tempDir(label)
  try {
    return await body(dir.path)
  } finally {
    await dir.remove()
  }
}

/**
 * Runs a compiled script of this folder (`dist/bench/<script>`) in a fresh Node process and resolves with the one
 * message it sends back over IPC. Rejects if it exits without sending one.
 */
export function runChild<T>(script: string, args: readonly string[]): Promise<T> {
  const path = fileURLToPath(new URL(script, import.meta.url))
  return new Promise<T>((resolve, reject) => {
    const child = fork(path, [...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    let result: { value: T } | undefined
    child.on('message', (message) => {
      result = { value: message as T }
    })
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      if (result && code === 0) resolve(result.value)
      else reject(new Error(`${script} ${args.join(' ')} exited with ${signal ?? `code ${code}`} before reporting`))
    })
  })
}

/** For child scripts: sends `value` to the parent and exits once it is delivered. */
export function reportToParent(value: unknown): void {
  if (!process.send) throw new Error('this script reports to a parent process; run it through `npm run bench`')
  process.send(value, () => process.exit(0))
}

export const fmtMs = (ms: number): string => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2)) + ' ms'
export const fmtRate = (perSecond: number): string => `${Math.round(perSecond).toLocaleString('en-US')}/s`
export const fmtRatio = (ratio: number): string => `${ratio >= 10 ? ratio.toFixed(1) : ratio.toFixed(2)}x`
export const fmtInt = (n: number): string => Math.round(n).toLocaleString('en-US')
export const fmtMiB = (kib: number): string => `${(kib / 1024).toFixed(1)} MiB`

/** Prints a boxed-free aligned table: a title line, a header row, a rule, the rows. */
export function printTable(title: string, headers: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)))
  const line = (cells: readonly string[]) =>
    cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ')
  console.log(`\n${title}`)
  console.log(line(headers))
  console.log(widths.map((width) => '-'.repeat(width)).join('  '))
  for (const row of rows) console.log(line(row))
}

export const metLabel = (met: boolean | null): string => (met === null ? '-' : met ? 'yes' : 'NO')

/** Rows for the targets table of one benchmark. */
export function printTargets(benchmark: string, targets: readonly TargetResult[]): void {
  printTable(
    `${benchmark}: targets`,
    ['ratio', 'measured', 'target', 'met'],
    targets.map((target) => [target.name, fmtRatio(target.ratio), target.target, metLabel(target.met)]),
  )
}

/** A smoke run's targets, unjudged: its phases are too short for any verdict to mean something. */
export function unjudged(targets: readonly TargetResult[]): TargetResult[] {
  return targets.map((target) => ({ ...target, target: `${target.target} (smoke: not judged)`, met: null }))
}

/** Lets pending I/O callbacks and timers run, and gives GC a chance between phases. */
export async function settle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 50))
  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
}

/** mulberry32: a small deterministic PRNG, so every run writes the same texts. */
export function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}
