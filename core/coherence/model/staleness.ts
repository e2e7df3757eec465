import {
  compareReaderOrder,
  instantHasPassed,
  isTransformation,
  type CheckResultEntry,
  type LedgerEntry,
  type RatificationEntry,
  type RevisionId,
  type Uuid,
  type WaiverEntry,
} from './entries.js'
import type { RevisionDag } from './dag.js'
import type { ContextView } from './contexts.js'

/**
 * The context-relative staleness algorithm of spec §9.2: the state of one origin edge under one context, computed
 * from the revision DAG, the edge's resolution records and its check results. Nothing here is stored; every state is
 * a projection (spec §9.2, I5).
 */

/**
 * The state of a live edge. `fresh`, `fresh-ratified` and `fresh-ahead` are the three faces of Fresh; the other eight
 * are the non-fresh states `coherence.edges` lists (COH.EDGES.4).
 */
export type EdgeState =
  | 'fresh'
  | 'fresh-ratified'
  | 'fresh-ahead'
  | 'version-stale'
  | 'stale-valid'
  | 'stale-contradicted'
  | 'stale-unknown'
  | 'waived'
  | 'diverged'
  | 'diverged-multi-head'
  | 'unpinnable'

export const NON_FRESH_STATES = [
  'version-stale',
  'stale-valid',
  'stale-contradicted',
  'stale-unknown',
  'waived',
  'diverged',
  'diverged-multi-head',
  'unpinnable',
] as const satisfies readonly EdgeState[]
export type NonFreshState = (typeof NON_FRESH_STATES)[number]

export function isFresh(state: EdgeState): state is 'fresh' | 'fresh-ratified' | 'fresh-ahead' {
  return state === 'fresh' || state === 'fresh-ratified' || state === 'fresh-ahead'
}

/**
 * One origin edge: input `input` of transformation `txf` (upstream `upstream` pinned at `pinned`) feeding output
 * `downstream@downstreamRev`. A transformation with several outputs has one edge per input per output; `(txf, input)`
 * names the resolution target and `(txf, input, downstream, downstreamRev)` the physical edge (spec §13.5).
 */
export interface OriginEdge {
  readonly txf: Uuid
  readonly input: number
  readonly upstream: Uuid
  readonly pinned: RevisionId
  readonly downstream: Uuid
  readonly downstreamRev: RevisionId
  readonly role: 'direct' | 'contextual'
  /** Spec §13.6; `dependency` when the input names none. */
  readonly kind: string
}

/** Every origin edge the transformations record, in no particular order. */
export function originEdges(entries: Iterable<LedgerEntry>): OriginEdge[] {
  const edges: OriginEdge[] = []
  for (const entry of entries) {
    if (!isTransformation(entry)) continue
    entry.body.inputs.forEach((input, index) => {
      for (const output of entry.body.outputs) {
        edges.push({
          txf: entry.id,
          input: index,
          upstream: input.object,
          pinned: input.revision,
          downstream: output.object,
          downstreamRev: output.revision,
          role: input.role,
          kind: input.kind ?? 'dependency',
        })
      }
    })
  }
  return edges
}

/** What `resolve(C, U)` of spec §9.2 gives: one revision, no single revision (multi-head), or nothing to place. */
export type Resolved =
  | { readonly kind: 'revision'; readonly revision: RevisionId }
  | { readonly kind: 'multi-head'; readonly heads: readonly RevisionId[] }
  | { readonly kind: 'unpinnable'; readonly reason: string }

/**
 * `resolve(C, U)` (spec §9.2): the context's selection for the object after the parent walk; `live` means the DAG
 * head, and a live object with two or more heads has no single revision (`DIVERGED_HEADS`).
 *
 * Two cases the spec's pseudo-code leaves open are `unpinnable` here: a context pin naming a revision this object
 * never had, and a live object with no revision at all (its history lives in a segment this ledger does not hold).
 * Neither can be compared with anything, so no stale / fresh answer would be honest.
 */
export function resolveSelection(context: ContextView, object: Uuid, dag: RevisionDag): Resolved {
  const selection = context.selection(object)
  if (selection.kind === 'pinned') {
    if (dag.hasRevision(object, selection.revision)) return { kind: 'revision', revision: selection.revision }
    return { kind: 'unpinnable', reason: `context ${context.name} pins ${object} at ${selection.revision}, a revision that object never had` }
  }
  const heads = dag.readonlyHeads(object)
  const [only] = heads
  if (heads.length === 1 && only !== undefined) return { kind: 'revision', revision: only }
  if (heads.length === 0) return { kind: 'unpinnable', reason: `${object} has no revision in this ledger` }
  return { kind: 'multi-head', heads: [...heads] }
}

