/**
 * The console's Coherence API (types only: the browser bundle imports them too, so the two sides cannot drift): the
 * person's side of the coherence ledger (VMark format 0, TOOLS.md §10–§11) — which derived documents went stale, the
 * person's own resolutions, and the delegations that let one assistant resolve for them. Mounted under
 * `/console/api` behind the console's sign-in; every change is the person's (event actor `user`, ledger actor
 * `{type: "human", id: <git user.name | $USER>}`).
 *
 *   GET  /console/api/coherence/workspaces                          → CoherenceWorkspaces
 *   GET  /console/api/coherence/breakdown?root=ROOT                 → CoherenceBreakdown  (reconciles with the files first)
 *   POST /console/api/coherence/resolve  {root, txf, input, resolution, reason?} → CoherenceResolved
 *   GET  /console/api/coherence/grants?root=ROOT                    → CoherenceGrants
 *   POST /console/api/coherence/grants   {root, delegate, scope, days}           → CoherenceGranted
 *   POST /console/api/coherence/grants/:delegation/revoke {root}    → CoherenceGrants
 *
 * `root` is the absolute path of a workspace open in Quire; omitted, it is the only open one. The same shapes answer
 * `/admin/coherence/*` (the `quire coherence` CLI). Errors are `{error, message}` (ConsoleError): 400 for a bad
 * argument or an unknown workspace (INVALID_ARGUMENT, NOT_A_WORKSPACE, INVALID_WORKSPACE_ROOT), 409 when the ledger's
 * state refuses the change (EDGE_NOT_LIVE, MULTI_HEAD_UPSTREAM, UPSTREAM_UNRESOLVABLE, DELEGATION_REVOKED,
 * FUTURE_FORMAT, WRITE_BUSY). A refusal appends nothing.
 */

/** What a grant may let an assistant do, as the form and the CLI name it. */
export type CoherenceScopeName = 'accept-newer' | 'waive'

/** The only lifetimes a grant may have, in days (7 is the default): a delegation always ends (spec §5.4.7). */
export type GrantDays = 1 | 7 | 30

/** `coherence.status` of one workspace. */
export interface CoherenceStatusView {
  /** Whether the workspace has a `.vmark/` ledger yet (it is made on the first capture, never on open). */
  readonly initialized: boolean
  readonly objects: number
  /** Live non-fresh edges in the default context: what the breakdown lists. */
  readonly open_items: number
  /** Ledger lines that could not be read (kept in `.vmark/quarantine/`). */
  readonly quarantined: number
  /** This installation's writer id. */
  readonly writer: string
}

export interface CoherenceWorkspace {
  readonly root: string
  /** The folder's last path segment. */
  readonly name: string
  readonly status: CoherenceStatusView
}

export interface CoherenceWorkspaces {
  readonly workspaces: readonly CoherenceWorkspace[]
  /** The `trackProvenance` setting: saves are captured into the ledger only while it is on. */
  readonly trackProvenance: boolean
  /** The name resolutions and grants are recorded under. */
  readonly person: string
}

export type CoherenceEdgeState =
  | 'version-stale'
  | 'stale-valid'
  | 'stale-contradicted'
  | 'stale-unknown'
  | 'waived'
  | 'diverged'
  | 'diverged-multi-head'
  | 'unpinnable'

/** One live non-fresh dependency edge: `downstream` was made from `upstream` at `pinned`, which is no longer current. */
export interface CoherenceRow {
  readonly txf: string
  readonly input: number
  readonly state: CoherenceEdgeState
  readonly upstream: string
  readonly upstreamPath: string | null
  /** The upstream revision the downstream was made from. */
  readonly pinned: string
  /** The upstream revision the context selects now (null when there is not exactly one). */
  readonly selected: string | null
  readonly downstream: string
  readonly downstreamPath: string | null
  readonly downstreamRev: string
  /** `direct` (a full read) or `contextual` (a selection). */
  readonly role: 'direct' | 'contextual'
  /** Why an edge is unpinnable, or which heads make it diverged-multi-head. */
  readonly detail: string | null
  /** The absolute path of the downstream file, for Revise (null when the ledger names no path). */
  readonly downstreamFile: string | null
}

export interface CoherenceContextBreakdown {
  readonly id: string
  readonly name: string
  /** The context's manifest could not be used as written (a cycle, too deep): it fell back to the default. */
  readonly degraded: boolean
  readonly errors: readonly string[]
  readonly rows: readonly CoherenceRow[]
}

export interface CoherenceBreakdown {
  readonly root: string
  readonly status: CoherenceStatusView
  /** The default context first (resolutions apply to it), then every other context the workspace's manifests define. */
  readonly contexts: readonly CoherenceContextBreakdown[]
}

export interface CoherenceResolveRequest {
  readonly root?: string
  readonly txf: string
  readonly input: number
  readonly resolution: CoherenceScopeName
  /** Required for `waive`. */
  readonly reason?: string
}

export interface CoherenceResolved {
  readonly receipt: { readonly entryId: string; readonly kind: 'ratification' | 'waiver'; readonly resolvedAgainst: string }
  readonly breakdown: CoherenceBreakdown
}

/** One resolution a grant authorized (the audit). */
export interface CoherenceAuthorized {
  readonly entryId: string
  readonly kind: 'ratification' | 'waiver'
  readonly time: string
  /** The agent that resolved under the grant. */
  readonly actor: string
  readonly txf: string
  readonly input: number
  readonly resolvedAgainst: string
  readonly reason: string | null
}

export interface CoherenceGrant {
  readonly delegation: string
  /** The grant's current entry. */
  readonly entryId: string
  readonly delegate: string
  readonly scope: readonly CoherenceScopeName[]
  readonly expires: string
  readonly grantedBy: string
  readonly standing: 'live' | 'expired' | 'revoked'
  /** Concurrent entries superseding the same one (from another clone): shown, never hidden. */
  readonly conflicts: number
  /** What the grant authorized across its whole supersession chain, oldest first. */
  readonly authorized: readonly CoherenceAuthorized[]
}

export interface CoherenceGrants {
  readonly root: string
  readonly grants: readonly CoherenceGrant[]
  /** Agents with a live token: who a grant can be for. */
  readonly agents: readonly string[]
}

export interface CoherenceGrantRequest {
  readonly root?: string
  readonly delegate: string
  readonly scope: readonly CoherenceScopeName[]
  readonly days: GrantDays
}

export interface CoherenceGranted {
  readonly delegation: string
  readonly entryId: string
  readonly grants: CoherenceGrants
}
