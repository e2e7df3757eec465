/**
 * The ledger entry shapes the coherence projection reads (VMark coherence format 0, spec §5.3–§5.4, §6).
 *
 * These are the already-validated, already-de-duplicated entries the ledger reader hands over; the projection never
 * parses lines itself. Only the fields the projection consults are typed here: everything else an entry carries
 * (unknown fields, unknown kinds) passes through untouched because the projection never rewrites an entry.
 *
 * Kept as plain structural types so that the reader's zod-inferred types in core/coherence/ fit them as they are.
 */

/**
 * A UUID (object ids, entry ids, writer ids, claim ids, context ids), compared as written: every writer prints the
 * lower-case hyphenated form, and the reader is where a line that does not is refused.
 */
export type Uuid = string

/** `rev1:` + 64 hex digits (spec §2.3). */
export type RevisionId = string

/** `sha256:` + 64 hex digits (spec §3.2). */
export type ContentHash = string

/** The envelope every ledger line carries (spec §5.3), with a body of the kind's shape. */
export interface Envelope<Kind extends string = string, Body = unknown> {
  readonly format: number
  readonly id: Uuid
  readonly kind: Kind
  /** RFC 3339 UTC. */
  readonly time: string
  readonly writer: Uuid
  readonly idem: string
  readonly body: Body
}

export interface InputRef {
  readonly object: Uuid
  readonly revision: RevisionId
  readonly role: 'direct' | 'contextual'
  /** Spec §13.6: absent reads as `dependency`. */
  readonly kind?: string | undefined
}

export interface OutputRef {
  readonly object: Uuid
  readonly revision: RevisionId
  readonly content_hash: ContentHash
  readonly parents: readonly RevisionId[]
}

export interface Agent {
  readonly type: 'human' | 'model' | 'external' | 'git'
  readonly id?: string | undefined
}

export interface TransformationBody {
  readonly inputs: readonly InputRef[]
  readonly outputs: readonly OutputRef[]
  readonly agent: Agent
  readonly intent: { readonly kind: string; readonly summary: string; readonly prompt_hash?: string | undefined }
  readonly confidence: 'exact' | 'inferred' | 'unknown'
}

/** Ratification and waiver share one shape (spec §5.4.3). */
export interface ResolutionBody {
  readonly edge: { readonly txf: Uuid; readonly input: number }
  readonly upstream_object: Uuid
  readonly pinned: RevisionId
  readonly resolved_against: RevisionId
  readonly actor: { readonly type: string; readonly id?: string | undefined }
  readonly reason?: string | undefined
  /** RFC 3339; waivers only. */
  readonly expires?: string | null | undefined
  readonly delegation?: Uuid | undefined
}

export type CheckVerdict = 'no-contradiction' | 'contradiction' | 'unknown'

export interface CheckResultBody {
  readonly edge: { readonly txf: Uuid; readonly input: number }
  readonly pinned: RevisionId
  readonly checked_against: RevisionId
  readonly verdict: CheckVerdict
  /** Revision-1 fields (D5.6): results without them are history only, never projected. */
  readonly context?: Uuid | undefined
  readonly claims_fingerprint?: string | undefined
}

export interface ClaimBody {
  readonly claim: Uuid
  readonly statement: string
  readonly valid_at?: string | null | undefined
  readonly invalid_at?: string | null | undefined
  readonly supersedes?: Uuid | null | undefined
  readonly maturity: string
}

export interface ObjectRegisteredBody {
  readonly object: Uuid
  readonly path: string
  readonly schema?: string | null | undefined
  readonly derived_from?: readonly Uuid[] | undefined
}

export interface DiagnosticBody {
  readonly code?: string | undefined
  readonly message?: string | undefined
  readonly path?: string | undefined
}

export type TransformationEntry = Envelope<'transformation', TransformationBody>
export type RatificationEntry = Envelope<'ratification', ResolutionBody>
export type WaiverEntry = Envelope<'waiver', ResolutionBody>
export type CheckResultEntry = Envelope<'check-result', CheckResultBody>
export type ClaimEntry = Envelope<'claim', ClaimBody>
export type ObjectRegisteredEntry = Envelope<'object-registered', ObjectRegisteredBody>
export type DiagnosticEntry = Envelope<'diagnostic', DiagnosticBody>

/** Any entry: a known kind with its body, or any other kind (navigation, delegation, unknown) with whatever body. */
export type LedgerEntry =
  | TransformationEntry
  | RatificationEntry
  | WaiverEntry
  | CheckResultEntry
  | ClaimEntry
  | ObjectRegisteredEntry
  | DiagnosticEntry
  | Envelope<string, unknown>

export function isTransformation(entry: LedgerEntry): entry is TransformationEntry {
  return entry.kind === 'transformation'
}
export function isResolution(entry: LedgerEntry): entry is RatificationEntry | WaiverEntry {
  return entry.kind === 'ratification' || entry.kind === 'waiver'
}
export function isCheckResult(entry: LedgerEntry): entry is CheckResultEntry {
  return entry.kind === 'check-result'
}
export function isClaim(entry: LedgerEntry): entry is ClaimEntry {
  return entry.kind === 'claim'
}
export function isObjectRegistered(entry: LedgerEntry): entry is ObjectRegisteredEntry {
  return entry.kind === 'object-registered'
}
export function isDiagnostic(entry: LedgerEntry): entry is DiagnosticEntry {
  return entry.kind === 'diagnostic'
}

/**
 * The readers' total order (spec §5.1): by `time`, then by `id`. "Latest" everywhere in the spec means the largest
 * pair in this order, which is what makes every choice independent of file order and segment interleaving.
 *
 * Times compare as strings, as VMark's reader compares them: every writer prints the one fixed form
 * (`2026-07-18T09:30:12.415Z`, UTC, milliseconds), for which string order is time order, and comparing the same way
 * VMark does is what keeps "latest" the same entry in both programs.
 */
export function compareReaderOrder(a: { time: string; id: string }, b: { time: string; id: string }): number {
  if (a.time !== b.time) return a.time < b.time ? -1 : 1
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

/**
 * Whether an RFC 3339 instant (an expiry) lies at or before `now`. Compared as instants, not strings: an expiry is
 * typed by a person (`2026-07-26T00:00:00Z`) and need not share the writers' fixed form. An unparseable expiry counts
 * as passed: a waiver whose end cannot be read must not silence an edge forever.
 */
export function instantHasPassed(instant: string, now: Date): boolean {
  const at = Date.parse(instant)
  return Number.isNaN(at) || at <= now.getTime()
}
