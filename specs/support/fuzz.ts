import fc from 'fast-check'

/**
 * The fast-check parameters every property in specs/ runs with.
 *
 * - `npm test` / `npx vitest run`: the fixed seed below, so a run is the same run on every machine and a red test is
 *   red again when rerun.
 * - `QUIRE_FUZZ=1`: a fresh seed per test file (each vitest worker imports this module once) and `FUZZ_FACTOR` times
 *   the runs, to look for new counterexamples. `QUIRE_FUZZ_RUNS=N` sets every property's run count to N instead (for
 *   a focused run of one file, e.g. `QUIRE_FUZZ=1 QUIRE_FUZZ_RUNS=2000 npx vitest run specs/property/markdown.test.ts`).
 *
 * A failing property prints `{ seed: S, path: "P", endOnFailure: true }` with its counterexample. To replay it:
 * `QUIRE_FUZZ_SEED=S npx vitest run <file>` (with the same QUIRE_FUZZ / QUIRE_FUZZ_RUNS) runs the same inputs again
 * and fails the same way; to jump straight to the shrunk counterexample, pass `fuzzParameters({ ..., seed: S, path:
 * 'P' })` to that one `fc.assert` while debugging. A counterexample found this way is then kept as an explicit
 * example test (see specs/unit/markdown.regressions.test.ts), so it is checked on every run whatever the seed.
 */

/** The seed of ordinary runs. */
export const FIXED_SEED = 20261201

/** How many times the usual runs a `QUIRE_FUZZ=1` run makes. */
export const FUZZ_FACTOR = 5

const FRESH = process.env['QUIRE_FUZZ'] === '1'

function integerFromEnv(name: string): number | undefined {
  const value = process.env[name]
  if (value === undefined || value === '') return undefined
  const parsed = Number(value)
  if (!Number.isSafeInteger(parsed)) throw new Error(`${name} must be an integer, got ${JSON.stringify(value)}`)
  return parsed
}

const SEED_OVERRIDE = integerFromEnv('QUIRE_FUZZ_SEED')
const RUNS_OVERRIDE = integerFromEnv('QUIRE_FUZZ_RUNS')
if (RUNS_OVERRIDE !== undefined && RUNS_OVERRIDE < 1) throw new Error(`QUIRE_FUZZ_RUNS must be at least 1, got ${RUNS_OVERRIDE}`)

/** The seed of this process: the fixed one, a replayed one, or (under QUIRE_FUZZ=1) a fresh 32-bit one. */
export const FUZZ_SEED: number = SEED_OVERRIDE ?? (FRESH ? (Date.now() ^ Math.floor(Math.random() * 0x1_0000_0000)) | 0 : FIXED_SEED)

/** fast-check's own default, the run count of a property that names none. */
const DEFAULT_RUNS = 100

/** A property's run count as this run scales it. */
export function fuzzRuns(numRuns = DEFAULT_RUNS): number {
  if (RUNS_OVERRIDE !== undefined) return RUNS_OVERRIDE
  return FRESH ? numRuns * FUZZ_FACTOR : numRuns
}

/**
 * Parameters for one `fc.assert`: the property's own (`numRuns`, `endOnFailure`, …) with this run's seed and scaled
 * run count. `verbose: 1` lists the failures met while shrinking, next to the seed and path fast-check always prints.
 * An explicit `seed` (or `path`) in `extra` wins: that is how a single counterexample is replayed.
 */
export function fuzzParameters<Ts = unknown>(extra: fc.Parameters<Ts> = {}): fc.Parameters<Ts> {
  return { verbose: 1, seed: FUZZ_SEED, ...extra, numRuns: fuzzRuns(extra.numRuns) }
}

/**
 * The same as the global default, for properties that do not call `fuzzParameters` (the vitest setup file installs
 * it), so none of them runs unseeded.
 */
export function configureFuzzing(): void {
  fc.configureGlobal({ ...fc.readConfigureGlobal(), verbose: 1, seed: FUZZ_SEED, numRuns: fuzzRuns() })
}

/**
 * The default test timeout of a fuzz run, or undefined for an ordinary one. More runs take longer, and a search for
 * counterexamples should not be cut short by the budget of the fixed run: `QUIRE_FUZZ=1` scales the default (60 s,
 * vitest.config.ts) by `FUZZ_FACTOR`, and `QUIRE_FUZZ_RUNS` lifts it (0: no limit), the run count being the caller's
 * choice. Tests that name their own timeout keep it.
 */
export function fuzzTestTimeout(configured = 60_000): number | undefined {
  if (RUNS_OVERRIDE !== undefined) return 0
  return FRESH ? configured * FUZZ_FACTOR : undefined
}

/** One line naming the seed of a QUIRE_FUZZ or replay run, so a run that fails outside fast-check can be replayed too. */
export function fuzzBanner(): string | undefined {
  if (!FRESH && SEED_OVERRIDE === undefined) return undefined
  return `fast-check seed ${FUZZ_SEED}${RUNS_OVERRIDE === undefined ? (FRESH ? ` (runs ×${FUZZ_FACTOR})` : '') : ` (${RUNS_OVERRIDE} runs each)`}; replay with QUIRE_FUZZ_SEED=${FUZZ_SEED}`
}
