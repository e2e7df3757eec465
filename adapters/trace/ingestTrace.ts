import { basename, resolve } from 'node:path'
import { Worker } from 'node:worker_threads'
import type { Engine } from '../../core/engine.js'
import type { Actor } from '../../core/events/actor.js'
import type { TraceWorkerInput, TraceWorkerMessage } from './traceWorker.js'

export interface IngestResult {
  readonly docId: string
  readonly events: number
  readonly revision: string
  /** Whether the ingested document's content equals the trace's recorded end content. */
  readonly matchesEndContent: boolean
  readonly milliseconds: number
}

export interface IngestOptions {
  readonly batchSize?: number
  /** Called now and then with the number of updates recorded so far. */
  readonly onProgress?: (recorded: number) => void
}

/**
 * Replays an editing trace into a new document as peer edits: the trace's typists run on a worker thread and send
 * their Yjs updates; each update becomes one durable `document.changed` event (actor `peer`). Resolves once every
 * event is fsync'd and the document is snapshotted.
 */
export async function ingestTrace(engine: Engine, path: string, options: IngestOptions = {}): Promise<IngestResult> {
  const started = performance.now()
  const title = basename(path).replace(/\.json(\.gz)?$/, '')
  const { docId } = await engine.commands.documents.create({
    kind: 'markdown', content: '', path: null, title, origin: 'trace', actor: { kind: 'system' },
  })
  const actor: Actor = { kind: 'peer', peer: `trace:${title}` }
  const input: TraceWorkerInput = { path: resolve(path), batchSize: options.batchSize ?? 256, window: 16 }
  const worker = new Worker(new URL('./traceWorker.js', import.meta.url), { workerData: input })
  let recorded = 0
  let endContent: string | undefined
  const inFlight: Promise<void>[] = []
  try {
    await new Promise<void>((resolveDone, reject) => {
      let chain = Promise.resolve()
      worker.on('error', reject)
      worker.on('exit', (code) => {
        if (endContent === undefined) reject(new Error(`trace worker exited with code ${code}`))
      })
      worker.on('message', (message: TraceWorkerMessage) => {
        chain = chain.then(async () => {
          if (message.type === 'error') throw new Error(message.message)
          if (message.type === 'done') {
            endContent = message.endContent
            resolveDone()
            return
          }
          const bytes = new Uint8Array(message.buffer)
          const updates: Uint8Array[] = []
          let offset = 0
          for (const length of message.lengths) {
            updates.push(bytes.subarray(offset, offset + length))
            offset += length
          }
          const outcome = await engine.commands.documents.applyPeerUpdates(docId, updates, actor)
          recorded += outcome.recorded
          inFlight.push(outcome.durable)
          // Bound the updates waiting for disk; the group committer batches them meanwhile.
          if (inFlight.length > 32) await inFlight.shift()
          worker.postMessage('ack')
          options.onProgress?.(recorded)
        }).catch(reject)
      })
    })
    await Promise.all(inFlight)
  } finally {
    await worker.terminate()
  }
  const state = (await engine.documents.get(docId))!
  await engine.documents.snapshot(state)
  return {
    docId,
    events: recorded,
    revision: state.revision,
    matchesEndContent: state.content === endContent,
    milliseconds: performance.now() - started,
  }
}
