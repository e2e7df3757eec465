import { parseDocument } from 'yaml'
import { applyPatches } from '../core/workflow/applyPatches.js'
import type { IRPatch } from '../core/workflow/patches.js'
import { fmtInt, fmtMs, fmtRatio, median, now, printTable, sized, type Benchmark, type RunOptions, type TargetResult } from './util.js'

/**
 * `workflow.apply_patch` on a large workflow (~2,000 lines: many jobs with steps, comments, with: blocks, needs)
 * against the yaml library's own round trip of the same file, `parseDocument` + `toString` — what VMark's
 * Document-API patcher costs at least, and what it pays for with reformatting.
 *
 * The splicing patcher parses once, then once more after every patch (the next patch addresses the new text, and
 * the result is verified before it is accepted), so a list of n patches costs about n + 1 parses where the
 * reference costs one parse and one stringify. A parse alone is about two thirds of the reference, so the floor
 * for the typical 3-patch call below is about 2.7x; the target is ≤ 3.5x for it and ≤ 1.5x for a single patch —
 * more would mean the edits themselves, not the parses, dominate.
 */

/** Jobs of the workflow: ~2,000 lines in a full run, ~600 in a smoke run. */
const JOBS = 70
const SMOKE_JOBS = 20

/** A deterministic workflow of `jobs` jobs, each with needs, a matrix, comments, blank lines and several steps. */
export function largeWorkflow(jobs: number): string {
  const lines: string[] = ['# Generated for the apply_patch benchmark.', 'name: Big CI   # many jobs', '', 'on:', '  push:', '    branches: [ main ]', '  pull_request:', '', 'env: &defaults', "  NODE_VERSION: '20'", '  FORCE_COLOR: 1', '', 'jobs:']
  for (let index = 0; index < jobs; index++) {
    lines.push(`  job${index}:`, `    # job ${index} of ${jobs}`)
    if (index > 0) lines.push(index % 2 === 0 ? `    needs: [job${index - 1}]` : `    needs: job${index - 1}`)
    lines.push('    runs-on: ${{ matrix.os }}', '    strategy:', '      matrix:', '        os: [ubuntu-latest, macos-latest]', '    steps:')
    lines.push('      - uses: actions/checkout@v4   # pinned', '        with:', '          fetch-depth: 0', '')
    lines.push('      - name: Setup node', '        uses: actions/setup-node@v4', '        with:', '          node-version: ${{ env.NODE_VERSION }}', '          cache: npm')
    lines.push('      # build and test', '      - name: Build', '        run: |', '          npm ci', '          npm run build', '')
    lines.push(`      - name: 'Test ${index}'`, '        run: npm test -- --shard=${{ strategy.job-index }}', '        env:', '          CI: true', '')
  }
  lines.push('# end of workflow')
  return lines.join('\n') + '\n'
}

/** A typical call's patches on a workflow of `jobs` jobs: one in the middle, two on the last job. */
const patchesFor = (jobs: number): IRPatch[] => [
  { kind: 'with.set', jobId: `job${Math.floor(jobs / 2)}`, stepIndex: 1, key: 'cache', value: 'pnpm' },
  { kind: 'needs.add', jobId: `job${jobs - 1}`, ref: 'job0' },
  { kind: 'job.set', jobId: `job${jobs - 1}`, path: 'timeout-minutes', value: 30 },
]

function time(body: () => void, runs: number, warmups: number): number[] {
  for (let index = 0; index < warmups; index++) body()
  const samples: number[] = []
  for (let index = 0; index < runs; index++) {
    const start = now()
    body()
    samples.push(now() - start)
  }
  return samples
}

async function run(options: RunOptions): Promise<TargetResult[]> {
  const runs = sized(options, 'QUIRE_BENCH_PATCH_RUNS', 30, 2)
  const warmups = sized(options, undefined, 5, 1)
  const timed = (body: () => void) => median(time(body, runs, warmups))
  const jobs = options.smoke ? SMOKE_JOBS : JOBS
  const patches = patchesFor(jobs)
  const source = largeWorkflow(jobs)
  let patched = ''
  let roundTrip = ''
  const ours = timed(() => (patched = applyPatches(source, patches)))
  const reference = timed(() => (roundTrip = parseDocument(source, { version: '1.2' }).toString()))
  const single = timed(() => applyPatches(source, patches.slice(0, 1)))
  const parseOnly = timed(() => parseDocument(source, { version: '1.2' }))
  const changedLines = (text: string) => {
    const before = source.split('\n')
    const after = new Set(text.split('\n'))
    return before.filter((line) => !after.has(line)).length
  }
  console.log(`workflow: ${fmtInt(source.split('\n').length)} lines, ${fmtInt(source.length)} characters, ${jobs} jobs; ${runs} runs after ${warmups} warm-ups, medians`)
  printTable('apply-patch: time per call', ['measure', 'median', 'original lines lost'], [
    [`applyPatches, ${patches.length} patches`, fmtMs(ours), fmtInt(changedLines(patched))],
    ['applyPatches, 1 patch', fmtMs(single), '-'],
    ['parseDocument + toString (reference)', fmtMs(reference), fmtInt(changedLines(roundTrip))],
    ['parseDocument alone', fmtMs(parseOnly), '-'],
  ])
  console.log('"original lines lost": lines of the source no longer present verbatim; the reference round trip re-spaces comments and flow collections.')
  const ratio = ours / reference
  const singleRatio = single / reference
  const targets: TargetResult[] = [
    { benchmark: 'apply-patch', name: `applyPatches (${patches.length} patches) / parse + toString`, ratio, target: '≤ 3.5x', met: ratio <= 3.5 },
    { benchmark: 'apply-patch', name: 'applyPatches (1 patch) / parse + toString', ratio: singleRatio, target: '≤ 1.5x', met: singleRatio <= 1.5 },
  ]
  console.log(`ratio detail: ${fmtRatio(ratio)} for ${patches.length} patches, ${fmtRatio(singleRatio)} for one`)
  return targets
}

export const applyPatchBenchmark: Benchmark = {
  name: 'apply-patch',
  description: 'workflow.apply_patch on a ~2,000-line workflow vs the yaml library round trip (parseDocument + toString)',
  run,
}
