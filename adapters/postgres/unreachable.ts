import { EventStoreError } from '../../core/log/errors.js'

/**
 * Errors that say the PostgreSQL server cannot be reached or is not serving (restarting, shutting down, the
 * connection cut), as opposed to errors about a statement. These are the ones worth answering with "try again
 * later": the same statement succeeds once the server is back.
 */
const UNREACHABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOENT', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND'])

/** SQLSTATEs of a server going away or refusing sessions: class 08 (connection exception), shutdowns, overload. */
const UNREACHABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300'])

/** What pg says (as plain Errors) when a connection ends under it or cannot be made in time. */
const UNREACHABLE_MESSAGES = [/^Connection terminated/, /^timeout exceeded when trying to connect/, /^Client has encountered a connection error/, /^Client was closed/]

export function isUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && (UNREACHABLE_NODE_CODES.has(code) || UNREACHABLE_SQLSTATES.has(code) || code.startsWith('08'))) return true
  return UNREACHABLE_MESSAGES.some((pattern) => pattern.test(error.message))
}

/**
 * A read (or snapshot) that needed the database while it could not be reached. Nothing is lost: the same read
 * succeeds once PostgreSQL is back, and what this node holds in memory (stream heads, appends not yet committed) is
 * still served.
 */
export class LogUnreachableError extends EventStoreError {
  constructor(operation: string, cause: unknown) {
    super('LOG_UNREACHABLE', `the PostgreSQL log cannot be reached, so ${operation} failed; it works again once the database is back (${(cause as Error).message})`, { cause })
  }
}

/** `error` as LogUnreachableError when it says the database is unreachable; otherwise `error` itself. */
export function asUnreachable(operation: string, error: unknown): unknown {
  return isUnreachable(error) ? new LogUnreachableError(operation, error) : error
}
