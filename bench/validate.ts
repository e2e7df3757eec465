import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createWorkflowValidator } from '../adapters/actionlint/validator.js'
import { loadWasmRuntime } from '../adapters/actionlint/wasmRuntime.js'
import { fmtMs, fmtRatio, median, now, printTable, settle, sized, type Benchmark, type RunOptions, type TargetResult } from './util.js'

/**
 * `workflow.validate` through the adapter (the WASM engine on its worker thread: a message each way, a structured
 * clone of the source and of the findings, the queue) against the same engine called directly in this thread, over
 * actionlint's ok/ and examples/ corpus files, one call at a time as MCP calls come. Both are warm; rounds alternate
 * which side goes first; medians. Also recorded: the first call of a fresh validator (worker start, engine load,
 * first lint).
 *
 * Environment: QUIRE_ACTIONLINT_CORPUS (default: specs/data/actionlint-testdata in the repository),
 * QUIRE_BENCH_VALIDATE_RUNS (rounds, default 7). A smoke run lints a few files of each folder, once.
 */

/** Files per folder of a smoke run. */
const SMOKE_FILES = 3

function corpusDir(): string {
  const override = process.env.QUIRE_ACTIONLINT_CORPUS
  if (override) return override
  // dist/bench/validate.js → the repository root is two levels up.
  return fileURLToPath(new URL('../../specs/data/actionlint-testdata', import.meta.url))
}

/** The first `perFolder` workflow files of ok/ and examples/ (by name). */
function corpus(perFolder: number): Array<{ name: string; source: string }> {
  const root = corpusDir()
  if (!existsSync(root)) throw new Error(`no actionlint corpus at ${root}: set QUIRE_ACTIONLINT_CORPUS`)
  return ['ok', 'examples'].flatMap((folder) =>
    readdirSync(join(root, folder))
      .filter((name) => /\.ya?ml$/.test(name))
      .sort()
      .slice(0, perFolder)
      .map((name) => ({ name: `${folder}/${name}`, source: readFileSync(join(root, folder, name), 'utf8') })),
  )
}

async function run(options: RunOptions): Promise<TargetResult[]> {
  const rounds = sized(options, 'QUIRE_BENCH_VALIDATE_RUNS', 7, 1)
  const files = corpus(options.smoke ? SMOKE_FILES : Number.POSITIVE_INFINITY)
  const bytes = files.reduce((sum, file) => sum + Buffer.byteLength(file.source), 0)
  console.log(`${files.length} workflow files (ok/ + examples/), ${(bytes / 1024).toFixed(0)} KiB`)

  // First call of a fresh validator, before anything else loaded the engine in this process.
  const validator = createWorkflowValidator({ preferBinary: false })
  const firstStarted = now()
  const first = await validator.validate(files[0]!.source, files[0]!.name)
  const firstCallMs = now() - firstStarted
  if (first.error) throw new Error(`the validator failed: ${first.error}`)

  const direct = await loadWasmRuntime()
  // V8 keeps the thread busy for a while after instantiating the module; let it finish before timing anything.
  await new Promise((resolve) => setTimeout(resolve, 0))
  await settle()

  let findingsDirect = 0
  let findingsAdapter = 0
  const passDirect = (): number => {
    const started = now()
    findingsDirect = 0
    for (const file of files) findingsDirect += direct.lint(file.source, file.name).length
    return now() - started
  }
  const passAdapter = async (): Promise<number> => {
    const started = now()
    findingsAdapter = 0
    for (const file of files) {
      const result = await validator.validate(file.source, file.name)
      if (result.error) throw new Error(`${file.name}: ${result.error}`)
      findingsAdapter += result.diagnostics.length
    }
    return now() - started
  }

  // Warm both sides (the worker's engine and this thread's) with one untimed pass each.
  passDirect()
  await passAdapter()
  if (findingsAdapter !== findingsDirect) throw new Error(`the adapter found ${findingsAdapter} problems, the engine ${findingsDirect}`)

  const directMs: number[] = []
  const adapterMs: number[] = []
  for (let round = 0; round < rounds; round++) {
    await settle()
    if (round % 2 === 0) {
      directMs.push(passDirect())
      adapterMs.push(await passAdapter())
    } else {
      adapterMs.push(await passAdapter())
      directMs.push(passDirect())
    }
  }
  await validator.close()

  const direct50 = median(directMs)
  const adapter50 = median(adapterMs)
  const ratio = adapter50 / direct50
  printTable(
    `validate: ${files.length} files per pass, ${rounds} rounds, medians`,
    ['measure', 'per pass', 'per file'],
    [
      ['engine in this thread (reference)', fmtMs(direct50), fmtMs(direct50 / files.length)],
      ['validator (worker thread)', fmtMs(adapter50), fmtMs(adapter50 / files.length)],
      ['first call of a fresh validator', fmtMs(firstCallMs), '-'],
    ],
  )
  console.log(`${findingsDirect} findings per pass on both sides; "first call" = worker start + engine load + first lint`)
  const targets: TargetResult[] = [
    { benchmark: 'validate', name: 'validator (worker) / engine in-thread', ratio, target: '≤ 1.5x', met: ratio <= 1.5 },
    // A figure, not a target: the latency itself is in the name so the summary shows it.
    { benchmark: 'validate', name: `first call (${fmtMs(firstCallMs)}) / one warm validator call`, ratio: firstCallMs / (adapter50 / files.length), target: '-', met: null },
  ]
  console.log(`first-call latency: ${fmtMs(firstCallMs)}`)
  return targets
}

export const validateBenchmark: Benchmark = {
  name: 'validate',
  description: 'workflow.validate through the worker vs the actionlint WASM engine called in-thread',
  run,
}
