import { ExpectedVersionConflictError } from './errors.js'

/**
 * Optimistic concurrency for `appendToStream`, in Emmett's shape: an exact version (the number of events the
 * stream holds, so 0 means "empty"), or one of three sentinels.
 */
export const STREAM_EXISTS = 'STREAM_EXISTS'
export const STREAM_DOES_NOT_EXIST = 'STREAM_DOES_NOT_EXIST'
export const NO_CONCURRENCY_CHECK = 'NO_CONCURRENCY_CHECK'

export type ExpectedStreamVersion =
  | number
  | typeof STREAM_EXISTS
  | typeof STREAM_DOES_NOT_EXIST
  | typeof NO_CONCURRENCY_CHECK

/** Throws ExpectedVersionConflictError unless `actual` satisfies `expected`. */
export function assertExpectedVersion(stream: string, expected: ExpectedStreamVersion, actual: number): void {
  const ok =
    expected === NO_CONCURRENCY_CHECK ||
    (expected === STREAM_EXISTS && actual > 0) ||
    (expected === STREAM_DOES_NOT_EXIST && actual === 0) ||
    expected === actual
  if (!ok) throw new ExpectedVersionConflictError(stream, String(expected), actual)
}
