import { createHash } from 'node:crypto'
import { compareReaderOrder, isClaim, type ClaimEntry, type LedgerEntry, type Uuid } from './entries.js'

/**
 * Claims — bi-temporal canon facts (spec §5.4.5) — as far as the projection needs them: which entry is current for a
 * claim id, which claims a context feeds to semantic checks, and the fingerprint of that feed that decides whether a
 * check result is still live (spec §5.4.4, design-2a D5.6).
 */

/** The current entry of one claim id, and whether rival supersessions left more than one candidate. */
export interface CurrentClaim {
  readonly claim: Uuid
  readonly entry: ClaimEntry
  /** The other unsuperseded entries of this claim id (concurrent supersessions: surfaced, never hidden). */
  readonly rivals: readonly ClaimEntry[]
}

/** The `coherence.claims` row (COH.CLAIMS.1). */
export interface ClaimSummary {
  readonly claim: Uuid
  readonly entryId: Uuid
  readonly statement: string
  readonly maturity: 'draft' | 'established'
  readonly invalidAt: string | null
  readonly visible: boolean
}

export class ClaimIndex {
  private readonly current = new Map<Uuid, CurrentClaim>()

  constructor(entries: Iterable<LedgerEntry>) {
    const byClaim = new Map<Uuid, ClaimEntry[]>()
    const superseded = new Set<Uuid>()
    for (const entry of entries) {
      if (!isClaim(entry)) continue
      const claim = entry.body.claim
      const list = byClaim.get(claim) ?? []
      list.push(entry)
      byClaim.set(claim, list)
      if (typeof entry.body.supersedes === 'string') superseded.add(entry.body.supersedes)
    }
    for (const [claim, list] of byClaim) {
      // Current = the entry no other entry supersedes; of several, the latest in reader order (spec §5.4.5).
      const candidates = list.filter((entry) => !superseded.has(entry.id)).sort(compareReaderOrder)
      const chosen = candidates.at(-1)
      // Every entry superseded (a supersession cycle, malformed): the claim has no current entry and feeds nothing.
      if (chosen === undefined) continue
      this.current.set(claim, { claim, entry: chosen, rivals: candidates.slice(0, -1) })
    }
  }

  currentClaims(): CurrentClaim[] {
    return [...this.current.values()].sort((a, b) => (a.claim < b.claim ? -1 : a.claim > b.claim ? 1 : 0))
  }

  currentOf(claim: Uuid): CurrentClaim | undefined {
    return this.current.get(claim)
  }

  /**
   * The claims fed to semantic checks under a context whose effective visible claims are `visible` (spec §5.4.5 feed
   * rule): established, visible, transaction-current, and not ended in the story world. Sorted by claim id. An
   * unknown maturity is draft: an unrecognized state must never gain the power to constrain.
   */
  fedClaims(visible: readonly Uuid[]): CurrentClaim[] {
    const wanted = new Set(visible)
    return this.currentClaims().filter(
      ({ claim, entry }) => wanted.has(claim) && entry.body.maturity === 'established' && (entry.body.invalid_at === undefined || entry.body.invalid_at === null),
    )
  }

  /**
   * SHA-256 over the sorted (claim id, current entry id) pairs of the feed, `sha256:`-prefixed; the empty feed hashes
   * the empty string (spec §5.4.4). Each pair is written `claim=entry\n`, lower-case hyphenated UUIDs, as VMark
   * writes it, so that a check result VMark recorded stays live here and the other way round.
   */
  fingerprint(visible: readonly Uuid[]): string {
    const hash = createHash('sha256')
    for (const { claim, entry } of this.fedClaims(visible)) hash.update(`${claim}=${entry.id}\n`)
    return `sha256:${hash.digest('hex')}`
  }

  /** The `coherence.claims` answer, `visible` meaning visible in the given (default) context's effective claims. */
  summaries(visibleInDefault: readonly Uuid[]): ClaimSummary[] {
    const visible = new Set(visibleInDefault)
    return this.currentClaims().map(({ claim, entry }) => ({
      claim,
      entryId: entry.id,
      statement: entry.body.statement,
      maturity: entry.body.maturity === 'established' ? 'established' : 'draft',
      invalidAt: entry.body.invalid_at ?? null,
      visible: visible.has(claim),
    }))
  }
}
