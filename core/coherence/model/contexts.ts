import { z } from 'zod'
import { UuidSchema } from '../entries.js'
import type { RevisionId, Uuid } from './entries.js'

/**
 * Contexts — pin manifests with single-inheritance overlays (spec §6).
 *
 * A context says which revision of each object a reader sees: an explicit pin (`rev1:…`) or `live` (the object's
 * DAG head). Children override their parent per object; the first explicit selection on the child → parent walk wins
 * and an object selected nowhere is live. A chain that does not end within the hop limit, loops, or names a parent
 * that does not exist is a configuration error: the context then behaves as the implicit default (all live) and
 * carries the error, so the breakdown header can say why (spec §6, design-2a D1).
 */

/** The implicit default context's fixed id (spec §5.4.4 revision 1, §6). */
export const DEFAULT_CONTEXT_ID: Uuid = '00000000-0000-0000-0000-000000000000'
export const DEFAULT_CONTEXT_NAME = 'default'

/**
 * How many manifests a chain may hold, the context itself included (spec §6: "must terminate within 16 hops"). Counted
 * as VMark counts it: the walk refuses to take a 17th manifest, so a context may have at most 15 ancestors.
 */
export const MAX_CONTEXT_CHAIN = 16

const REVISION_PATTERN = /^rev1:[0-9a-f]{64}$/

/**
 * The fields of a manifest the projection reads. Loose, not strict: manifests are rewritten in place, and the spec's
 * round-trip guarantee (§6 revision 2) requires fields this build does not know (`git_branch`, …) to survive. Ids are
 * lower-cased as the ledger reader lower-cases them, so a manifest's object ids meet the entries' ids; a selection
 * value is checked per entry later (a bad one fails the entry, not the manifest).
 */
export const ContextManifestSchema = z.looseObject({
  format: z.number().int().nonnegative(),
  id: UuidSchema,
  name: z.string().min(1),
  parent: UuidSchema.nullable().optional(),
  selections: z
    .record(z.string(), z.string())
    .transform((selections) => Object.fromEntries(Object.entries(selections).map(([object, value]) => [object.toLowerCase(), value])))
    .optional(),
  enforcement: z.string().optional(),
  visible_claims: z.array(UuidSchema).optional(),
})
export type ContextManifest = z.infer<typeof ContextManifestSchema>

/** What an object resolves to under a context before the DAG is consulted. */
export type Selection = { readonly kind: 'live' } | { readonly kind: 'pinned'; readonly revision: RevisionId }

const LIVE: Selection = { kind: 'live' }

/** A problem with one context, said in words fit for the breakdown header. */
export interface ContextProblem {
  readonly context: string
  readonly reason: string
}

/** One context as a reader sees it: its effective selections, claims and the errors that shaped them. */
export interface ContextView {
  readonly id: Uuid
  readonly name: string
  readonly parent: Uuid | null
  /** Never inherited (spec §6): the manifest's own value; missing or unrecognized means greenhouse. */
  readonly enforcement: 'enforcing' | 'greenhouse'
  /** Child ∪ ancestors, child-first, de-duplicated (spec §6: a child cannot hide a parent's claim). */
  readonly visibleClaims: readonly Uuid[]
  /** True when a chain error made this context fall back to the implicit default. */
  readonly degraded: boolean
  readonly errors: readonly string[]
  /** The effective selection for an object after the overlay walk. */
  selection(object: Uuid): Selection
  /** Objects with an explicit pin, for listing. */
  pinnedObjects(): readonly Uuid[]
}

/** The `coherence.contexts` row (COH.CONTEXTS.1). */
export interface ContextSummary {
  readonly id: Uuid
  readonly name: string
  readonly parent: Uuid | null
  readonly enforcement: 'enforcing' | 'greenhouse'
  readonly visibleClaims: readonly Uuid[]
  readonly errors: readonly string[]
}

class ResolvedContext implements ContextView {
  constructor(
    readonly id: Uuid,
    readonly name: string,
    readonly parent: Uuid | null,
    readonly enforcement: 'enforcing' | 'greenhouse',
    readonly visibleClaims: readonly Uuid[],
    readonly degraded: boolean,
    readonly errors: readonly string[],
    private readonly pins: ReadonlyMap<Uuid, RevisionId>,
  ) {}

  selection(object: Uuid): Selection {
    const revision = this.pins.get(object)
    return revision === undefined ? LIVE : { kind: 'pinned', revision }
  }

  pinnedObjects(): readonly Uuid[] {
    return [...this.pins.keys()].sort()
  }
}

/** The implicit default context (spec §6): all live, greenhouse, no claims, no manifest. */
export function implicitDefaultContext(): ContextView {
  return new ResolvedContext(DEFAULT_CONTEXT_ID, DEFAULT_CONTEXT_NAME, null, 'greenhouse', [], false, [], new Map())
}

/**
 * The context set of a workspace: the manifests found in `.vmark/contexts/` (as parsed JSON, one per file) plus the
 * implicit default. Manifests that fail the shape, and a second manifest with an id already taken, are refused with a
 * problem naming their file; the rest still load (one bad manifest must not take the others down).
 */
