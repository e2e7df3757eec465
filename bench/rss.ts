import { join } from 'node:path'
import type { RssSample } from './rssChild.js'
import {
  fmtMiB, fmtMs, fmtRatio, median, printTable, runChild, sized, withTempDir,
  type Benchmark, type RunOptions, type TargetResult,
} from './util.js'
import { tracePath } from './trace.js'

/**
 * Peak RSS of a durable trace ingest against the plain Y.Doc replay of the same trace, each in its own fresh
 * process (plus an idle process that only loads the modules, for the baseline both include). Medians of a few
 * runs of each. There is no target: the ratio is printed for the record.
 *
 * `maxRSS` is the usual figure, but on Linux a child's maxRSS starts from what fork() copied of its parent's memory
 * (the kernel keeps the high-water mark across exec), so a child that stays small reports part of the parent's
 * RSS. VmHWM (/proc/self/status) is the peak of the child's own image alone; both are printed, and a
 * disagreement is pointed out.
 */

const MODES = ['idle', 'plain', 'ingest'] as const
type Mode = (typeof MODES)[number]

async function run(options: RunOptions): Promise<TargetResult[]> {
  const runs = sized(options, 'QUIRE_BENCH_RSS_RUNS', 3, 1)
  const path = tracePath(options)
  const samples = new Map<Mode, RssSample[]>(MODES.map((mode) => [mode, []]))
  for (let round = 0; round < runs; round++) {
    samples.get('idle')!.push(await runChild<RssSample>('rssChild.js', ['idle']))
    samples.get('plain')!.push(await runChild<RssSample>('rssChild.js', ['plain', path]))
    samples.get('ingest')!.push(
      await withTempDir('rss', (dir) => runChild<RssSample>('rssChild.js', ['ingest', path, join(dir, 'home')])),
    )
  }
  const parentRss = process.memoryUsage().rss / 1024
  const maxRss = (mode: Mode) => median(samples.get(mode)!.map((sample) => sample.maxRssKiB))
  const hwm = (mode: Mode) => median(samples.get(mode)!.map((sample) => sample.hwmKiB ?? Number.NaN))
  const hasHwm = MODES.every((mode) => samples.get(mode)!.every((sample) => sample.hwmKiB !== null))
  const row = (label: string, mode: Mode) => [
    label,
    fmtMiB(maxRss(mode)),
    hasHwm ? fmtMiB(hwm(mode)) : 'n/a',
    samples.get(mode)!.map((sample) => fmtMiB(sample.maxRssKiB)).join(', '),
    mode === 'idle' ? '-' : fmtMs(median(samples.get(mode)!.map((sample) => sample.milliseconds))),
  ]
  printTable(
    `rss: peak RSS, fresh process each, median of ${runs}`,
    ['run', 'maxRSS', 'VmHWM', 'maxRSS of each run', 'time'],
    [row('idle (modules loaded)', 'idle'), row('plain Y.Doc replay (incl. parse)', 'plain'), row('ingestTrace (durable)', 'ingest')],
  )
  console.log(
    `this process's RSS: ${fmtMiB(parentRss)}. On Linux a child's maxRSS also counts what fork() copied of the parent\n` +
      '(the idle row: maxRSS above VmHWM); VmHWM counts only the child itself.',
  )
  const ratio = maxRss('ingest') / maxRss('plain')
  const targets: TargetResult[] = [
    { benchmark: 'rss', name: 'ingest / plain Y.Doc peak RSS (maxRSS)', ratio, target: 'none', met: null },
  ]
  if (hasHwm) {
    const hwmRatio = hwm('ingest') / hwm('plain')
    targets.push({ benchmark: 'rss', name: 'ingest / plain Y.Doc peak RSS (VmHWM)', ratio: hwmRatio, target: 'none', met: null })
    const aboveIdle = (hwm('ingest') - hwm('idle')) / (hwm('plain') - hwm('idle'))
    console.log(`above the idle process (VmHWM), ingest / plain = ${fmtRatio(aboveIdle)}`)
    if (Math.abs(hwmRatio - ratio) / hwmRatio > 0.05) {
      console.log('maxRSS and VmHWM disagree for the measured runs: trust VmHWM, maxRSS includes memory inherited from this process.')
    }
  }
  return targets
}

export const rssBenchmark: Benchmark = {
  name: 'rss',
  description: 'peak RSS of a durable ingest vs a plain Y.Doc replay, each in a fresh process',
  run,
}
