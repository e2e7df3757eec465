import { spawn, type ChildProcess } from 'node:child_process'
import { testStoreEnv } from './testStore.js'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'

/**
 * The repository root, whether this module runs from source (specs/support/cli.ts under vitest) or compiled
 * (dist/specs/support/cli.js).
 */
export const repoRoot: string = (() => {
  const here = fileURLToPath(new URL('../../', import.meta.url))
  return existsSync(join(here, 'package.json')) ? here : fileURLToPath(new URL('../../../', import.meta.url))
})()

/** The compiled `quire` binary (built by `npm run build` / `npx tsc -p .`). */
export const cliPath = join(repoRoot, 'dist', 'adapters', 'cli', 'main.js')

/** A compiled child-process helper from specs/support/ (e.g. `supportScript('crashWriter')`). */
export const supportScript = (name: string): string => join(repoRoot, 'dist', 'specs', 'support', `${name}.js`)

export interface CliResult {
  /** Exit status, or null when the process was killed (then `signal` says by what). */
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
  /** The raw bytes of stdout, for byte-exact comparisons. */
  readonly stdoutBytes: Buffer
  /** True when the process had to be killed because it ran past `timeoutMs`. */
  readonly timedOut: boolean
  readonly milliseconds: number
}

export interface CliOptions {
  /** Passed as `--home DIR` before the command (omit to test QUIRE_HOME and the defaults). */
  readonly home?: string
  /** Replaces the environment (QUIRE_HOME is removed from the inherited one unless given here). */
  readonly env?: NodeJS.ProcessEnv
  readonly cwd?: string
  readonly timeoutMs?: number
}

/** Runs the compiled `quire` CLI and collects its output; never hangs longer than `timeoutMs`. */
export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const argv = options.home === undefined ? [...args] : ['--home', options.home, ...args]
  const { QUIRE_HOME: _ignored, ...inherited } = process.env
  const env = options.env ?? { ...inherited, ...(options.home === undefined ? {} : testStoreEnv(options.home)) }
  return runNode(cliPath, argv, { env, cwd: options.cwd ?? repoRoot, timeoutMs: options.timeoutMs })
}

export function runNode(
  script: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: options.cwd ?? repoRoot,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk))
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, options.timeoutMs ?? 30_000)
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      const stdoutBytes = Buffer.concat(out)
      resolve({
        code,
        signal,
        stdout: stdoutBytes.toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        stdoutBytes,
        timedOut,
        milliseconds: performance.now() - started,
      })
    })
  })
}

/**
 * Calls `onLine` for each complete line the child writes to stdout. A partial last line (the child was killed
 * mid-write) is never delivered.
 */
export function onStdoutLines(child: ChildProcess, onLine: (line: string) => void): void {
  let pending = ''
  child.stdout!.setEncoding('utf8')
  child.stdout!.on('data', (chunk: string) => {
    pending += chunk
    let newline = pending.indexOf('\n')
    while (newline >= 0) {
      const line = pending.slice(0, newline)
      pending = pending.slice(newline + 1)
      if (line.length > 0) onLine(line)
      newline = pending.indexOf('\n')
    }
  })
}
