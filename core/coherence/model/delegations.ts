import { compareReaderOrder, instantHasPassed, isDelegation, isResolution, type DelegationEntry, type LedgerEntry, type RatificationEntry, type Uuid, type WaiverEntry } from './entries.js'

/**
 * Delegations (spec §5.4.7, revision 2): a person's grants that let one authenticated agent resolve edges. Entries of
 * one grant share its stable `delegation` id and supersede one another like claims: the current entry is the one no
 * other names in `supersedes` (of rivals, the latest in reader order, the rest surfaced); an empty scope on the current
 * entry is a revocation. What a grant authorized is the resolutions naming it, across its whole chain.
 */

export type DelegationScope = 'resolve.accept-newer' | 'resolve.waive'

/** Why a grant does not authorize anything now. */
export type GrantStanding = 'live' | 'expired' | 'revoked'

export interface DelegationGrant {
  /** The stable grant id. */
  readonly delegation: Uuid
  /** The current entry: what the grant says now. */
  readonly current: DelegationEntry
  /** Every entry of the grant, oldest first in reader order. */
  readonly chain: readonly DelegationEntry[]
  /** Other unsuperseded entries of this grant (concurrent supersessions), surfaced, never hidden. */
  readonly rivals: readonly DelegationEntry[]
}

/** A grant as the console and `quire coherence grants` list it. */
export interface GrantSummary {
  readonly delegation: Uuid
  readonly entryId: Uuid
  readonly delegate: string
  readonly scope: readonly string[]
  readonly expires: string
  readonly grantedBy: string
  readonly standing: GrantStanding
  readonly conflicts: number
  /** The resolutions this grant authorized, across its supersession chain. */
  readonly authorized: number
}

export class DelegationIndex {
  private readonly grants = new Map<Uuid, DelegationGrant>()
  private readonly resolutionsByGrant = new Map<Uuid, Array<RatificationEntry | WaiverEntry>>()

  constructor(entries: Iterable<LedgerEntry>) {
    const byGrant = new Map<Uuid, DelegationEntry[]>()
    const superseded = new Set<Uuid>()
    for (const entry of entries) {
      if (isDelegation(entry)) {
        const list = byGrant.get(entry.body.delegation) ?? []
        list.push(entry)
        byGrant.set(entry.body.delegation, list)
        if (typeof entry.body.supersedes === 'string') superseded.add(entry.body.supersedes)
      } else if (isResolution(entry) && typeof entry.body.delegation === 'string') {
        const list = this.resolutionsByGrant.get(entry.body.delegation) ?? []
        list.push(entry)
        this.resolutionsByGrant.set(entry.body.delegation, list)
      }
    }
    for (const [delegation, list] of byGrant) {
      const chain = [...list].sort(compareReaderOrder)
      const candidates = chain.filter((entry) => !superseded.has(entry.id))
      const current = candidates.at(-1)
      // Every entry superseded (a cycle, malformed): the grant authorizes nothing, fail-closed.
      if (current === undefined) continue
      this.grants.set(delegation, { delegation, current, chain, rivals: candidates.slice(0, -1) })
    }
  }

  grant(delegation: Uuid): DelegationGrant | undefined {
    return this.grants.get(delegation)
  }

  all(): DelegationGrant[] {
    return [...this.grants.values()].sort((a, b) => compareReaderOrder(a.chain[0]!, b.chain[0]!))
  }

  standing(grant: DelegationGrant, now: Date): GrantStanding {
    if (grant.current.body.scope.length === 0) return 'revoked'
    return instantHasPassed(grant.current.body.expires, now) ? 'expired' : 'live'
  }

  /**
   * The live grant authorizing `principal` for `scope` now, fail-closed (spec §5.4.7): current, unexpired, not revoked,
   * the scope listed, the delegate the principal itself. A grant with rival current entries authorizes only if the
   * one chosen does (the conflict is surfaced in the console). With several live grants, the one expiring last.
   */
  liveFor(principal: string, scope: DelegationScope, now: Date): DelegationGrant | undefined {
    let chosen: DelegationGrant | undefined
    for (const grant of this.grants.values()) {
      const body = grant.current.body
      if (body.delegate.id !== principal || !body.scope.includes(scope) || this.standing(grant, now) !== 'live') continue
      if (chosen === undefined || body.expires > chosen.current.body.expires) chosen = grant
    }
    return chosen
  }

  /** Every grant naming `principal`, whatever its standing: to say why none authorizes a call. */
  grantsOf(principal: string): DelegationGrant[] {
    return this.all().filter((grant) => grant.current.body.delegate.id === principal)
  }

  /** The resolutions a grant authorized (its audit), oldest first. */
  authorizedBy(delegation: Uuid): Array<RatificationEntry | WaiverEntry> {
    return [...(this.resolutionsByGrant.get(delegation) ?? [])].sort(compareReaderOrder)
  }

  summaries(now: Date): GrantSummary[] {
    return this.all().map((grant) => ({
      delegation: grant.delegation,
      entryId: grant.current.id,
      delegate: grant.current.body.delegate.id,
      scope: [...grant.current.body.scope],
      expires: grant.current.body.expires,
      grantedBy: grant.current.body.actor.id,
      standing: this.standing(grant, now),
      conflicts: grant.rivals.length,
      authorized: this.authorizedBy(grant.delegation).length,
    }))
  }
}
