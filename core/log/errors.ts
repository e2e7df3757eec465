/** Errors of the event store. Each carries a stable `code` so adapters can map them without `instanceof`. */

export class EventStoreError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = new.target.name
  }
}

/** An append named an expected stream version that is not the stream's current version (Emmett's 412). */
export class ExpectedVersionConflictError extends EventStoreError {
  constructor(
    readonly stream: string,
    readonly expected: string,
    readonly actual: number,
  ) {
    super('VERSION_CONFLICT', `stream ${stream} is at version ${actual}, expected ${expected}`)
  }
}

/** Another process holds the data directory's LevelDB lock. */
export class DataDirLockedError extends EventStoreError {
  constructor(
    readonly location: string,
    readonly ownerPid: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(
      'DATA_DIR_LOCKED',
      `the data directory ${location} is in use by another Quire process` +
        (ownerPid === undefined ? '' : ` (pid ${ownerPid})`) +
        '; stop it or choose another directory with --home or QUIRE_HOME',
      options,
    )
  }
}

/** An event type, at a schema version, that a log holds and the reader's registry cannot read. */
export interface UnreadableEvents {
  readonly type: string
  readonly v: number
  /** The newest version of `type` the reader reads; undefined when it does not know the type at all. */
  readonly readsUpTo: number | undefined
}

/**
 * The log holds events this Quire cannot read (a newer Quire wrote them), so it was not opened: reading on would skip
 * them and writing on would build on a log this Quire does not know whole. Nothing in the log was changed.
 */
export class LogTooNewError extends EventStoreError {
  constructor(
    /** Where the log is, as the message names it (`the log in DIR`). */
    readonly log: string,
    readonly unreadable: readonly UnreadableEvents[],
  ) {
    const what = unreadable.map(({ type, v, readsUpTo }) =>
      `${type} v${v} (${readsUpTo === undefined ? 'a type this Quire does not know' : `this Quire reads up to v${readsUpTo}`})`,
    )
    super(
      'LOG_TOO_NEW',
      `${log} holds ${what.join(', ')}, written by a newer Quire, so this one does not open it (nothing in it was changed): ` +
        'go on with that newer Quire, or restore a backup taken before the upgrade (README: "Going back to an older Quire")',
    )
  }
}

/** The store was closed (or never opened) when an operation was attempted. */
export class StoreClosedError extends EventStoreError {
  constructor() {
    super('STORE_CLOSED', 'the event store is closed')
  }
}

/**
 * A batch of appends could not be written to the log for good: its `durable` promise, and those of every append
 * queued behind it (whose positions come after it), reject with this error, and the log forgets them: the
 * positions they held are handed to later appends, and every stream they touched is back at its durable head.
 *
 * While the store stays open, a failed event never shows up in the log (the store reopens its database and removes
 * any half-confirmed leftover before the next write). Only if the process stops before the disk recovers can an
 * event whose fsync failed after its bytes reached the file turn up on the next open: the disk's answer was
 * ambiguous. An append that was only queued behind a failed batch is never written.
 */
export class JournalWriteError extends EventStoreError {
  constructor(
    /** The first position that was rolled back; every append from it on failed. */
    readonly firstPosition: number,
    /**
     * Why: the disk kept refusing the write (`write-failed`), an earlier batch failed and this append was queued
     * behind it (`behind-failed-batch`), or the log was closed before the write was confirmed (`closed`). After
     * `closed`, an append whose write was under way (a disk too slow for the close timeout) may still be in the log
     * when it is next opened; one that was only queued is not.
     */
    readonly reason: 'write-failed' | 'behind-failed-batch' | 'closed',
    options?: { cause?: unknown },
  ) {
    const why =
      reason === 'write-failed'
        ? `the disk kept refusing the write${describeCause(options?.cause)}`
        : reason === 'behind-failed-batch'
          ? 'an earlier write to the log failed'
          : 'the log was closed before the write was confirmed'
    super('JOURNAL_WRITE_FAILED', `the log could not record events from position ${firstPosition} on: ${why}`, options)
  }
}

function describeCause(cause: unknown): string {
  return cause instanceof Error ? ` (${cause.message})` : ''
}

/** An argument that can never be valid (empty stream name, NUL in a name, no events, ...). */
export class InvalidAppendError extends EventStoreError {
  constructor(message: string) {
    super('INVALID_APPEND', message)
  }
}

export function isExpectedVersionConflict(error: unknown): error is ExpectedVersionConflictError {
  return error instanceof ExpectedVersionConflictError
}
