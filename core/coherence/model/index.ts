/**
 * The coherence projection (VMark coherence format 0, spec §6, §9): what the ledger means, as pure functions of its
 * entries, the context manifests and one scan of the workspace. It lives in core, not projections/, because it is the
 * state the coherence commands decide from: a resolution is refused unless its edge is live in the breakdown, and a
 * scan's entries are planned from the reconciliation. Adapters answer `coherence.status`, `edges`, `claims` and
 * `contexts` from `CoherenceProjection` too.
 */
export { CoherenceProjection, type Breakdown, type BreakdownOptions, type BreakdownRow, type ProjectedEdge } from './breakdown.js'
export { ClaimIndex, type ClaimSummary, type CurrentClaim } from './claims.js'
export {
  ContextManifestSchema,
  ContextSet,
  DEFAULT_CONTEXT_ID,
  DEFAULT_CONTEXT_NAME,
  MAX_CONTEXT_CHAIN,
  implicitDefaultContext,
  type ContextManifest,
  type ContextProblem,
  type ContextSummary,
  type ContextView,
  type Selection,
} from './contexts.js'
export { RevisionDag, type RevisionNode } from './dag.js'
export { compareReaderOrder, instantHasPassed, type LedgerEntry } from './entries.js'
export { plannedEntries, reconcile, type GitObservation, type PlannedEntry, type ObservedRevision, type Reconciliation, type Registration, type ScanDiagnostic, type ScannedFile } from './reconcile.js'
export {
  EdgeRecords,
  NON_FRESH_STATES,
  edgeLiveness,
  isFresh,
  originEdges,
  projectEdge,
  resolveSelection,
  type EdgeProjection,
  type EdgeState,
  type JudgingMoment,
  type NonFreshState,
  type NotLive,
  type OriginEdge,
  type Resolved,
} from './staleness.js'
export { DelegationIndex, type DelegationGrant, type DelegationScope, type GrantStanding, type GrantSummary } from './delegations.js'
export { decideResolution, scopeOf, type DecidedResolution, type ResolutionKind, type ResolutionMoment, type ResolutionRequest, type Resolver } from './resolution.js'