/** Resolution records (ratifications, waivers) and check results, grouped by the `(txf, input)` they are about. */
export class EdgeRecords {
  // By transformation, then input: no key string is built per lookup (a breakdown looks up every live edge).
  private readonly resolutions = new Map<Uuid, Map<number, Array<RatificationEntry | WaiverEntry>>>()
  private readonly checks = new Map<Uuid, Map<number, CheckResultEntry[]>>()

  constructor(entries: Iterable<LedgerEntry>) {
    for (const entry of entries) {
      if (entry.kind === 'ratification' || entry.kind === 'waiver') {
        const resolution = entry as RatificationEntry | WaiverEntry
        push(this.resolutions, resolution.body.edge.txf, resolution.body.edge.input, resolution)
      } else if (entry.kind === 'check-result') {
        const check = entry as CheckResultEntry
        push(this.checks, check.body.edge.txf, check.body.edge.input, check)
      }
    }
  }

  resolutionsOf(txf: Uuid, input: number): ReadonlyArray<RatificationEntry | WaiverEntry> {
    return this.resolutions.get(txf)?.get(input) ?? NONE
  }

  checksOf(txf: Uuid, input: number): readonly CheckResultEntry[] {
    return this.checks.get(txf)?.get(input) ?? NONE
  }
}

const NONE: readonly never[] = Object.freeze([])

function push<T>(map: Map<Uuid, Map<number, T[]>>, txf: Uuid, input: number, value: T): void {
  let byInput = map.get(txf)
  if (byInput === undefined) {
    byInput = new Map()
    map.set(txf, byInput)
  }
  const list = byInput.get(input)
  if (list === undefined) byInput.set(input, [value])
  else list.push(value)
}

/** Why an edge is not projected at all (it is historical or not a dependency). */
export type NotLive =
  | 'contextual-input'
  | 'not-a-dependency'
  | 'self-edge'
  | 'downstream-superseded'
  | 'downstream-multi-head'
  | 'downstream-unresolvable'

/**
 * Edge liveness (spec §9.2 "Decisions fixed here"): an edge is projected iff it is a dependency edge and its
 * downstream revision is what the context resolves the downstream object to. Edges of superseded downstream
 * revisions are history — that is how *revise* resolves an edge. A multi-head downstream has no revision the edge
 * could equal, so its edges are suppressed (the divergence shows where that object is an upstream).
 *
 * Two exclusions the spec states elsewhere: a `contextual` input creates no edge (§7), and neither does an input of a
 * non-dependency kind (§13.6: only dependency edges propagate staleness; TOOLS.md COH.STATUS.4 counts "dependency
 * edges"). A third is ours: an input naming the output's own object (the genie-rewrite shape of §7 example 1) is the
 * revision's own parent, not an upstream — projected, it would call every such revision stale against itself.
 */
export function edgeLiveness(edge: OriginEdge, context: ContextView, dag: RevisionDag): NotLive | 'live' {
  if (edge.role !== 'direct') return 'contextual-input'
  if (edge.kind !== 'dependency') return 'not-a-dependency'
  if (edge.upstream === edge.downstream) return 'self-edge'
  const downstream = resolveSelection(context, edge.downstream, dag)
  if (downstream.kind === 'multi-head') return 'downstream-multi-head'
  if (downstream.kind === 'unpinnable') return 'downstream-unresolvable'
  return downstream.revision === edge.downstreamRev ? 'live' : 'downstream-superseded'
}

/** The state of one live edge, with what it was judged against (for the resolve receipt and the panel). */
export interface EdgeProjection {
  readonly state: EdgeState
  /** The upstream revision the context selects, when there is exactly one. */
  readonly selected: RevisionId | null
  /** The resolution record the state comes from (`fresh-ratified`, `waived`). */
  readonly resolution: Uuid | null
  /** The live check result the state comes from (`stale-valid`, `stale-contradicted`, `stale-unknown`). */
  readonly check: Uuid | null
  /** Why the edge is `unpinnable`, or which heads make it `diverged-multi-head`. */
  readonly detail: string | null
}

