/**
 * A worker that speaks the WASM engine's worker protocol (adapters/actionlint/wasmProtocol.ts) and misbehaves on
 * request, to test how the engine's owner survives its worker. Started compiled, with `workerData` naming how it
 * loads: `load-fails` (says `loadFailed`), `exits-early` (exits before `ready`), `never-ready`, or `fine`.
 * Once ready it answers a lint request by the source's content: `CRASH` throws (an uncaught error kills the worker),
 * `EXIT` exits with code 5, `HANG` spins forever; anything else is answered with no findings.
 */
import { parentPort, workerData } from 'node:worker_threads'
import type { LintRequest, WorkerMessage } from '../../adapters/actionlint/wasmProtocol.js'

const port = parentPort!
const send = (message: WorkerMessage): void => port.postMessage(message)
const mode = workerData as 'load-fails' | 'exits-early' | 'never-ready' | 'fine'

if (mode === 'load-fails') {
  send({ type: 'loadFailed', message: 'main.wasm is not there (on purpose)' })
  process.exit(1)
}
if (mode === 'exits-early') process.exit(7)
if (mode === 'fine') send({ type: 'ready', version: '0.0.0-faulty' })

port.on('message', ({ id, source }: LintRequest) => {
  if (source.includes('CRASH')) throw new Error('the faulty worker crashed (on purpose)')
  if (source.includes('EXIT')) process.exit(5)
  if (source.includes('HANG')) for (;;);
  send({ type: 'result', id, findings: [] })
})
