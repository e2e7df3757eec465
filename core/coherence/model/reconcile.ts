import type { BodyOfKind } from '../entries.js'
import type { CoherenceProjection } from './breakdown.js'
import type { ContentHash, RevisionId, Uuid } from './entries.js'

/**
 * Scan reconciliation (spec §9.4): what the ledger must learn from the files on disk, decided as a pure function of
 * the projection of the ledger and one scan of the workspace. It decides, and appends nothing: `plannedEntries` says
 * which entry bodies to append, and the ledger writer gives them envelopes (ids, idems, times) and appends them, so a
 * decision can be tested without a disk and the writer stays the one place that appends.
 *
 * Only known objects are reconciled — files carrying a `vmark.id` the ledger knows, or registered objects. A file
 * without identity is not an object and is left alone (objects are adopted on first capture, never on scan); a file
 * with an id this ledger has never seen was moved in from elsewhere and is adopted.
 */

/** One file the scanner found, workspace-relative with `/` separators. The scanner never follows a symlink. */
export interface ScannedFile {
  readonly path: string
  readonly isSymlink: boolean
  /** The canonical, identity-masked content hash (spec §3.2). Absent for a symlink or an unreadable file. */
  readonly contentHash?: ContentHash | undefined
  /** `vmark.id` from the frontmatter (spec §2.1), when the file carries one. */
  readonly vmarkId?: Uuid | null | undefined
  /** `vmark.schema` from the frontmatter, when present. */
  readonly schema?: string | null | undefined
  /**
   * A binary file (spec §3.4): it carries no frontmatter, so its identity is the ledger's registration of its path
   * (spec §2.1, §5.4.6) and `vmarkId` is not read from it.
   */
  readonly binary?: boolean | undefined
  /** Set when the file could not be read as text: `unreadable` (I/O), `invalid-utf8`, `malformed-frontmatter`. */
  readonly unreadable?: { readonly code: string; readonly message: string } | undefined
}

/** What git says happened since the last scan (spec §5.4.2 classification; the classifier lives outside). */
export type GitObservation =
  | { readonly kind: 'none' }
  | { readonly kind: 'navigation'; readonly op: 'checkout' | 'branch-switch' | 'reset' | 'detach' | 'worktree-switch'; readonly from: string; readonly to: string; readonly ref?: string | undefined }
  | { readonly kind: 'mutation' }
  | { readonly kind: 'merge-in-progress' }

/** A transformation the scan must record: new content seen on disk (spec §9.4 rows 3, 4 and the adoption row). */
export interface ObservedRevision {
  readonly object: Uuid
  readonly path: string
  readonly contentHash: ContentHash
  /** The object's heads before the scan (all of them when it had several); empty for an adopted root. */
  readonly parents: readonly RevisionId[]
  /**
   * `external`: `agent.type = "external"`, empty inputs, `confidence = "unknown"`. `git`: the git classifier said
   * mutation (revert, merge): `agent.type = "git"`.
   */
  readonly origin: 'external' | 'git'
}

/** An `object-registered` entry the scan must append. */
export interface Registration {
  readonly object: Uuid
  readonly path: string
  readonly schema: string | null
  /** `moved`: same id at a new path (no revision). `schema-changed`: observed schema change. `adopted`: unknown id. */
  readonly reason: 'moved' | 'schema-changed' | 'adopted'
}

/** A `diagnostic` the scan found. `alreadyRecorded` ones are in the ledger and must not be appended again. */
export interface ScanDiagnostic {
  readonly code: string
  readonly path: string
  readonly message: string
  readonly alreadyRecorded: boolean
}