/** What the projection of one edge needs besides the edge: the context's claim feed and the moment of judging. */
export interface JudgingMoment {
  /** `ClaimIndex.fingerprint(context.visibleClaims)`: check results recorded against another feed are not live. */
  readonly claimsFingerprint: string
  /** Waiver expiry is judged against this instant. */
  readonly now: Date
}

/**
 * `project(E, C)` of spec §9.2 for a live edge. Returns null when the edge is not live (see `edgeLiveness`).
 *
 * Resolution precedence: of the records for this `(txf, input)` whose `resolved_against` is the current selection,
 * the latest in reader order decides. A ratification makes the edge fresh, an unexpired waiver waives it; an expired
 * waiver decides nothing and the edge falls through to the version comparison. Records bound to any other revision
 * are history (spec §5.4.3: an upstream advance re-opens the edge).
 */
export function projectEdge(
  edge: OriginEdge,
  context: ContextView,
  dag: RevisionDag,
  records: EdgeRecords,
  moment: JudgingMoment,
): EdgeProjection | null {
  if (edgeLiveness(edge, context, dag) !== 'live') return null
  const resolved = resolveSelection(context, edge.upstream, dag)
  if (resolved.kind === 'multi-head') {
    return { state: 'diverged-multi-head', selected: null, resolution: null, check: null, detail: `${edge.upstream} has ${resolved.heads.length} live heads: ${resolved.heads.join(', ')}` }
  }
  if (resolved.kind === 'unpinnable') return { state: 'unpinnable', selected: null, resolution: null, check: null, detail: resolved.reason }
  const selected = resolved.revision

  const decisive = records
    .resolutionsOf(edge.txf, edge.input)
    .filter((record) => record.body.resolved_against === selected)
    .sort(compareReaderOrder)
    .at(-1)
  if (decisive !== undefined) {
    if (decisive.kind === 'ratification') return { state: 'fresh-ratified', selected, resolution: decisive.id, check: null, detail: null }
    const expires = decisive.body.expires
    if (expires === undefined || expires === null || !instantHasPassed(expires, moment.now)) {
      return { state: 'waived', selected, resolution: decisive.id, check: null, detail: null }
    }
  }

  const pinned = edge.pinned
  if (pinned === selected) return { state: 'fresh', selected, resolution: null, check: null, detail: null }
  if (dag.isStrictAncestor(edge.upstream, pinned, selected)) {
    const verdict = liveCheck(edge, selected, context, records, moment)
    if (verdict === undefined) return { state: 'version-stale', selected, resolution: null, check: null, detail: null }
    const state = verdict.body.verdict === 'no-contradiction' ? 'stale-valid' : verdict.body.verdict === 'contradiction' ? 'stale-contradicted' : 'stale-unknown'
    return { state, selected, resolution: null, check: verdict.id, detail: null }
  }
  if (dag.hasRevision(edge.upstream, pinned)) {
    if (dag.isStrictAncestor(edge.upstream, selected, pinned)) return { state: 'fresh-ahead', selected, resolution: null, check: null, detail: null }
    return { state: 'diverged', selected, resolution: null, check: null, detail: `${pinned} and ${selected} are incomparable` }
  }
  // The pin is a revision the upstream's recorded history does not contain and cannot reach: not "incomparable"
  // (nothing was compared) but unplaceable.
  return { state: 'unpinnable', selected, resolution: null, check: null, detail: `the edge pins ${edge.upstream} at ${pinned}, a revision this ledger does not hold` }
}

/**
 * The latest live check result for the pair under comparison (spec §5.4.4, D5.6): same pinned and checked-against
 * revisions, recorded under this context, against the claim feed this context would feed now. Results without the
 * revision-1 fields are history only.
 */
function liveCheck(edge: OriginEdge, selected: RevisionId, context: ContextView, records: EdgeRecords, moment: JudgingMoment): CheckResultEntry | undefined {
  return records
    .checksOf(edge.txf, edge.input)
    .filter(
      (check) =>
        check.body.pinned === edge.pinned &&
        check.body.checked_against === selected &&
        typeof check.body.context === 'string' &&
        check.body.context === context.id &&
        check.body.claims_fingerprint === moment.claimsFingerprint &&
        (check.body.verdict === 'no-contradiction' || check.body.verdict === 'contradiction' || check.body.verdict === 'unknown'),
    )
    .sort(compareReaderOrder)
    .at(-1)
}
