import { createHash } from 'node:crypto'
import { EventStoreError } from '../../core/log/errors.js'
import type { EventLog, RecordedEvent, StreamHead } from '../../core/log/eventLog.js'
import { encodeChunk } from '../../core/log/record.js'
import type { PostgresEventLog } from './postgresEventLog.js'

/** A migration that was not started, or whose copy does not match its source: nothing is left half-claimed as done. */
export class MigrationRefusedError extends EventStoreError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('MIGRATION_REFUSED', message, options)
  }
}

/** What a log holds, as the migration compares it on both sides. */
export interface LogSummary {
  readonly events: number
  readonly head: number
  /** Every stream with events, and its head. */
  readonly heads: ReadonlyMap<string, StreamHead>
  /** SHA-256 over every event in position order: its position and its record (type, v, stream, version, at, actor, data). */
  readonly sha256: string
}

/** Events per imported transaction. */
const IMPORT_PAGE = 1_000

/**
 * Copies every event of `source` into `target`, which must be empty, at the same positions, stream versions, schema
 * versions, times and actors, with the payloads as stored (both logs should be opened with a VerbatimRegistry).
 * Each page is durable before the next is read. Returns how many events were copied.
 */
export async function copyLog(source: EventLog, target: PostgresEventLog): Promise<number> {
  if (target.headPosition > 0) {
    throw new MigrationRefusedError(`the PostgreSQL log (schema ${target.schema}) already holds ${target.headPosition} events: migrate copies into an empty log only; nothing was copied`)
  }
  let copied = 0
  let page: RecordedEvent[] = []
  const flush = async () => {
    if (page.length === 0) return
    await (await target.importRecorded(page)).durable
    copied += page.length
    page = []
  }
  try {
    for await (const event of source.readAll(0)) {
      page.push(event)
      if (page.length >= IMPORT_PAGE) await flush()
    }
    await flush()
  } catch (error) {
    throw new MigrationRefusedError(
      `the copy stopped after ${copied} events: ${(error as Error).message}; the target holds those ${copied}: drop its schema (DROP SCHEMA ${target.schema} CASCADE) before migrating again`,
      { cause: error },
    )
  }
  return copied
}

/** Reads all of `log` and sums it up (see LogSummary). */
export async function summarizeLog(log: EventLog): Promise<LogSummary> {
  const hash = createHash('sha256')
  const position = Buffer.alloc(8)
  let events = 0
  let head = 0
  for await (const { position: at, ...stored } of log.readAll(0)) {
    position.writeBigUInt64BE(BigInt(at))
    hash.update(position)
    hash.update(encodeChunk([stored]))
    events++
    head = at
  }
  const heads = new Map<string, StreamHead>()
  for await (const { stream, head: streamHead } of log.streams()) heads.set(stream, streamHead)
  return { events, head, heads, sha256: hash.digest('hex') }
}

/** How two summaries differ, one line per difference; empty when they are the same log. */
export function differences(source: LogSummary, target: LogSummary): string[] {
  const found: string[] = []
  if (source.events !== target.events) found.push(`events: ${source.events} in the source, ${target.events} in the target`)
  if (source.head !== target.head) found.push(`head position: ${source.head} in the source, ${target.head} in the target`)
  if (source.heads.size !== target.heads.size) found.push(`streams: ${source.heads.size} in the source, ${target.heads.size} in the target`)
  for (const [stream, head] of source.heads) {
    const other = target.heads.get(stream)
    if (!other) found.push(`stream ${stream} is missing from the target`)
    else if (other.version !== head.version || other.position !== head.position) {
      found.push(`stream ${stream}: version ${head.version} at ${head.position} in the source, version ${other.version} at ${other.position} in the target`)
    }
  }
  for (const stream of target.heads.keys()) if (!source.heads.has(stream)) found.push(`stream ${stream} is in the target only`)
  if (source.sha256 !== target.sha256) found.push(`event hash: ${source.sha256} in the source, ${target.sha256} in the target`)
  return found
}