export interface Reconciliation {
  /** A merge is in progress (MERGE_HEAD): nothing is reconciled until it concludes. */
  readonly deferred: boolean
  /** The one `navigation` entry to append, when git navigated. */
  readonly navigation: Extract<GitObservation, { kind: 'navigation' }> | null
  /** Object-registered entries to append, in path order: moves and schema changes first, adoptions with their root. */
  readonly registrations: readonly Registration[]
  /** Transformations to append, in path order. An adopted object's root comes after its registration. */
  readonly revisions: readonly ObservedRevision[]
  /** Known objects whose content changed under a git navigation: no revision minted (spec §9.4, R18). */
  readonly navigated: ReadonlyArray<{ readonly object: Uuid; readonly path: string }>
  /** Known objects whose file was not found: hidden from the breakdown, history intact. Sorted. */
  readonly absent: readonly Uuid[]
  /** Ids carried by two or more files: captures against them are held until one path remains (spec §2.1). */
  readonly held: ReadonlyArray<{ readonly object: Uuid; readonly paths: readonly string[] }>
  readonly diagnostics: readonly ScanDiagnostic[]
  /** Files without identity: not objects, left alone. */
  readonly ignored: readonly string[]
  /** Known objects found unchanged. */
  readonly unchanged: ReadonlyArray<{ readonly object: Uuid; readonly path: string }>
}

const byPath = <T extends { readonly path: string }>(a: T, b: T) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)

/**
 * Reconciles one scan against the ledger's projection (spec §9.4, row by row):
 *
 * - known object, content hash equal to a head's: nothing;
 * - known object, content changed, git navigation: the navigation entry only, no revision;
 * - known object, content changed, git mutation: a git transformation, parents = the heads;
 * - known object, content changed otherwise: an observed-external transformation, parents = the heads;
 * - known object at a new path: its path re-registered, no revision (same content, same hash);
 * - known object's file not found: absent;
 * - one id in two or more files: a duplicate-id diagnostic for each path and a capture-hold, no other decision;
 * - unreadable / invalid UTF-8: a diagnostic, skipped;
 * - symlink: a diagnostic, skipped, never followed;
 * - no identity: ignored;
 * - an id unknown to this ledger: adopted (object-registered + an observed-external root transformation).
 */
