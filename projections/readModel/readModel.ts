import type { RecordedEvent } from '../../core/log/eventLog.js'

/** What a fold reads and writes: its store as this batch of events leaves it (its own writes included). */
export interface FoldContext {
  get(key: string): Promise<Uint8Array | undefined>
  put(key: string, value: Uint8Array): void
  delete(key: string): void
}

/**
 * A read model folded from the log: it turns events into entries of its own store. It keeps nothing in memory
 * between events: whatever it needs to fold the next event (a write waiting for its outcome, a typing session still
 * open) it reads back from its store. So the store at a checkpoint is all there is to it, where batches end cannot
 * change what it holds, and a process that dies between batches resumes from the last checkpoint exactly
 * (specs/property/readModels.test.ts holds every model to that).
 */
export interface ReadModel {
  readonly name: string
  /** The layout of what it stores; a store written in another layout is cleared and the model rebuilt. */
  readonly format: number
  fold(event: RecordedEvent, context: FoldContext): Promise<void> | void
}
