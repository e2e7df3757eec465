import { isTransformation, type ContentHash, type LedgerEntry, type RevisionId, type Uuid } from './entries.js'

const NO_HEADS: readonly RevisionId[] = Object.freeze([])

/** One revision of one object, as the transformations that output it describe it (spec §2.3, §5.4.1). */
export interface RevisionNode {
  readonly object: Uuid
  readonly revision: RevisionId
  readonly contentHash: ContentHash
  /** Sorted, de-duplicated. */
  readonly parents: readonly RevisionId[]
}

/**
 * The revision DAG of every object, rebuilt from transformation outputs alone (spec §5.4.1: "self-contained enough to
 * rebuild the DAG without any other source").
 *
 * Heads are per object and there may be several (a multi-head object, spec §9.2 `DIVERGED_HEADS`); there is
 * deliberately no context-free "latest revision" here (spec §9.2: "no index API may expose a context-free latest
 * revision") — which revision a reader sees is decided by a context (contexts.ts).
 */
export class RevisionDag {
  private readonly revisionsByObject = new Map<Uuid, Map<RevisionId, RevisionNode>>()
  private readonly headsByObject = new Map<Uuid, readonly RevisionId[]>()
  /** Ancestor answers by object, ancestor and descendant: many edges ask the same question of one upstream. */
  private readonly ancestry = new Map<string, boolean>()
  /**
   * The walks from heads, by object and head. Live contexts compare every edge's pin with its upstream's head, so one
   * walk per head, taken only as far as a question needs, answers them all (instead of one walk per pin).
   */
  private readonly walksFromHeads = new Map<Uuid, Map<RevisionId, HeadWalk>>()

  /** Builds the DAG from the entries in any order: the result depends only on the set of transformation outputs. */
  static fromEntries(entries: Iterable<LedgerEntry>): RevisionDag {
    const dag = new RevisionDag()
    for (const entry of entries) {
      if (!isTransformation(entry)) continue
      for (const output of entry.body.outputs) dag.record(output.object, output.revision, output.content_hash, output.parents)
    }
    return dag.seal()
  }

  private record(object: Uuid, revision: RevisionId, contentHash: ContentHash, parents: readonly RevisionId[]): void {
    let revisions = this.revisionsByObject.get(object)
    if (revisions === undefined) {
      revisions = new Map()
      this.revisionsByObject.set(object, revisions)
    }
    // A revision id is a hash of content and parents, so a second output naming the same id (a provenance
    // confirmation, spec §5.4.1a, or one operation recorded by two writers) describes the same node.
    if (revisions.has(revision)) return
    // Nearly every revision has one parent or none: no set and no sort for those.
    const distinct = parents.length < 2 ? [...parents] : [...new Set(parents)].sort()
    revisions.set(revision, { object, revision, contentHash, parents: distinct })
  }

  private seal(): RevisionDag {
    for (const [object, revisions] of this.revisionsByObject) {
      const withChildren = new Set<RevisionId>()
      // A parent link to a revision no segment here recorded (another clone's history not yet merged) does not invent
      // a node; only the object's own revisions can stop being heads.
      for (const node of revisions.values()) for (const parent of node.parents) withChildren.add(parent)
      this.headsByObject.set(object, [...revisions.keys()].filter((revision) => !withChildren.has(revision)).sort())
    }
    return this
  }

  /** Every object that has at least one revision. */
  objects(): Uuid[] {
    return [...this.revisionsByObject.keys()].sort()
  }

  hasObject(object: Uuid): boolean {
    return this.revisionsByObject.has(object)
  }

  revision(object: Uuid, revision: RevisionId): RevisionNode | undefined {
    return this.revisionsByObject.get(object)?.get(revision)
  }

  hasRevision(object: Uuid, revision: RevisionId): boolean {
    return this.revision(object, revision) !== undefined
  }

  revisionCount(object: Uuid): number {
    return this.revisionsByObject.get(object)?.size ?? 0
  }

  /** Revisions with no children, sorted. Empty for an object with no revisions; two or more for a multi-head object. */
  heads(object: Uuid): RevisionId[] {
    return [...this.readonlyHeads(object)]
  }

  /** `heads` without the copy, for the projection's inner loops; never to be changed or handed on. */
  readonlyHeads(object: Uuid): readonly RevisionId[] {
    return this.headsByObject.get(object) ?? NO_HEADS
  }