export class ContextSet {
  private readonly manifests = new Map<Uuid, ContextManifest>()
  readonly loadProblems: readonly ContextProblem[]
  private readonly views = new Map<Uuid, ContextView>()

  constructor(files: ReadonlyArray<{ readonly file: string; readonly manifest: unknown }>) {
    const problems: ContextProblem[] = []
    // Sorted by file name so that which of two same-id manifests wins does not depend on directory listing order.
    for (const { file, manifest } of [...files].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))) {
      const parsed = ContextManifestSchema.safeParse(manifest)
      if (!parsed.success) {
        problems.push({ context: file, reason: `manifest is not a context: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ')}` })
        continue
      }
      const { id } = parsed.data
      if (this.manifests.has(id)) {
        problems.push({ context: file, reason: `duplicate context id ${id}` })
        continue
      }
      this.manifests.set(id, parsed.data)
    }
    this.loadProblems = problems
  }

  /** Every context id, the default first, then the others by name and id. */
  ids(): Uuid[] {
    const others = [...this.manifests.entries()]
      .filter(([id]) => id !== DEFAULT_CONTEXT_ID)
      .sort(([ia, a], [ib, b]) => (a.name < b.name ? -1 : a.name > b.name ? 1 : ia < ib ? -1 : ia > ib ? 1 : 0))
      .map(([id]) => id)
    return [DEFAULT_CONTEXT_ID, ...others]
  }

  has(id: Uuid): boolean {
    return id === DEFAULT_CONTEXT_ID || this.manifests.has(id)
  }

  /** The effective view of a context. An unknown id is the caller's mistake and throws. */
  view(id: Uuid): ContextView {
    const cached = this.views.get(id)
    if (cached !== undefined) return cached
    if (!this.has(id)) throw new Error(`no context with id ${id}`)
    const view = this.resolve(id)
    this.views.set(id, view)
    return view
  }

  /** The `coherence.contexts` answer: every context, the default always present (COH.CONTEXTS.2). */
  summaries(): ContextSummary[] {
    return this.ids().map((id) => {
      const view = this.view(id)
      return { id: view.id, name: view.name, parent: view.parent, enforcement: view.enforcement, visibleClaims: view.visibleClaims, errors: view.errors }
    })
  }

  private resolve(id: Uuid): ContextView {
    const own = this.manifests.get(id)
    // The implicit default has no manifest; a materialized default.json (nil id) joins the walk like any other.
    if (own === undefined) return implicitDefaultContext()
    const parent = own.parent === undefined || own.parent === null ? null : own.parent
    const enforcement = own.enforcement === 'enforcing' ? 'enforcing' : 'greenhouse'
    const chain = this.chain(id)
    if (!Array.isArray(chain)) {
      // Degraded: behaves as the implicit default (all live, no claims), keeps its own name and enforcement for the
      // header, and says why.
      return new ResolvedContext(id, own.name, parent, enforcement, [], true, [chain.reason], new Map())
    }
    const pins = new Map<Uuid, RevisionId>()
    const decided = new Set<Uuid>()
    const errors: string[] = []
    const claims: Uuid[] = []
    const seenClaims = new Set<Uuid>()
    for (const manifest of chain) {
      for (const [object, value] of Object.entries(manifest.selections ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        if (decided.has(object)) continue // a nearer (child) level already decided
        decided.add(object)
        if (value === 'live') continue
        if (REVISION_PATTERN.test(value)) pins.set(object, value)
        // The entry fails, not the context: an unreadable selection is reported and reads as live.
        else errors.push(`context ${manifest.name}: selection for ${object} is neither "live" nor a rev1 revision id (${JSON.stringify(value)}); read as live`)
      }
      for (const claim of manifest.visible_claims ?? []) {
        if (seenClaims.has(claim)) continue
        seenClaims.add(claim)
        claims.push(claim)
      }
    }
    return new ResolvedContext(id, own.name, parent, enforcement, claims, false, errors, pins)
  }

  /** The child → parent chain starting at `id`, or the structural error that breaks it. */
  private chain(id: Uuid): ContextManifest[] | ContextProblem {
    const chain: ContextManifest[] = []
    const seen = new Set<Uuid>()
    let cursor: Uuid | null = id
    while (cursor !== null) {
      if (seen.has(cursor)) return { context: id, reason: `context chain of ${id} loops at ${cursor}; the context falls back to the default (all live)` }
      seen.add(cursor)
      if (chain.length >= MAX_CONTEXT_CHAIN) return { context: id, reason: `context chain of ${id} is longer than ${MAX_CONTEXT_CHAIN} contexts; the context falls back to the default (all live)` }
      const manifest = this.manifests.get(cursor)
      if (manifest === undefined) {
        // The implicit default has no manifest and no selections: reaching it ends the walk cleanly.
        if (cursor === DEFAULT_CONTEXT_ID) break
        return { context: id, reason: `context chain of ${id} names ${cursor}, which is not a context; the context falls back to the default (all live)` }
      }
      chain.push(manifest)
      cursor = manifest.parent === undefined || manifest.parent === null ? null : manifest.parent
    }
    return chain
  }
}
