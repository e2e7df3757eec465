import { parentPort, workerData } from 'node:worker_threads'
import { readTrace } from './traceFile.js'
import { traceUpdates } from './tracePeers.js'

/**
 * The typing peers of a trace ingest, on their own thread as real peers would be on their own machines. Posts
 * batches of updates (packed into one transferred buffer) and keeps at most `window` batches unacknowledged.
 */
export interface TraceWorkerInput {
  readonly path: string
  readonly batchSize: number
  readonly window: number
}

export type TraceWorkerMessage =
  | { readonly type: 'batch'; readonly buffer: ArrayBuffer; readonly lengths: Uint32Array }
  | { readonly type: 'done'; readonly endContent: string; readonly count: number }
  | { readonly type: 'error'; readonly message: string }

const port = parentPort!
const input = workerData as TraceWorkerInput
let credits = input.window
let resume: (() => void) | undefined
port.on('message', () => {
  credits++
  resume?.()
})

async function post(batch: Uint8Array[]): Promise<void> {
  while (credits === 0) await new Promise<void>((resolve) => (resume = resolve))
  credits--
  const lengths = Uint32Array.from(batch, (update) => update.length)
  const packed = new Uint8Array(lengths.reduce((sum, length) => sum + length, 0))
  let offset = 0
  for (const update of batch) {
    packed.set(update, offset)
    offset += update.length
  }
  port.postMessage({ type: 'batch', buffer: packed.buffer, lengths } satisfies TraceWorkerMessage, [packed.buffer])
}

try {
  const trace = await readTrace(input.path)
  let batch: Uint8Array[] = []
  let count = 0
  for (const update of traceUpdates(trace)) {
    batch.push(update)
    count++
    if (batch.length === input.batchSize) {
      await post(batch)
      batch = []
    }
  }
  if (batch.length > 0) await post(batch)
  port.postMessage({ type: 'done', endContent: trace.endContent, count } satisfies TraceWorkerMessage)
} catch (error) {
  port.postMessage({ type: 'error', message: (error as Error).message } satisfies TraceWorkerMessage)
}