  /** The revisions of `object` whose content hash is `contentHash` (A → B → A gives two), sorted. */
  revisionsWithContent(object: Uuid, contentHash: ContentHash): RevisionId[] {
    const revisions = this.revisionsByObject.get(object)
    if (revisions === undefined) return []
    return [...revisions.values()].filter((node) => node.contentHash === contentHash).map((node) => node.revision).sort()
  }

  /**
   * Whether `ancestor` is a strict ancestor of `descendant` within `object` (spec §9.3): a breadth-first walk from
   * `descendant` along parent links, bounded by the object's revision count so that even a malformed ledger with a
   * parent cycle terminates.
   */
  isStrictAncestor(object: Uuid, ancestor: RevisionId, descendant: RevisionId): boolean {
    if (ancestor === descendant) return false
    if (this.readonlyHeads(object).includes(descendant)) return this.walkFrom(object, descendant).reaches(ancestor)
    const key = `${object} ${ancestor} ${descendant}`
    const known = this.ancestry.get(key)
    if (known !== undefined) return known
    const answer = this.walkForAncestor(object, ancestor, descendant)
    this.ancestry.set(key, answer)
    return answer
  }

  /** The walk from a head, kept between questions (see `HeadWalk`). */
  private walkFrom(object: Uuid, head: RevisionId): HeadWalk {
    let byHead = this.walksFromHeads.get(object)
    if (byHead === undefined) {
      byHead = new Map()
      this.walksFromHeads.set(object, byHead)
    }
    let walk = byHead.get(head)
    if (walk === undefined) {
      walk = new HeadWalk(this.revisionsByObject.get(object) ?? new Map(), head)
      byHead.set(head, walk)
    }
    return walk
  }

  private walkForAncestor(object: Uuid, ancestor: RevisionId, descendant: RevisionId): boolean {
    const revisions = this.revisionsByObject.get(object)
    if (revisions === undefined || ancestor === descendant) return false
    const start = revisions.get(descendant)
    if (start === undefined) return false
    const seen = new Set<RevisionId>([descendant])
    let frontier: RevisionId[] = [...start.parents]
    let budget = revisions.size
    while (frontier.length > 0 && budget > 0) {
      const next: RevisionId[] = []
      for (const revision of frontier) {
        if (revision === ancestor) return true
        if (seen.has(revision)) continue
        seen.add(revision)
        budget -= 1
        const node = revisions.get(revision)
        if (node !== undefined) next.push(...node.parents)
      }
      frontier = next
    }
    return false
  }
}

/**
 * `walkForAncestor` from one head, resumable: the same breadth-first order and the same budget, every revision of
 * every frontier recorded where that walk would compare it with the ancestor asked for, and the walk taken only as far
 * as the questions so far needed. So `reaches(x)` is exactly `walkForAncestor(object, x, head)` for every `x !== head`,
 * even on a malformed ledger whose budget runs out, and a pin near the head costs a few steps however long the history.
 */
class HeadWalk {
  private readonly reached = new Set<RevisionId>()
  private readonly seen: Set<RevisionId>
  private frontier: RevisionId[]
  private next: RevisionId[] = []
  private index = 0
  private budget: number
  private done: boolean

  constructor(
    private readonly revisions: ReadonlyMap<RevisionId, RevisionNode>,
    head: RevisionId,
  ) {
    this.seen = new Set([head])
    this.frontier = [...(revisions.get(head)?.parents ?? [])]
    this.budget = revisions.size
    this.done = !(this.frontier.length > 0 && this.budget > 0)
  }

  reaches(ancestor: RevisionId): boolean {
    if (this.reached.has(ancestor)) return true
    while (!this.done) if (this.step() === ancestor) return true
    return false
  }

  /** One revision of the current frontier; at the end of a frontier, the walk's loop condition decides whether to go on. */
  private step(): RevisionId {
    const revision = this.frontier[this.index] as RevisionId
    this.index += 1
    this.reached.add(revision)
    if (!this.seen.has(revision)) {
      this.seen.add(revision)
      this.budget -= 1
      const node = this.revisions.get(revision)
      if (node !== undefined) this.next.push(...node.parents)
    }
    if (this.index >= this.frontier.length) {
      this.frontier = this.next
      this.next = []
      this.index = 0
      this.done = !(this.frontier.length > 0 && this.budget > 0)
    }
    return revision
  }
}
