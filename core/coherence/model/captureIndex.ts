import { compareReaderOrder, isDiagnostic, isObjectRegistered, isTransformation, type ContentHash, type LedgerEntry, type RevisionId, type Uuid } from './entries.js'

interface ObjectRevisions {
  /** Revision → its content hash. */
  readonly revisions: Map<RevisionId, ContentHash>
  /** Revisions some recorded revision names as a parent: the heads are the rest. */
  readonly parentsNamed: Set<RevisionId>
}

interface Registration {
  readonly object: Uuid
  readonly path: string
  readonly time: string
  readonly id: string
}

/**
 * What a capture decides from (spec §2.1, §2.3, §5.4.6): each object's revisions and heads, its registered path,
 * which object a path is, and which diagnostics were already recorded. Unlike the full projection it is extended in
 * place by the entries we append, so a capture in a workspace with a long ledger costs its own entries, not the
 * ledger's length. Its answers equal the projection's (`RevisionDag.heads`, `pathOf`, `objectAt`, `hasDiagnostic`)
 * for the same set of entries, in any order.
 */
export class CaptureIndex {
  private readonly objects = new Map<Uuid, ObjectRevisions>()
  private readonly registrations = new Map<Uuid, Registration>()
  /** Path → object, from each object's latest registration; made when first asked after a change. */
  private byPath: Map<string, Registration> | undefined
  private readonly diagnostics = new Set<string>()

  constructor(entries: Iterable<LedgerEntry> = []) {
    this.apply(entries)
  }

  apply(entries: Iterable<LedgerEntry>): void {
    for (const entry of entries) {
      if (isTransformation(entry)) {
        for (const output of entry.body.outputs) {
          let known = this.objects.get(output.object)
          if (known === undefined) {
            known = { revisions: new Map(), parentsNamed: new Set() }
            this.objects.set(output.object, known)
          }
          if (!known.revisions.has(output.revision)) known.revisions.set(output.revision, output.content_hash)
          for (const parent of output.parents) known.parentsNamed.add(parent)
        }
      } else if (isObjectRegistered(entry)) {
        const registration = { object: entry.body.object, path: entry.body.path, time: entry.time, id: entry.id }
        const current = this.registrations.get(registration.object)
        if (current === undefined || compareReaderOrder(current, registration) < 0) {
          this.registrations.set(registration.object, registration)
          this.byPath = undefined
        }
      } else if (isDiagnostic(entry)) {
        this.diagnostics.add(JSON.stringify([entry.body.code, entry.body.path ?? '']))
      }
    }
  }

  /** The object's revisions that no recorded revision supersedes, sorted. */
  heads(object: Uuid): RevisionId[] {
    const known = this.objects.get(object)
    if (known === undefined) return []
    return [...known.revisions.keys()].filter((revision) => !known.parentsNamed.has(revision)).sort()
  }

  contentHashOf(object: Uuid, revision: RevisionId): ContentHash | undefined {
    return this.objects.get(object)?.revisions.get(revision)
  }

  /** The object's revisions with this content, in the order they were recorded. */
  revisionsWithContent(object: Uuid, contentHash: ContentHash): RevisionId[] {
    const known = this.objects.get(object)
    if (known === undefined) return []
    return [...known.revisions].flatMap(([revision, hash]) => (hash === contentHash ? [revision] : []))
  }

  /** The object's latest registered path (reader order), or null. */
  pathOf(object: Uuid): string | null {
    return this.registrations.get(object)?.path ?? null
  }

  /** The object whose latest registration names this path, or null. */
  objectAt(path: string): Uuid | null {
    if (this.byPath === undefined) {
      // Only an object's latest registration says where it is: one moved away no longer answers for its old path.
      const byPath = new Map<string, Registration>()
      for (const registration of this.registrations.values()) {
        const known = byPath.get(registration.path)
        if (known === undefined || compareReaderOrder(known, registration) < 0) byPath.set(registration.path, registration)
      }
      this.byPath = byPath
    }
    return this.byPath.get(path)?.object ?? null
  }

  hasDiagnostic(code: string, path: string): boolean {
    return this.diagnostics.has(JSON.stringify([code, path]))
  }
}
