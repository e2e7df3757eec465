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

/** The store was closed (or never opened) when an operation was attempted. */
export class StoreClosedError extends EventStoreError {
  constructor() {
    super('STORE_CLOSED', 'the event store is closed')
  }
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
