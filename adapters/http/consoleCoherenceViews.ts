import { basename, join } from 'node:path'
import { z } from 'zod'
import { USER } from '../../core/events/actor.js'
import { CoherenceRefusal } from '../../core/coherence/refusal.js'
import { DEFAULT_CONTEXT_ID, isFresh, type CoherenceProjection, type ProjectedEdge } from '../../core/coherence/model/index.js'
import type { LedgerEntry } from '../../core/coherence/entries.js'
import type { DelegationScope, GrantSummary } from '../../core/coherence/model/delegations.js'
import { personName } from '../host/personName.js'
import type { Services } from '../host/services.js'
import type {
  CoherenceAuthorized, CoherenceBreakdown, CoherenceContextBreakdown, CoherenceEdgeState, CoherenceGrant, CoherenceGrants,
  CoherenceRow, CoherenceScopeName, CoherenceStatusView, CoherenceWorkspaces, GrantDays,
} from './consoleCoherenceApi.js'

/**
 * The person's side of coherence, translated for the wire (contract in consoleCoherenceApi.ts): what the console's
 * Coherence panel, `/admin/coherence/*` and the `quire coherence` CLI (when no daemon runs) all answer from the core's
 * `services.coherence`. No rule of the ledger is decided here: which edges are stale, whether a grant is live, what a
 * resolution may do are the core's; this file picks the workspace, names the person, and shapes the answers.
 */

const DAY_MS = 24 * 60 * 60 * 1000

const scopeName = z.enum(['accept-newer', 'waive'])
const grantDays = z.union([z.literal(1), z.literal(7), z.literal(30)])
const root = z.string().min(1).optional()

/** The bodies the console and `/admin/coherence` accept: strict, so a misspelt field is refused, not ignored. */
export const ResolveBodySchema = z.strictObject({
  root,
  txf: z.string().min(1),
  input: z.number().int().nonnegative(),
  resolution: scopeName,
  reason: z.string().optional(),
})
export const GrantBodySchema = z.strictObject({
  root,
  delegate: z.string().min(1),
  scope: z.array(scopeName).min(1).max(2),
  days: grantDays,
})
export const RevokeBodySchema = z.strictObject({ root })

/**
 * The workspace a call is about: the one it names (which must be open in Quire, COH.GEN.5–6), or the only open one
 * when it names none.
 */
export async function chosenRoot(services: Services, named: string | undefined): Promise<string> {
  if (named !== undefined && named !== '') return services.coherence.workspaceRoot(named)
  const roots = services.engine.views.workspace.state.workspaceRoots
  if (roots.length === 1) return roots[0]!
  if (roots.length === 0) throw new CoherenceRefusal('not-a-workspace', 'no workspace is open in Quire (open one with `quire serve --workspace DIR`)')
  throw new CoherenceRefusal('invalid-argument', `${roots.length} workspaces are open: name one (${roots.join(', ')})`)
}

/** Every open workspace with its ledger's status (read-only: nothing is scanned or appended). */
export async function workspacesView(services: Services): Promise<CoherenceWorkspaces> {
  const roots = services.engine.views.workspace.state.workspaceRoots
  const workspaces = await Promise.all(roots.map(async (each) => ({ root: each, name: basename(each) || each, status: statusView(await services.coherence.status(each)) })))
  return {
    workspaces,
    trackProvenance: services.settings.state.trackProvenance === true,
    person: await personName(roots[0]),
  }
}

/**
 * The breakdown (spec §9.2) after a reconcile with the files (§9.4, which may append what the scan saw): every live
 * non-fresh edge, per context — the default first (the one resolutions apply to), then the others the workspace's
 * manifests define, judged at the same moment. The default context's header carries the manifests that failed to load.
 */
/** The console polls every few seconds; scanning a large workspace that often would be all the daemon does. */
const CONSOLE_SCAN_AGE_MS = 30_000

export async function breakdownView(services: Services, workspace: string): Promise<CoherenceBreakdown> {
  const { rows, projection, moment } = await services.coherence.liveEdges(workspace, USER, { scanAgeMs: CONSOLE_SCAN_AGE_MS })
  const status = statusView(await services.coherence.status(workspace))
  const contexts = projection.contextSummaries().map((summary): CoherenceContextBreakdown => {
    const view = projection.contexts.view(summary.id)
    const primary = summary.id === DEFAULT_CONTEXT_ID
    const edges = primary ? rows : projection.liveEdges({ ...moment, context: summary.id })
    const loadProblems = primary ? projection.contexts.loadProblems.map((problem) => `${problem.context}: ${problem.reason}`) : []
    return {
      id: view.id,
      name: view.name,
      degraded: view.degraded,
      errors: [...loadProblems, ...view.errors],
      rows: edges.filter((row) => !isFresh(row.projection.state)).map((row) => rowView(workspace, projection, row)),
    }
  })
  return { root: workspace, status, contexts }
}

/** The grants of a workspace with their standing and, for each, every resolution it authorized (the audit). */
export async function grantsView(services: Services, workspace: string): Promise<CoherenceGrants> {
  const grants = await services.coherence.grants(workspace)
  const withAudit = await Promise.all(grants.map(async (grant) => grantView(grant, await services.coherence.authorizedBy(workspace, grant.delegation))))
  const agents = [...services.engine.views.agents.state.values()].filter((agent) => !agent.revoked).map((agent) => agent.name).sort()
  return { root: workspace, grants: withAudit, agents }
}

