/**
 * New ledger entries in the envelope of VMark coherence format 0 (spec §5.1, §5.3): a fresh UUIDv7 `id`, the time
 * in the writers' fixed form, our writer id, and an `idem` that belongs to the logical operation (a retry passes the
 * first attempt's `idem` again, so readers collapse the two).
 */
import { FORMAT_VERSION, type BodyOfKind, type Envelope, type KnownKind } from './entries.js'
import type { QuarantinedLine } from './reader.js'
import { formatEntryTime } from './time.js'
import { newUuidV7 } from './uuid.js'

export interface EntryOrigin {
  /** Our writer id. */
  readonly writer: string
  /** The operation's idem; a fresh UUIDv7 when this is the operation's first attempt. */
  readonly idem?: string
  /** Defaults to a fresh UUIDv7. */
  readonly id?: string
  /** Defaults to now. */
  readonly at?: Date
}

export function composeEntry<K extends KnownKind>(kind: K, body: BodyOfKind[K], origin: EntryOrigin): Envelope<K, BodyOfKind[K]> {
  return {
    format: FORMAT_VERSION,
    id: origin.id ?? newUuidV7(),
    kind,
    time: formatEntryTime(origin.at ?? new Date()),
    writer: origin.writer,
    idem: origin.idem ?? newUuidV7(),
    body,
  }
}

/**
 * Spec §5.6 step 3: the diagnostic entry for a quarantined line, its `idem` the digest of segment and line content,
 * so reading the same bad line again (by us or by VMark's rule) never adds a second one. Appending it is the caller's
 * choice: `coherence.status` must stay read-only, `coherence.edges` may append.
 */
export function quarantineDiagnostic(line: QuarantinedLine, origin: Omit<EntryOrigin, 'idem'>): Envelope<'diagnostic', BodyOfKind['diagnostic']> {
  return composeEntry(
    'diagnostic',
    { code: 'quarantined-line', message: `line ${line.line} of ${line.segment} was quarantined: ${line.reason}`, path: `.vmark/ledger/${line.segment}` },
    { ...origin, idem: line.diagnosticIdem },
  )
}
