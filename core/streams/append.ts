import type { EventInput, EventStore, RecordedEvent } from '../log/eventStore.js'
import type { ExpectedStreamVersion } from '../log/expectedVersion.js'
import type { FoldedStream } from './foldedStream.js'

/**
 * One stream's share of an append: the events its owner decided on, the stream version the decision was made at
 * (the append is refused with ExpectedVersionConflictError if the stream moved since), and how the owner folds the
 * events into its state once they have positions (its `evolve`).
 */
export interface FoldingAppend {
  readonly stream: string
  readonly events: readonly EventInput[]
  readonly expectedVersion: ExpectedStreamVersion
  fold(recorded: readonly RecordedEvent[]): void
}

/** The stream's events as recorded, and a promise that resolves once they are durable. */
export interface Appended {
  readonly recorded: readonly (readonly RecordedEvent[])[]
  readonly durable: Promise<void>
}

/**
 * The one append path of core: every stream's owner appends through it. The appends go to the log as one atomic
 * write (all land or none does), each checked against its expected version, and each stream's events are folded into
 * its owner's state in the same synchronous step, so no other append can come between a decision, its append and
 * its fold. Every stream's head must already be loaded (owners load their state, and with it the head, first).
 */
export function appendFolded(log: EventStore, appends: readonly FoldingAppend[]): Appended {
  const enqueued = log.enqueueAtomic(
    appends.map(({ stream, events, expectedVersion }) => ({ stream, events, expectedStreamVersion: expectedVersion })),
  )
  const recorded = enqueued.map((result, index) => {
    appends[index]!.fold(result.events)
    return result.events
  })
  return { recorded, durable: enqueued[0]!.durable }
}

/** A FoldingAppend into a folded stream's own state, decided at the version that state has folded. */
export function viewAppend<State>(view: FoldedStream<State>, events: readonly EventInput[]): FoldingAppend {
  return { stream: view.stream, events, expectedVersion: view.streamVersion, fold: (recorded) => view.apply(recorded) }
}

/** Appends events to a folded stream and folds them in; resolves once durable. */
export async function appendToView<State>(log: EventStore, view: FoldedStream<State>, events: EventInput[]): Promise<void> {
  await appendFolded(log, [viewAppend(view, events)]).durable
}