/** The person grants an agent a delegation for `days` days from now. */
export async function grantDelegation(services: Services, workspace: string, body: z.output<typeof GrantBodySchema>): Promise<{ delegation: string; entryId: string }> {
  // A grant is for an agent the person gave a token: a misspelt name would be a grant no one can ever use.
  const agent = services.engine.views.agents.state.get(body.delegate.trim())
  if (agent === undefined || agent.revoked) {
    throw new CoherenceRefusal('invalid-argument', `no agent named ${JSON.stringify(body.delegate)} has a live token (see \`quire agent list\`; add one with \`quire agent add NAME\`)`)
  }
  const expires = new Date(services.engine.now() + body.days * DAY_MS)
  const scope = body.scope.map(delegationScope)
  return services.coherence.grant(workspace, { delegate: body.delegate, scope, expires }, await personName(workspace), USER)
}

export async function revokeDelegation(services: Services, workspace: string, delegation: string): Promise<{ delegation: string; entryId: string }> {
  return services.coherence.revoke(workspace, delegation, await personName(workspace), USER)
}

/** The person's own resolution: no delegation needed (the human resolver), recorded under their name. */
export async function resolveAsPerson(services: Services, workspace: string, body: z.output<typeof ResolveBodySchema>) {
  const id = await personName(workspace)
  return services.coherence.resolve(workspace, { txf: body.txf, input: body.input, resolution: body.resolution, reason: body.reason }, { kind: 'human', id }, USER)
}

/** `--days` as the CLI gets it: one of the lifetimes a grant may have. */
export function parseGrantDays(value: string | undefined): GrantDays | undefined {
  const parsed = grantDays.safeParse(value === undefined ? 7 : Number(value))
  return parsed.success ? parsed.data : undefined
}

/** `--scope accept-newer,waive` as the CLI gets it. */
export function parseScopeNames(value: string | undefined): CoherenceScopeName[] | undefined {
  const names = (value ?? 'accept-newer,waive').split(',').map((name) => name.trim()).filter((name) => name !== '')
  const parsed = z.array(scopeName).min(1).safeParse(names)
  return parsed.success ? [...new Set(parsed.data)] : undefined
}

/** The HTTP status and code a coherence refusal answers with. */
export function refusalAnswer(refusal: CoherenceRefusal): { status: 400 | 409; error: string } {
  const argument = refusal.reason === 'invalid-argument' || refusal.reason === 'invalid-workspace-root' || refusal.reason === 'not-a-workspace' || refusal.reason === 'anonymous'
  return { status: argument ? 400 : 409, error: refusal.reason.toUpperCase().replaceAll('-', '_') }
}

function statusView(status: CoherenceStatusView): CoherenceStatusView {
  const { initialized, objects, open_items, quarantined, writer } = status
  return { initialized, objects, open_items, quarantined, writer }
}

function rowView(workspace: string, projection: CoherenceProjection, { edge, projection: judged }: ProjectedEdge): CoherenceRow {
  const downstreamPath = projection.pathOf(edge.downstream)
  return {
    txf: edge.txf,
    input: edge.input,
    state: judged.state as CoherenceEdgeState,
    upstream: edge.upstream,
    upstreamPath: projection.pathOf(edge.upstream),
    pinned: edge.pinned,
    selected: judged.selected,
    downstream: edge.downstream,
    downstreamPath,
    downstreamRev: edge.downstreamRev,
    role: edge.role,
    detail: judged.detail,
    downstreamFile: downstreamPath === null ? null : join(workspace, ...downstreamPath.split('/')),
  }
}

function grantView(grant: GrantSummary, authorized: readonly LedgerEntry[]): CoherenceGrant {
  return {
    delegation: grant.delegation,
    entryId: grant.entryId,
    delegate: grant.delegate,
    // A scope another writer's build knows and this one does not authorizes nothing here, so it is not shown as one.
    scope: grant.scope.flatMap((scope): CoherenceScopeName[] => (scope === 'resolve.waive' ? ['waive'] : scope === 'resolve.accept-newer' ? ['accept-newer'] : [])),
    expires: grant.expires,
    grantedBy: grant.grantedBy,
    standing: grant.standing,
    conflicts: grant.conflicts,
    authorized: authorized.map(authorizedView),
  }
}

function authorizedView(entry: LedgerEntry): CoherenceAuthorized {
  const body = entry.body as { edge: { txf: string; input: number }; resolved_against: string; actor: { id: string }; reason?: string }
  return {
    entryId: entry.id,
    kind: entry.kind === 'waiver' ? 'waiver' : 'ratification',
    time: entry.time,
    actor: body.actor.id,
    txf: body.edge.txf,
    input: body.edge.input,
    resolvedAgainst: body.resolved_against,
    reason: body.reason ?? null,
  }
}

function delegationScope(name: CoherenceScopeName): DelegationScope {
  return name === 'waive' ? 'resolve.waive' : 'resolve.accept-newer'
}
