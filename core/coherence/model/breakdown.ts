import { ClaimIndex, type ClaimSummary } from './claims.js'
import { ContextSet, DEFAULT_CONTEXT_ID, type ContextSummary, type ContextView } from './contexts.js'
import { RevisionDag } from './dag.js'
import {
  compareReaderOrder,
  isDiagnostic,
  isObjectRegistered,
  isTransformation,
  type LedgerEntry,
  type ObjectRegisteredEntry,
  type RevisionId,
  type TransformationEntry,
  type Uuid,
} from './entries.js'
import { EdgeRecords, isFresh, originEdges, projectEdge, resolveSelection, type EdgeProjection, type EdgeState, type NonFreshState, type OriginEdge } from './staleness.js'

/**
 * The coherence projection of one workspace: everything `coherence.status`, `edges`, `claims` and `contexts` answer,
 * folded from the ledger's entries (already de-duplicated by the reader) and the context manifests.
 *
 * It is a pure function of its inputs: the same set of entries gives the same answers whatever order the segments
 * were read in (spec §5.1: file order and interleaving are meaningless).
 */

/** A `coherence.edges` row (COH.EDGES.3). */
export interface BreakdownRow {
  readonly txf: Uuid
  readonly input: number
  readonly upstream: Uuid
  /** The object's last registered path (spec §5.4.6); null when no registration names it. */
  readonly upstream_path: string | null
  readonly pinned: RevisionId
  readonly downstream: Uuid
  readonly downstream_path: string | null
  readonly downstream_rev: RevisionId
  readonly state: NonFreshState
}

/** A live edge with its state, fresh ones included (for the console panel and for tests). */
export interface ProjectedEdge {
  readonly edge: OriginEdge
  readonly projection: EdgeProjection
}

/** The breakdown of one context: its header (which context, whether it degraded and why) and its non-fresh rows. */
export interface Breakdown {
  readonly context: { readonly id: Uuid; readonly name: string; readonly degraded: boolean; readonly errors: readonly string[] }
  readonly rows: readonly BreakdownRow[]
}

/** What a breakdown query needs besides the ledger. */
export interface BreakdownOptions {
  /** Defaults to the implicit default context. */
  readonly context?: Uuid
  readonly now: Date
  /**
   * Objects whose files the last scan did not find (spec §9.4: "breakdown hides absent objects"); an edge touching
   * one, as upstream or downstream, is hidden. From `reconcile(...).absent`.
   */
  readonly absent?: ReadonlySet<Uuid>
}

export class CoherenceProjection {
  readonly dag: RevisionDag
  readonly contexts: ContextSet
  readonly claims: ClaimIndex
  private readonly records: EdgeRecords
  /**
   * Transformations by the object and revision they output: only the revision a context selects for an object can
   * have live edges, so a query looks at the transformations of one revision per object.
   */
  private readonly transformationsByOutput = new Map<Uuid, Map<RevisionId, TransformationEntry[]>>()
  private readonly transformationsById = new Map<Uuid, TransformationEntry>()
  /**
   * Each transformation's origin edges, made when a query first needs them: most belong to superseded revisions and
   * are never looked at, so building all of them up front (500,000 at spec §10's scale) was most of the build.
   */
  private readonly edgesByTransformation = new WeakMap<TransformationEntry, readonly OriginEdge[]>()
  /** The downstream objects grouped by their path, the groups in path order: rows sort by path first (made once). */
  private downstreamGroups: ReadonlyArray<readonly Uuid[]> | undefined
  private readonly registrations = new Map<Uuid, ObjectRegisteredEntry>()
  private readonly diagnostics = new Set<string>()
  private objectsByPath: Map<string, Uuid> | undefined

  constructor(ledger: readonly LedgerEntry[], contextFiles: ReadonlyArray<{ readonly file: string; readonly manifest: unknown }> = []) {
    const entries = distinctById(ledger)
    this.dag = RevisionDag.fromEntries(entries)
    this.contexts = new ContextSet(contextFiles)
    this.claims = new ClaimIndex(entries)
    this.records = new EdgeRecords(entries)
    for (const entry of entries) {
      if (isTransformation(entry)) {
        this.transformationsById.set(entry.id, entry)
        for (const output of entry.body.outputs) {
          let byRevision = this.transformationsByOutput.get(output.object)
          if (byRevision === undefined) {
            byRevision = new Map()
            this.transformationsByOutput.set(output.object, byRevision)
          }
          const list = byRevision.get(output.revision)
          if (list === undefined) byRevision.set(output.revision, [entry])
          // Listed once even when it outputs this revision twice: its edges are filtered by output below.
          else if (list.at(-1) !== entry) list.push(entry)
        }
        continue
      }
      if (isDiagnostic(entry)) this.diagnostics.add(diagnosticKey(entry.body.code ?? '', entry.body.path ?? ''))
      if (!isObjectRegistered(entry)) continue
      const object = entry.body.object
      const known = this.registrations.get(object)
      // The latest registration, in reader order, is the object's path and schema (spec §5.4.6).
      if (known === undefined || compareReaderOrder(known, entry) < 0) this.registrations.set(object, entry)
    }
  }

