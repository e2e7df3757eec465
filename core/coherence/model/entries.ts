/**
 * The ledger entries the coherence projection reads: the types of core/coherence/entries.ts (VMark coherence format 0,
 * spec §5.3–§5.4), which the reader hands over validated, de-duplicated by `idem`, with UUIDs in lower case.
 *
 * The projection never parses a line itself and never rewrites an entry, so unknown kinds and fields pass through it
 * untouched. This module adds only what the projection needs on top: narrowing guards and the two time comparisons.
 */
import {
  compareEntryOrder,
  type CheckResultEntry,
  type ClaimEntry,
  type DelegationEntry,
  type DiagnosticEntry,
  type LedgerEntry,
  type ObjectRegisteredEntry,
  type RatificationEntry,
  type TransformationEntry,
  type WaiverEntry,
} from '../entries.js'
import { rfc3339Nanoseconds } from '../time.js'

export type {
  CheckResultBody,
  CheckResultEntry,
  ClaimBody,
  ClaimEntry,
  DelegationBody,
  DelegationEntry,
  DiagnosticBody,
  DiagnosticEntry,
  Envelope,
  InputRef,
  LedgerEntry,
  ObjectRegisteredBody,
  ObjectRegisteredEntry,
  OutputRef,
  RatificationEntry,
  ResolutionBody,
  TransformationBody,
  TransformationEntry,
  WaiverEntry,
} from '../entries.js'

/**
 * A UUID (object ids, entry ids, claim ids, context ids), compared as written: the reader hands every id on in lower
 * case, and context manifests are expected in the same form.
 */
export type Uuid = string

/** `rev1:` + 64 hex digits (spec §2.3). */
export type RevisionId = string

/** `sha256:` + 64 hex digits (spec §3.2). */
export type ContentHash = string

export type CheckVerdict = 'no-contradiction' | 'contradiction' | 'unknown'

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
 * The readers' total order (spec §5.1): by the instant `time` names, then by `id` — the reader's own comparison, so
 * that "latest" here is the same entry the reader's de-duplication ranks last. Every choice of "the latest record"
 * in the projection goes through it, which is what makes the projection independent of file order.
 */
export const compareReaderOrder: (a: { readonly time: string; readonly id: string }, b: { readonly time: string; readonly id: string }) => number = compareEntryOrder

/**
 * Whether an RFC 3339 instant (an expiry) lies at or before `now`. An unreadable expiry counts as passed: a waiver
 * whose end cannot be read must not silence an edge forever (the reader refuses such lines; this is defence).
 */
export function instantHasPassed(instant: string, now: Date): boolean {
  const at = rfc3339Nanoseconds(instant)
  return at === undefined || at <= BigInt(now.getTime()) * 1_000_000n
}
export function isDelegation(entry: LedgerEntry): entry is DelegationEntry {
  return entry.kind === 'delegation'
}
