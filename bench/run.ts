import { cpus, loadavg } from 'node:os'
import { appendBenchmark } from './append.js'
import { auditBenchmark } from './audit.js'
import { applyPatchBenchmark } from './applyPatch.js'
import { browserBenchmark } from './browser.js'
import { coherenceBenchmark } from './coherence.js'
import { coldOpenBenchmark } from './coldOpen.js'
import { fanoutBenchmark } from './fanout.js'
import { ingestBenchmark } from './ingest.js'
import { keystrokeBenchmark } from './keystroke.js'
import { mcpFilesystemBenchmark } from './mcpFilesystem.js'
import { mcpEditsBenchmark } from './mcpEdits.js'
import { mcpThroughputBenchmark } from './mcpThroughput.js'
import { mcpWriteBenchmark } from './mcpWrite.js'
import { nodesBenchmark } from './nodes.js'
import { postgresBenchmark } from './postgres.js'
import { readRecordBenchmark } from './readRecord.js'
import { reviewBenchmark } from './review.js'
import { rssBenchmark } from './rss.js'
import { scalingBenchmark } from './scaling/index.js'
import { transformBenchmark } from './transform.js'
import { validateBenchmark } from './validate.js'
import { workflowParseBenchmark } from './workflowParse.js'
import { fmtRatio, metLabel, now, printTable, printTargets, unjudged, type Benchmark, type RunOptions, type TargetResult } from './util.js'

/**
 * The benchmark suite: `node dist/bench/run.js [--smoke] [name ...]` runs the named benchmarks (all when none are
 * named), printing each one's targets after it, and ends with a summary of every ratio against its target. Each
 * ratio is against a reference measured in the same run. The exit status is 1 when any benchmark threw.
 *
 * --smoke: every benchmark with tiny phases and inputs made in this process (no data files; the whole suite
 * in well under a minute), to show that each still runs to the end. The figures are printed but mean nothing, so no
 * target is judged.
 *
 * Environment (full runs only; a smoke run ignores the sizes): QUIRE_TRACE (trace file), QUIRE_BENCH_TMP (where temp
 * data dirs go), and per benchmark QUIRE_BENCH_APPEND_MS, QUIRE_BENCH_INGEST_RUNS, QUIRE_BENCH_COLD_RUNS,
 * QUIRE_BENCH_RSS_RUNS, QUIRE_BENCH_TRANSFORM_RUNS, QUIRE_BENCH_PATCH_RUNS, QUIRE_BENCH_VALIDATE_RUNS,
 * QUIRE_ACTIONLINT_CORPUS, QUIRE_BENCH_READ_CALLS (read-record's calls per round), QUIRE_BENCH_REVIEW_BYTES,
 * QUIRE_BENCH_REVIEW_EDITS, QUIRE_BENCH_REVIEW_CHANGES and QUIRE_BENCH_REVIEW_ROUNDS (the review benchmark's sizes), QUIRE_BENCH_FANOUT_RATE, QUIRE_BENCH_FANOUT_MS; for the mcp-* benchmarks QUIRE_BENCH_MCP_MS
 * (phase length) and QUIRE_BENCH_MCP_NODE_ARGS (Node flags for the servers, e.g. --cpu-prof); QUIRE_BENCH_BROWSER_MS
 * (the browser benchmark's phase length); QUIRE_BENCH_COHERENCE_FILES, QUIRE_BENCH_COHERENCE_ENTRIES and
 * QUIRE_BENCH_COHERENCE_APPENDS (the coherence workspace's size and the appends timed); QUIRE_BENCH_WORKFLOW_RUNS (samples
 * per size of the workflowParse benchmark); QUIRE_BENCH_SCALING (which curves of the scaling benchmark run);
 * QUIRE_BENCH_POSTGRES_MS, QUIRE_BENCH_POSTGRES_ROUNDS and QUIRE_BENCH_POSTGRES_MCP_CLIENTS (the postgres benchmark's phases and
 * its many-client MCP phase's clients; its server is QUIRE_TEST_POSTGRES or a
 * throwaway cluster, and it is skipped with a line saying so when PostgreSQL is not installed); QUIRE_BENCH_NODES_MS,
 * QUIRE_BENCH_NODES_ROUNDS, QUIRE_BENCH_NODES_CLIENTS, QUIRE_BENCH_NODES_RATE and QUIRE_BENCH_NODES_FANOUT_MS (the nodes
 * benchmark's write phases, rounds, MCP clients, typist's edits/s and fan-out phases; its server as the postgres one's).
 */

const benchmarks: readonly Benchmark[] = [
  appendBenchmark, ingestBenchmark, coldOpenBenchmark, rssBenchmark, mcpWriteBenchmark, readRecordBenchmark, mcpThroughputBenchmark, mcpFilesystemBenchmark, mcpEditsBenchmark,
  transformBenchmark, applyPatchBenchmark, validateBenchmark, fanoutBenchmark, browserBenchmark, coherenceBenchmark,
  workflowParseBenchmark, scalingBenchmark, postgresBenchmark, nodesBenchmark, reviewBenchmark, auditBenchmark, keystrokeBenchmark,
]

const args = process.argv.slice(2)
if (args.includes('--help') || args.includes('-h')) {
  console.log('usage: node dist/bench/run.js [--smoke] [benchmark ...]\n')
  console.log('  --smoke        tiny phases, figures printed but not judged: does every benchmark run to the end?\n')
  for (const benchmark of benchmarks) console.log(`  ${benchmark.name.padEnd(14)} ${benchmark.description}`)
  process.exit(0)
}
const options: RunOptions = { smoke: args.includes('--smoke') }
const names = args.filter((arg) => arg !== '--smoke')
const unknown = names.filter((name) => !benchmarks.some((benchmark) => benchmark.name === name))
if (unknown.length > 0) {
  console.error(`unknown benchmark or option ${unknown.join(', ')}; known: --smoke, ${benchmarks.map((benchmark) => benchmark.name).join(', ')}`)
  process.exit(2)
}
const selected = names.length === 0 ? benchmarks : benchmarks.filter((benchmark) => names.includes(benchmark.name))

const load = (): string => loadavg().map((value) => value.toFixed(2)).join(' ')
console.log(`${cpus()[0]?.model ?? 'unknown CPU'} × ${cpus().length}, node ${process.version}, load average ${load()}`)
if (options.smoke) console.log('smoke run: tiny phases and synthetic inputs; the figures mean nothing and no target is judged')
else if (loadavg()[0]! > 0.5) console.log('note: other work is running on this machine; ratios will be noisier than on an idle one')
const started = now()
const results: TargetResult[] = []
let failed = false
for (const benchmark of selected) {
  console.log(`\n=== ${benchmark.name}: ${benchmark.description}`)
  const benchStarted = now()
  try {
    const targets = await benchmark.run(options)
    const reported = options.smoke ? unjudged(targets) : targets
    printTargets(benchmark.name, reported)
    results.push(...reported)
  } catch (error) {
    failed = true
    console.error(`${benchmark.name} failed:`, error)
  }
  console.log(`(${benchmark.name} took ${((now() - benchStarted) / 1000).toFixed(1)} s; load average now ${load()})`)
}

printTable(
  `=== summary${options.smoke ? ' of a smoke run (not judged)' : ''} (${((now() - started) / 1000).toFixed(1)} s, node ${process.version})`,
  ['benchmark', 'ratio', 'measured', 'target', 'met'],
  results.map((result) => [result.benchmark, result.name, fmtRatio(result.ratio), result.target, metLabel(result.met)]),
)
if (failed) console.error('\nat least one benchmark failed (see above)')
process.exitCode = failed ? 1 : 0
