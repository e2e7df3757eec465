import { CoherenceRefusal } from '../refusal.js'
import type { CoherenceProjection } from './breakdown.js'
import { DEFAULT_CONTEXT_ID } from './contexts.js'
import type { DelegationIndex, DelegationScope } from './delegations.js'
import type { ResolutionBody, Uuid } from './entries.js'
import { isFresh, resolveSelection } from './staleness.js'

/**
 * The decision of `coherence_resolve.resolve` and of the person's accept-newer / waive in the console (spec §5.4.3,
 * §5.4.7, §9.2; TOOLS.md COHR.RESOLVE.1–5): a pure function of the projection, the delegations and the request. It
 * returns the resolution entry's kind and body, or throws the refusal; it never appends.
 */

export type ResolutionKind = 'accept-newer' | 'waive'

/** Who resolves: an MCP connection's authenticated principal (null: anonymous), or the person. */
export type Resolver = { readonly kind: 'agent'; readonly principal: string | null } | { readonly kind: 'human'; readonly id: string }

export interface ResolutionRequest {
  readonly txf: Uuid
  readonly input: number
  readonly resolution: ResolutionKind
  readonly reason?: string | undefined
}

export interface DecidedResolution {
  readonly kind: 'ratification' | 'waiver'
  readonly body: ResolutionBody
}

export interface ResolutionMoment {
  readonly now: Date
  /** Objects the last scan did not find: their edges are hidden, so not live. */
  readonly absent?: ReadonlySet<Uuid>
  readonly context?: Uuid
}

export const scopeOf = (resolution: ResolutionKind): DelegationScope => (resolution === 'accept-newer' ? 'resolve.accept-newer' : 'resolve.waive')

export function decideResolution(
  projection: CoherenceProjection,
  delegations: DelegationIndex,
  request: ResolutionRequest,
  resolver: Resolver,
  moment: ResolutionMoment,
): DecidedResolution {
  const reason = request.reason?.trim()
  if (request.resolution === 'waive' && (reason === undefined || reason === '')) {
    throw new CoherenceRefusal('invalid-argument', 'reason (string) is required when resolution is "waive"')
  }
  const delegation = resolver.kind === 'agent' ? authorize(delegations, resolver.principal, scopeOf(request.resolution), moment.now) : undefined

  const options = { now: moment.now, ...(moment.absent ? { absent: moment.absent } : {}), ...(moment.context ? { context: moment.context } : {}) }
  const live = projection.liveEdgesOf(request.txf, request.input, options).filter(({ projection: edge }) => !isFresh(edge.state))
  const [first] = live
  if (first === undefined) {
    throw new CoherenceRefusal('edge-not-live', `edge ${request.txf}#${request.input} is not live (historical, fresh, or suppressed); list coherence.edges again`)
  }
  const { edge } = first
  const selected = resolveSelection(projection.contexts.view(moment.context ?? DEFAULT_CONTEXT_ID), edge.upstream, projection.dag)
  if (selected.kind === 'multi-head') {
    throw new CoherenceRefusal(
      'multi-head-upstream',
      'upstream has multiple live heads — no single revision to resolve against (spec §9.2); revise or pin a head first',
    )
  }
  if (selected.kind === 'unpinnable') throw new CoherenceRefusal('upstream-unresolvable', `upstream object is not resolvable in this context: ${selected.reason}`)

  const actor = resolver.kind === 'agent' ? { type: 'agent' as const, id: resolver.principal as string } : { type: 'human' as const, id: resolver.id }
  const body: ResolutionBody = {
    edge: { txf: edge.txf, input: edge.input },
    upstream_object: edge.upstream,
    pinned: edge.pinned,
    resolved_against: selected.revision,
    actor,
    ...(reason !== undefined && reason !== '' ? { reason } : {}),
    ...(delegation === undefined ? {} : { delegation }),
  }
  return { kind: request.resolution === 'accept-newer' ? 'ratification' : 'waiver', body }
}

/** COHR.RESOLVE.3–4: the grant that lets this principal resolve, or the refusal that says which part is missing. */
function authorize(delegations: DelegationIndex, principal: string | null, scope: DelegationScope, now: Date): Uuid {
  if (principal === null) {
    throw new CoherenceRefusal('anonymous', `no live delegation authorizes an anonymous connection for ${scope}: connect with an agent token (quire agent add NAME) and ask the person to grant it`)
  }
  const grant = delegations.liveFor(principal, scope, now)
  if (grant !== undefined) return grant.delegation
  const covering = delegations.grantsOf(principal).filter((candidate) => candidate.chain.some((entry) => entry.body.scope.includes(scope)))
  const standings = covering.map((candidate) => delegations.standing(candidate, now))
  if (standings.includes('expired')) {
    throw new CoherenceRefusal('delegation-expired', `the delegation authorizing "${principal}" for ${scope} has expired; ask the person to grant it again`)
  }
  if (standings.includes('revoked')) {
    throw new CoherenceRefusal('delegation-revoked', `the delegation authorizing "${principal}" for ${scope} was revoked by the person`)
  }
  throw new CoherenceRefusal('no-delegation', `no live delegation authorizes "${principal}" for ${scope}; ask the person to grant one in the console's Coherence panel`)
}
