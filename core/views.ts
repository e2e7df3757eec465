import type { EventInput, EventStore } from './log/eventStore.js'
import type { FoldedStream } from '../projections/foldedStream.js'

/**
 * Appends events to a folded view's stream and folds them in, in one synchronous step; resolves once durable.
 * The view's head is loaded at start-up, so the append needs no await before it.
 */
export async function appendToView<State>(store: EventStore, view: FoldedStream<State>, events: EventInput[]): Promise<void> {
  const enqueued = store.enqueue(view.stream, events)
  view.apply(enqueued.events)
  await enqueued.durable
}
