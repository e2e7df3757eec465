import type { EventLog, RecordedEvent } from '../../core/log/eventLog.js'
import { DOCUMENT_STREAM_PREFIX, docIdOfStream } from '../../core/documents/events.js'

/** Called for each content event of a document, once it is durable, in log order. */
export type DeliverUpdate = (docId: string, update: Uint8Array, event: RecordedEvent) => void

/**
 * The only way document changes reach peers: one subscription to the log, so a change travels to peers only once it
 * is on disk (DESIGN §3: never an ack before fsync), and every kind of change travels the same road: a peer's
 * keystroke, an MCP write, a reload from disk, another connection's edit. Events arrive in log order; peers get
 * each update as it was recorded.
 *
 * It also says when a position is durable, for answers computed from the live document (a SyncStep2 may include
 * changes still being written; it is held back until they are on disk).
 */
export class LogFanout {
  /** Answers waiting for the log to be durable up to `position`, in request order. */
  private waiters: { readonly position: number; readonly run: () => void }[] = []
  private readonly unsubscribe: () => void

  constructor(
    private readonly store: EventLog,
    private readonly deliver: DeliverUpdate,
  ) {
    // From the head: no room is open yet, so nothing before it concerns anyone. Live delivery starts here.
    this.unsubscribe = store.subscribe(store.headPosition, (event) => this.durable(event))
  }

  /** Runs `run` once every event up to `position` is durable (at once if they already are). */
  whenDurable(position: number, run: () => void): void {
    if (position <= this.store.durableHeadPosition) run()
    else this.waiters.push({ position, run })
  }

  close(): void {
    this.unsubscribe()
    this.waiters = []
  }

  private durable(event: RecordedEvent): void {
    if (this.waiters.length > 0) this.release(event.position)
    if (!event.stream.startsWith(DOCUMENT_STREAM_PREFIX)) return
    if (event.type !== 'document.changed' && event.type !== 'document.created') return
    const update = (event.data as { readonly update?: unknown }).update
    if (!(update instanceof Uint8Array)) return
    this.deliver(docIdOfStream(event.stream), update, event)
  }

  private release(position: number): void {
    const ready = this.waiters.filter((waiter) => waiter.position <= position)
    if (ready.length === 0) return
    this.waiters = this.waiters.filter((waiter) => waiter.position > position)
    for (const waiter of ready) waiter.run()
  }
}