  /** The object's last registered path, or null. */
  pathOf(object: Uuid): string | null {
    return this.registrations.get(object)?.body.path ?? null
  }

  /** The object whose last registration names this path, or null (how a binary file is known, spec §2.1). */
  objectAt(path: string): Uuid | null {
    if (this.objectsByPath === undefined) {
      const latest = new Map<string, ObjectRegisteredEntry>()
      for (const entry of this.registrations.values()) {
        const known = latest.get(entry.body.path)
        if (known === undefined || compareReaderOrder(known, entry) < 0) latest.set(entry.body.path, entry)
      }
      this.objectsByPath = new Map([...latest].map(([where, entry]) => [where, entry.body.object]))
    }
    return this.objectsByPath.get(path) ?? null
  }

  /** The object's last registered schema, or null. */
  schemaOf(object: Uuid): string | null {
    return this.registrations.get(object)?.body.schema ?? null
  }

  /** Whether a `diagnostic` with this code about this path is in the ledger already (scans must not repeat one). */
  hasDiagnostic(code: string, path: string): boolean {
    return this.diagnostics.has(diagnosticKey(code, path))
  }

  /** Every object the ledger knows: registered (spec §5.4.6) or with at least one revision. Sorted. */
  knownObjects(): Uuid[] {
    return [...new Set([...this.registrations.keys(), ...this.dag.objects()])].sort()
  }

  isKnown(object: Uuid): boolean {
    return this.registrations.has(object) || this.dag.hasObject(object)
  }

  /** Every live edge under a context with its state, fresh ones included; sorted like the breakdown. */
  liveEdges(options: BreakdownOptions): ProjectedEdge[] {
    const context = this.contextView(options.context)
    const moment = { claimsFingerprint: this.claims.fingerprint(context.visibleClaims), now: options.now }
    const absent = options.absent ?? new Set<Uuid>()
    const projected: ProjectedEdge[] = []
    // Group by group in path order, each group's rows sorted by the rest of the row key: the order of one sort of
    // every row by the whole key, at the cost of sorting a handful of rows at a time.
    for (const group of this.downstreamsInPathOrder()) {
      const rows: ProjectedEdge[] = []
      for (const downstream of group) {
        if (absent.has(downstream)) continue
        // Liveness (spec §9.2) keeps only the edges of the revision the context selects for the downstream object, so
        // the edges of every superseded revision — most of a long history — are never looked at.
        const selected = resolveSelection(context, downstream, this.dag)
        if (selected.kind !== 'revision') continue
        for (const transformation of this.transformationsByOutput.get(downstream)?.get(selected.revision) ?? []) {
          for (const edge of this.edgesOf(transformation)) {
            if (edge.downstream !== downstream || edge.downstreamRev !== selected.revision || absent.has(edge.upstream)) continue
            const projection = projectEdge(edge, context, this.dag, this.records, moment)
            if (projection !== null) rows.push({ edge, projection })
          }
        }
      }
      if (rows.length === 1) projected.push(rows[0] as ProjectedEdge)
      else if (rows.length > 1) projected.push(...this.inRowOrder(rows))
    }
    return projected
  }

  /**
   * The breakdown: every live non-fresh dependency edge under the context (COH.EDGES.2), ordered by downstream path,
   * then transformation and input, then downstream object and revision — so the answer has one order whatever the
   * ledger's line order.
   */
  breakdown(options: BreakdownOptions): Breakdown {
    const context = this.contextView(options.context)
    const rows: BreakdownRow[] = []
    for (const { edge, projection } of this.liveEdges(options)) {
      if (isFresh(projection.state)) continue
      rows.push({
        txf: edge.txf,
        input: edge.input,
        upstream: edge.upstream,
        upstream_path: this.pathOf(edge.upstream),
        pinned: edge.pinned,
        downstream: edge.downstream,
        downstream_path: this.pathOf(edge.downstream),
        downstream_rev: edge.downstreamRev,
        state: projection.state as NonFreshState,
      })
    }
    return { context: { id: context.id, name: context.name, degraded: context.degraded, errors: [...this.contexts.loadProblems.map((problem) => `${problem.context}: ${problem.reason}`), ...context.errors] }, rows }
  }