export function reconcile(projection: CoherenceProjection, files: readonly ScannedFile[], git: GitObservation = { kind: 'none' }): Reconciliation {
  if (git.kind === 'merge-in-progress') {
    return { deferred: true, navigation: null, registrations: [], revisions: [], navigated: [], absent: [], held: [], diagnostics: [], ignored: [], unchanged: [] }
  }
  const diagnostics: ScanDiagnostic[] = []
  const diagnose = (code: string, path: string, message: string) => diagnostics.push({ code, path, message, alreadyRecorded: projection.hasDiagnostic(code, path) })

  const ignored: string[] = []
  const carriers = new Map<Uuid, ScannedFile[]>()
  for (const file of [...files].sort(byPath)) {
    if (file.isSymlink) {
      diagnose('symlink-skipped', file.path, 'symlinks are never followed')
      continue
    }
    if (file.unreadable !== undefined) {
      diagnose(file.unreadable.code, file.path, file.unreadable.message)
      continue
    }
    const identity = file.binary === true ? projection.objectAt(file.path) : (file.vmarkId ?? null)
    if (identity === null) {
      ignored.push(file.path)
      continue
    }
    const list = carriers.get(identity) ?? []
    list.push(file)
    carriers.set(identity, list)
  }

  const registrations: Registration[] = []
  const revisions: ObservedRevision[] = []
  const navigated: Array<{ object: Uuid; path: string }> = []
  const unchanged: Array<{ object: Uuid; path: string }> = []
  const held: Array<{ object: Uuid; paths: string[] }> = []
  const seen = new Set<Uuid>()

  for (const [object, list] of [...carriers.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    seen.add(object)
    if (list.length > 1) {
      // Never auto-resolved (I3): which file is the object is the person's call.
      const paths = list.map((file) => file.path)
      held.push({ object, paths })
      for (const path of paths) diagnose('duplicate-id', path, `vmark.id ${object} is carried by ${paths.join(', ')}; captures are held until it is at one path`)
      continue
    }
    const [file] = list
    if (file === undefined) continue
    // A binary's schema lives in the ledger only; a text file's frontmatter says its schema.
    const schema = file.binary === true ? projection.schemaOf(object) : (file.schema ?? null)
    if (file.contentHash === undefined) {
      diagnose('unreadable', file.path, 'the scanner gave no content hash for this file')
      continue
    }
    if (!projection.isKnown(object)) {
      registrations.push({ object, path: file.path, schema, reason: 'adopted' })
      revisions.push({ object, path: file.path, contentHash: file.contentHash, parents: [], origin: 'external' })
      continue
    }
    const knownPath = projection.pathOf(object)
    if (knownPath !== file.path) registrations.push({ object, path: file.path, schema, reason: 'moved' })
    else if (schema !== projection.schemaOf(object)) registrations.push({ object, path: file.path, schema, reason: 'schema-changed' })

    const heads = projection.dag.heads(object)
    const contentHash = file.contentHash
    if (heads.some((head) => projection.dag.revision(object, head)?.contentHash === contentHash)) {
      unchanged.push({ object, path: file.path })
      continue
    }
    if (git.kind === 'navigation') {
      navigated.push({ object, path: file.path })
      continue
    }
    revisions.push({ object, path: file.path, contentHash, parents: heads, origin: git.kind === 'mutation' ? 'git' : 'external' })
  }

  // A held id was seen (in several places), so it is not absent; neither is an unreadable file's object knowable.
  const absent = projection.knownObjects().filter((object) => !seen.has(object))

  return {
    deferred: false,
    navigation: git.kind === 'navigation' ? git : null,
    registrations: registrations.sort(byPath),
    revisions: revisions.sort(byPath),
    navigated,
    absent,
    held,
    diagnostics,
    ignored,
    unchanged,
  }
}

/** One entry body to append, with its kind: what `composeEntry(kind, body, origin)` of core/coherence takes. */
export type PlannedEntry =
  | { readonly kind: 'navigation'; readonly body: BodyOfKind['navigation'] }
  | { readonly kind: 'object-registered'; readonly body: BodyOfKind['object-registered'] }
  | { readonly kind: 'transformation'; readonly body: BodyOfKind['transformation'] }
  | { readonly kind: 'diagnostic'; readonly body: BodyOfKind['diagnostic'] }

/**
 * The entries a reconciliation asks for, in the order they must be appended: the navigation first (spec §5.4.2: git
 * is classified before content), then per path an object's registration before its revision (an adopted object is
 * registered before its root transformation exists), then the diagnostics not already in the ledger.
 *
 * `revisionId(contentHash, parents)` is the ledger's rev1 id function (spec §2.3), passed in so that one
 * implementation of it exists.
 */
export function plannedEntries(outcome: Reconciliation, revisionId: (contentHash: ContentHash, parents: readonly RevisionId[]) => RevisionId): PlannedEntry[] {
  if (outcome.deferred) return []
  const planned: PlannedEntry[] = []
  if (outcome.navigation !== null) {
    const { op, from, to, ref } = outcome.navigation
    planned.push({ kind: 'navigation', body: { git: { op, from, to, ...(ref === undefined ? {} : { ref }) } } })
  }
  const paths = [...new Set([...outcome.registrations.map((entry) => entry.path), ...outcome.revisions.map((entry) => entry.path)])].sort()
  for (const path of paths) {
    for (const registration of outcome.registrations.filter((entry) => entry.path === path)) {
      planned.push({ kind: 'object-registered', body: { object: registration.object, path: registration.path, ...(registration.schema === null ? {} : { schema: registration.schema }) } })
    }
    for (const observed of outcome.revisions.filter((entry) => entry.path === path)) {
      const parents = [...observed.parents].sort()
      planned.push({
        kind: 'transformation',
        body: {
          // R9: an honest empty input set — nobody knows what the change on disk was made from.
          inputs: [],
          outputs: [{ object: observed.object, revision: revisionId(observed.contentHash, parents), content_hash: observed.contentHash, parents }],
          agent: observed.origin === 'git' ? { type: 'git', id: 'merge-or-revert' } : { type: 'external' },
          intent:
            observed.origin === 'git'
              ? { kind: 'git-mutation', summary: 'content minted by a git operation' }
              : { kind: 'observed-external', summary: parents.length === 0 ? `adopted from disk at ${path}` : `change seen on disk at ${path}` },
          confidence: 'unknown',
        },
      })
    }
  }
  for (const diagnostic of outcome.diagnostics) {
    if (!diagnostic.alreadyRecorded) planned.push({ kind: 'diagnostic', body: { code: diagnostic.code, message: diagnostic.message, path: diagnostic.path } })
  }
  return planned
}
