import type { RecordedEvent } from './eventLog.js'

/** What a log tells its subscribers: the events that just became durable, in position order. */
export type DurableListener = (events: readonly RecordedEvent[]) => void

/** What `subscribeCatchingUp` needs of a log: its live listeners, its reads, how far is durable, whether it closed. */
export interface SubscriptionSource {
  readonly listeners: Set<DurableListener>
  readAll(after: number, options: { readonly to: number }): AsyncIterable<RecordedEvent>
  durableHead(): number
  closed(): boolean
}

const CATCH_UP_RETRY_MS = 100

/**
 * `EventLog.subscribe` for any store: catch-up by reading from `after` to the durable head, then live delivery of what
 * the store announces, each event exactly once and in order (events that became durable during the catch-up are held
 * and delivered after it, those already seen skipped). A read that fails (a database that cannot be reached or
 * reopened yet) is tried again from the cursor; the handler's own errors are the caller's.
 */
export function subscribeCatchingUp(source: SubscriptionSource, after: number, handler: (event: RecordedEvent) => void | Promise<void>): () => void {
  let stopped = false
  let buffered: RecordedEvent[] = []
  let live = false
  let delivering: Promise<void> = Promise.resolve()
  let cursor = after
  const listener: DurableListener = (events) => {
    if (stopped) return
    if (!live) {
      buffered.push(...events)
      return
    }
    delivering = delivering.then(async () => {
      for (const event of events) {
        if (stopped) return
        if (event.position <= cursor) continue
        cursor = event.position
        await handler(event)
      }
    })
  }
  source.listeners.add(listener)
  void (async () => {
    for (let caughtUp = false; !caughtUp; ) {
      let handling = false
      try {
        for await (const event of source.readAll(cursor, { to: source.durableHead() })) {
          if (stopped) return
          cursor = event.position
          handling = true
          await handler(event)
          handling = false
        }
        caughtUp = true
      } catch (error) {
        if (handling) throw error
        if (stopped || source.closed()) return
        await new Promise((resolve) => setTimeout(resolve, CATCH_UP_RETRY_MS))
      }
    }
    live = true
    const pending = buffered
    buffered = []
    listener(pending)
  })()
  return () => {
    stopped = true
    source.listeners.delete(listener)
  }
}
