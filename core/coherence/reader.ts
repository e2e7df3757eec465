/**
 * What a ledger says, from the lines of all its segments (VMark coherence format 0, spec §5.1, §5.3, §5.6): each line
 * judged, malformed ones set aside for quarantine, lines of a newer format counted, the rest de-duplicated by `idem`
 * (the smallest (`time`, `id`) stays) and put in reader order. Pure: the result depends on the set of lines only, not
 * on their order in a segment nor on which segment holds them.
 */
import { createHash } from 'node:crypto'
import { compareEntryOrder, parseLedgerLine, type LedgerEntry, type LineVerdict } from './entries.js'
import type { SegmentLine } from './lines.js'
import { rfc3339Nanoseconds } from './time.js'
import { uuidFromDigest } from './uuid.js'

/** A line set aside (spec §5.6): where it was, why, and the text the quarantine file receives. */
export interface QuarantinedLine {
  /** The segment's file name, e.g. `0198….jsonl`. */
  readonly segment: string
  /** 1-based line number in the segment. */
  readonly line: number
  readonly reason: string
  /** The raw line as text (invalid UTF-8 replaced), or a placeholder for a line too long to keep. */
  readonly raw: string
  /** The `idem` of the diagnostic entry for this line: a digest of segment and line content, the same on every read. */
  readonly diagnosticIdem: string
}

export interface LedgerRead {
  /** De-duplicated by `idem`, in reader order (time, then id). */
  readonly entries: readonly LedgerEntry[]
  /** Malformed lines, by segment name then line number. */
  readonly quarantined: readonly QuarantinedLine[]
  /** Lines of a format newer than this build: skipped (not corruption), and while any exist we write nothing. */
  readonly futureFormat: number
  /** Valid lines dropped because an entry with the same `idem` came first in reader order. */
  readonly duplicates: number
  /** The segment file names read, sorted. */
  readonly segments: readonly string[]
}

export interface SegmentLines {
  readonly name: string
  readonly lines: Iterable<SegmentLine>
}

/** Placeholder written to quarantine instead of a line longer than the read bound. */
export const OVERSIZED_PLACEHOLDER = '<oversized line elided>'

const strictUtf8 = new TextDecoder('utf-8', { fatal: true })
const lenientUtf8 = new TextDecoder('utf-8')

/** Judges one line's bytes. Invalid UTF-8 is malformed. */
export function judgeLineBytes(bytes: Uint8Array): LineVerdict {
  let text: string
  try {
    text = strictUtf8.decode(bytes)
  } catch {
    return { status: 'malformed', reason: 'invalid UTF-8' }
  }
  return parseLedgerLine(text)
}

/** Spec §5.6: a digest of segment and line content, as a UUID (the idem field's shape). */
export function quarantineDiagnosticIdem(segment: string, raw: string): string {
  const digest = createHash('sha256').update('quarantine\n').update(segment).update('\n').update(raw).digest()
  return uuidFromDigest(digest)
}

/** Accumulates segments into a `LedgerRead`; feed every segment, then `finish`. */
export class LedgerReadBuilder {
  private readonly byIdem = new Map<string, LedgerEntry>()
  private readonly quarantined: QuarantinedLine[] = []
  private readonly segments: string[] = []
  private futureFormat = 0
  private validLines = 0

  /** Takes one line of `segment`. Empty lines (a terminated torn tail leaves none, but hand edits may) are skipped. */
  addLine(segment: string, line: SegmentLine): void {
    if (line.status === 'oversized') {
      this.quarantine(segment, line.number, 'line longer than the read bound', OVERSIZED_PLACEHOLDER)
      return
    }
    if (line.bytes.length === 0) return
    const verdict = judgeLineBytes(line.bytes)
    if (verdict.status === 'future-format') {
      this.futureFormat += 1
      return
    }
    if (verdict.status === 'malformed') {
      this.quarantine(segment, line.number, verdict.reason, lenientUtf8.decode(line.bytes))
      return
    }
    this.validLines += 1
    const entry = verdict.entry
    const kept = this.byIdem.get(entry.idem)
    if (kept === undefined || compareEntryOrder(entry, kept) < 0) this.byIdem.set(entry.idem, entry)
  }

  addSegment(segment: SegmentLines): void {
    this.segments.push(segment.name)
    for (const line of segment.lines) this.addLine(segment.name, line)
  }

  /** Records that a segment was read (when its lines were fed one by one with `addLine`). */
  noteSegment(name: string): void {
    this.segments.push(name)
  }

  finish(): LedgerRead {
    const entries = inReaderOrder(this.byIdem.values())
    const quarantined = [...this.quarantined].sort((a, b) => (a.segment !== b.segment ? (a.segment < b.segment ? -1 : 1) : a.line - b.line))
    return {
      entries,
      quarantined,
      futureFormat: this.futureFormat,
      duplicates: this.validLines - entries.length,
      segments: [...this.segments].sort(),
    }
  }

  private quarantine(segment: string, line: number, reason: string, raw: string): void {
    this.quarantined.push({ segment, line, reason, raw, diagnosticIdem: quarantineDiagnosticIdem(segment, raw) })
  }
}

/**
 * `compareEntryOrder`'s order, with each entry's instant parsed once instead of twice per comparison (a sort of
 * 200,000 entries makes millions of comparisons; parsing the RFC 3339 text in each was most of the read's sort).
 */
function inReaderOrder(entries: Iterable<LedgerEntry>): LedgerEntry[] {
  const list = [...entries]
  const byId = (a: LedgerEntry, b: LedgerEntry) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  // Every writer prints one form (`formatEntryTime`: UTC, milliseconds, `Z`), whose text order is its instant order;
  // only a ledger with other spellings needs the instants parsed.
  if (list.every((entry) => isWritersForm(entry.time))) return list.sort((a, b) => (a.time !== b.time ? (a.time < b.time ? -1 : 1) : byId(a, b)))
  const keyed = list.map((entry) => ({ entry, at: rfc3339Nanoseconds(entry.time) ?? 0n }))
  keyed.sort((a, b) => (a.at !== b.at ? (a.at < b.at ? -1 : 1) : byId(a.entry, b.entry)))
  return keyed.map(({ entry }) => entry)
}

/**
 * `2026-07-18T09:30:12.415Z`: fixed width, UTC. Judged by shape alone because every time here was already read as
 * RFC 3339 by the line's validation, and of those only this form has a `T` at 10, a `.` at 19 and a `Z` at 23 in 24
 * characters (a three-digit fraction, no offset).
 */
function isWritersForm(time: string): boolean {
  return time.length === 24 && time.charCodeAt(10) === 0x54 && time.charCodeAt(19) === 0x2e && time.charCodeAt(23) === 0x5a
}

/** The meaning of a set of segments, each given whole. */
export function readSegments(segments: Iterable<SegmentLines>): LedgerRead {
  const builder = new LedgerReadBuilder()
  for (const segment of segments) builder.addSegment(segment)
  return builder.finish()
}

/** Spec §5.6: the quarantine file text for one line — a `# line N, reason` comment, then the raw line. */
export function quarantineRecordText(line: Pick<QuarantinedLine, 'line' | 'reason' | 'raw'>): string {
  const reason = line.reason.replace(/[\r\n]+/g, ' ')
  return `# line ${line.line}, ${reason}\n${line.raw}\n`
}
