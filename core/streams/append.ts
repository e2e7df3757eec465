import type { AppendedBatch, EventInput, EventLog, RecordedEvent } from '../log/eventLog.js'
import { JournalWriteError } from '../log/errors.js'
import type { ExpectedStreamVersion } from '../log/expectedVersion.js'
import { QuireError } from '../errors.js'

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

/** Each stream's events as recorded, and a promise that resolves once they are durable (rejects if they never will be). */
export interface Appended {
  readonly recorded: readonly (readonly RecordedEvent[])[]
  readonly durable: Promise<void>
}

/**
 * The one append path of core: every stream's owner appends through it, inside its stream's step (so nothing else
 * appends to that stream between its decision and the fold). The appends go to the log as one atomic unit (all land
 * or none does), each checked against its expected version; once the log has assigned positions, each stream's
 * events are folded into its owner's state, in the order given.
 */
export async function appendFolded(log: EventLog, appends: readonly FoldingAppend[]): Promise<Appended> {
  let batch: AppendedBatch
  try {
    batch = await log.append(appends.map(({ stream, events, expectedVersion }) => ({ stream, events, expectedStreamVersion: expectedVersion })))
  } catch (error) {
    // A shared log refuses at once while its database cannot be reached: as a write that failed, nothing changed.
    if (error instanceof JournalWriteError) throw new QuireError('JOURNAL_UNAVAILABLE', `the log could not record this change, so nothing was changed: ${error.message}`)
    throw error
  }
  const recorded = batch.streams.map((appended, index) => {
    appends[index]!.fold(appended.events)
    return appended.events
  })
  return { recorded, durable: asJournalRefusal(batch.durable) }
}

/**
 * The log's failure to write, as the refusal every caller of core understands (JOURNAL_UNAVAILABLE: nothing was
 * changed, the log rolled the events back). Marked handled, like the log's own promise: nobody is obliged to wait.
 */
function asJournalRefusal(durable: Promise<void>): Promise<void> {
  const refused = durable.catch((error: unknown) => {
    throw new QuireError('JOURNAL_UNAVAILABLE', `the log could not record this change, so nothing was changed: ${(error as Error).message}`)
  })
  refused.catch(() => {})
  return refused
}