  /**
   * The live edge `(txf, input)` names under a context, for `coherence_resolve` (COHR.RESOLVE.5: a call on an edge no
   * longer live is refused). Several when the transformation had several outputs; empty when none is live.
   */
  liveEdgesOf(txf: Uuid, input: number, options: BreakdownOptions): ProjectedEdge[] {
    const transformation = this.transformationsById.get(txf)
    if (transformation === undefined) return []
    const context = this.contextView(options.context)
    const moment = { claimsFingerprint: this.claims.fingerprint(context.visibleClaims), now: options.now }
    const absent = options.absent ?? new Set<Uuid>()
    const projected: ProjectedEdge[] = []
    // Only this transformation's edges: `projectEdge` decides liveness per edge exactly as `liveEdges` does.
    for (const edge of this.edgesOf(transformation)) {
      if (edge.input !== input || absent.has(edge.downstream) || absent.has(edge.upstream)) continue
      const projection = projectEdge(edge, context, this.dag, this.records, moment)
      if (projection !== null) projected.push({ edge, projection })
    }
    return this.inRowOrder(projected)
  }

  /** The counting part of `coherence.status` (COH.STATUS.1, .4); the rest (initialized, quarantined, writer) is the reader's. */
  status(options: BreakdownOptions): { objects: number; open_items: number } {
    const absent = options.absent ?? new Set<Uuid>()
    return {
      objects: this.knownObjects().filter((object) => !absent.has(object)).length,
      open_items: this.breakdown(options).rows.length,
    }
  }

  /** The `coherence.contexts` answer (COH.CONTEXTS.1–2). */
  contextSummaries(): ContextSummary[] {
    return this.contexts.summaries()
  }

  /** The `coherence.claims` answer (COH.CLAIMS.1, .3: `visible` in the default context). */
  claimSummaries(): ClaimSummary[] {
    return this.claims.summaries(this.contexts.view(DEFAULT_CONTEXT_ID).visibleClaims)
  }

  /** The state of every live edge as a plain map, `txf#input→downstream@rev` → state (for comparisons and tests). */
  stateMap(options: BreakdownOptions): Map<string, EdgeState> {
    return new Map(this.liveEdges(options).map(({ edge, projection }) => [`${edge.txf}#${edge.input}→${edge.downstream}@${edge.downstreamRev}`, projection.state]))
  }

  private contextView(id: Uuid | undefined): ContextView {
    return this.contexts.view(id ?? DEFAULT_CONTEXT_ID)
  }

  private downstreamsInPathOrder(): ReadonlyArray<readonly Uuid[]> {
    if (this.downstreamGroups === undefined) {
      const byPath = new Map<string, Uuid[]>()
      for (const object of this.transformationsByOutput.keys()) {
        const path = this.pathOf(object) ?? ''
        const group = byPath.get(path)
        if (group === undefined) byPath.set(path, [object])
        else group.push(object)
      }
      this.downstreamGroups = [...byPath].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, objects]) => objects)
    }
    return this.downstreamGroups
  }

  private edgesOf(transformation: TransformationEntry): readonly OriginEdge[] {
    let edges = this.edgesByTransformation.get(transformation)
    if (edges === undefined) {
      edges = originEdges([transformation])
      this.edgesByTransformation.set(transformation, edges)
    }
    return edges
  }

  /** Sorted like the breakdown, each row's key made once (made in the comparison, the sort was most of a query). */
  private inRowOrder(projected: readonly ProjectedEdge[]): ProjectedEdge[] {
    const keyed = projected.map((row) => ({ row, key: this.rowKey(row.edge) }))
    keyed.sort((a, b) => compareRows(a.key, b.key))
    return keyed.map(({ row }) => row)
  }

  private rowKey(edge: OriginEdge): readonly string[] {
    return [this.pathOf(edge.downstream) ?? '', edge.txf, String(edge.input).padStart(10, '0'), edge.downstream, edge.downstreamRev]
  }
}

/**
 * One entry per entry id. The reader already de-duplicates by `idem`; this guards the one duplication that can still
 * reach here — the very same line twice (a union merge of two branches of one clone, spec §5.5) — which would
 * otherwise list its edges twice.
 */
function distinctById(entries: readonly LedgerEntry[]): readonly LedgerEntry[] {
  const ids = new Set<string>()
  // A copy only once a repeat is met: nearly always there is none, and the entries are handed on as they came.
  let distinct: LedgerEntry[] | undefined
  entries.forEach((entry, index) => {
    if (ids.has(entry.id)) {
      distinct ??= entries.slice(0, index)
      return
    }
    ids.add(entry.id)
    distinct?.push(entry)
  })
  return distinct ?? entries
}

function diagnosticKey(code: string, path: string): string {
  return JSON.stringify([code, path])
}

function compareRows(a: readonly string[], b: readonly string[]): number {
  for (let index = 0; index < a.length; index += 1) {
    const x = a[index] ?? ''
    const y = b[index] ?? ''
    if (x !== y) return x < y ? -1 : 1
  }
  return 0
}
