import type { EventInput, EventStore, RecordedEvent } from './log/eventStore.js'
import type { FoldedStream } from './streams/foldedStream.js'

/** Events for one stream, and how to fold them into the in-memory state that stream feeds once they have positions. */
export interface FoldingAppend {
  readonly stream: string
  readonly events: readonly EventInput[]
  fold(recorded: readonly RecordedEvent[]): void
}

/** A FoldingAppend into a folded view's own stream. */
export function viewAppend<State>(view: FoldedStream<State>, events: readonly EventInput[]): FoldingAppend {
  return { stream: view.stream, events, fold: (recorded) => view.apply(recorded) }
}

/**
 * Appends to several streams as one atomic write and folds each stream's events into its state, in one synchronous
 * step (so nothing can come between the append and the fold); the returned promise resolves once durable. Every
 * stream's head must already be loaded, so nothing awaits before the append: a check made just before it still holds.
 */
export function enqueueFolded(store: EventStore, appends: readonly FoldingAppend[]): Promise<void> {
  const enqueued = store.enqueueAtomic(appends.map(({ stream, events }) => ({ stream, events })))
  enqueued.forEach((result, index) => appends[index]!.fold(result.events))
  return enqueued[0]!.durable
}

/** Appends events to a folded view's stream and folds them in; resolves once durable. */
export async function appendToView<State>(store: EventStore, view: FoldedStream<State>, events: EventInput[]): Promise<void> {
  await enqueueFolded(store, [viewAppend(view, events)])
}
