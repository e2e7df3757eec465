/**
 * Path scope (TOOLS.md SCOPE.1–SCOPE.5, DESIGN.md §7): `workspace.open`, `save` and `save_as` may only touch files
 * inside an open workspace root or the directory of an open document. This is the check the MCP filesystem server
 * got wrong twice (research/mcp-and-browser.md §2.2), so each rule below names the hole it closes:
 *
 * - The requested string is taken exactly as given: never trimmed, unquoted or home-expanded. A path that means
 *   something different after "cleaning" is a path the caller did not ask for.
 * - Only absolute paths: a relative path would be resolved against whatever directory the process happens to run in.
 * - No NUL byte: the kernel stops at NUL, so `"/ws/a.md\0/../../etc"` would be checked as one path and opened as
 *   another.
 * - Containment is separator-aware: equal to a root, or starting with `root + sep`. A bare `startsWith(root)` let
 *   `/tmp/allowed_evil` pass for `/tmp/allowed` (CVE-2025-53110).
 * - The lexical check runs first, on the `path.resolve`d form (`..` and `.` folded), then the *real* location must be
 *   inside too: a symlink inside a root that points outside is refused.
 * - Only when `realpath` fails with ENOENT (the file does not exist yet) does the check fall back to the real parent
 *   directory. Any other failure (ELOOP, ENOTDIR, EACCES, ...) is a refusal, never a fallback: falling back on every
 *   error let a symlink pointing outside pass because its parent was inside (CVE-2025-53109).
 * - A dangling symlink as the target is refused: its real location is wherever the link points, which the parent
 *   check cannot see.
 * - Roots are compared in both their given and their realpath forms, so a root opened through a symlink (or macOS's
 *   `/tmp` → `/private/tmp`) still contains its files.
 * - Quire's own data is never in scope, whatever the roots (issue 11): a workspace may well contain the data
 *   directory (`--workspace ~`), but the port file holds the person's token and a write into the log breaks it. The
 *   data directory is refused in its given and real forms, both on the requested path and on the real location
 *   (so a symlink into it is refused too), and so is any save temp file (`.quire-save-*.tmp`) anywhere.
 * - Nor is any workspace's coherence state (`.vmark/`, VMark's ledger): a delegation line saved there would let an
 *   assistant grant itself what only the person may. Any path with a `.vmark` segment, in its given or real form, is
 *   refused (case folded: on a case-insensitive disk `.VMARK` is the same folder).
 *
 * What to operate on is `real`, never the requested string: between this check and the write a component of the
 * requested path may be swapped for a symlink. `writeFileAtomic`/`createFileExclusive` and `readText` are built to
 * be handed `real` (they refuse to follow a swapped-in final symlink or parent directory).
 */
import { realpathSync } from 'node:fs'
import { lstat, realpath } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path'
import { VMARK_DIRECTORY } from '../../core/coherence/layout.js'
import { QuireError } from '../../core/errors.js'
import { isSaveTempName } from './saveTemp.js'

/** Machine-readable reason in `details.reason` of every INVALID_PATH this module throws. */
export type ScopeRefusal =
  | 'not_a_string'
  | 'empty'
  | 'nul_byte'
  | 'not_absolute'
  | 'no_scope'
  | 'outside_scope'
  | 'symlink_outside_scope'
  | 'dangling_symlink'
  | 'not_a_file_name'
  | 'parent_missing'
  | 'unresolvable'
  | 'quire_data'
  | 'coherence_ledger'

/** A path accepted by the scope. */
export interface ScopedPath {
  /** The requested path in lexical normal form (`path.resolve`: `.`/`..`/`//` folded, no trailing separator). */
  readonly requested: string
  /**
   * Where the operation must happen: `realpath` of the target, or `realpath(parent)` joined with the final name when
   * nothing exists there yet. Free of symlinks at the time of the check.
   */
  readonly real: string
  /** Whether something existed at the target when it was checked (false: a new file in an existing directory). */
  readonly exists: boolean
}

function refuse(requested: unknown, reason: ScopeRefusal, message: string, extra: Record<string, unknown> = {}): never {
  throw new QuireError('INVALID_PATH', message, { reason, path: typeof requested === 'string' ? requested : undefined, ...extra })
}

const errorCode = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined

/** `candidate` equals `root` or lies below it, by whole path segments (both must be in `path.resolve` form). */
export function isWithin(candidate: string, root: string): boolean {
  if (candidate === root) return true
  // `/` is the one root that already ends in a separator; `root + sep` would be `//`, which nothing starts with.
  const prefix = root.endsWith(sep) ? root : root + sep
  return candidate.startsWith(prefix)
}

/** Whether `location` lies in (or is) a `.vmark` folder: some workspace's coherence ledger. */
function isCoherenceState(location: string): boolean {
  return location.split(sep).some((segment) => segment.toLowerCase() === VMARK_DIRECTORY)
}

/** The basic shape every requested path and every root must have, before any file-system access. */
function checkShape(requested: unknown): asserts requested is string {
  if (typeof requested !== 'string') refuse(requested, 'not_a_string', 'The path must be a string.')
  if (requested.length === 0) refuse(requested, 'empty', 'The path is empty.')
  if (requested.includes('\0')) refuse(requested, 'nul_byte', 'The path contains a NUL byte.')
  if (!isAbsolute(requested)) refuse(requested, 'not_absolute', `The path ${JSON.stringify(requested)} is not absolute; give the full path.`)
}

/**
 * Every form of Quire's data directory to refuse: `path.resolve` of it and its realpath (resolved once, when the
 * file system is built: the directory is Quire's, nobody moves it under a running daemon).
 */
export function ownDataForms(directory: string): string[] {
  checkShape(directory)
  const forms = new Set([resolve(directory)])
  try {
    forms.add(realpathSync(directory))
  } catch {
    // Not there yet: its given form still matches everything that would be created inside it.
  }
  return [...forms]
}

/**
 * The set of directories Quire may open and save files in. Immutable: when a workspace or document opens or closes,
 * build a new scope (`PathScope.create`) and re-check queued saves against it at their turn (SCOPE.5).
 */
export class PathScope {
  private constructor(
    /** Each root in `path.resolve` form, then its realpath when that differs (deduplicated). */
    private readonly forms: readonly string[],
    /** Directories that are Quire's own (the data directory), in every form they are matched in: never in scope. */
    private readonly ownData: readonly string[] = [],
    /**
     * Set by `canonical`: `forms` are roots stored canonically that count only while each still resolves to itself,
     * and that has not been checked yet (see `resolveWithinCanonicalRoot`).
     */
    private readonly selfResolutionUnchecked = false,
  ) {}

  /**
   * A scope over `roots` (open workspace roots and the directories of open documents). Every root must be an
   * absolute path without NUL; a malformed root is a bug in the caller and throws. A root that cannot be resolved
   * right now (deleted, unreadable) keeps only its given form, so it matches nothing that has a real location.
   */
  static async create(roots: Iterable<string>, /** `ownDataForms` of the data directory. */ ownData: readonly string[] = []): Promise<PathScope> {
    const forms = new Set<string>()
    for (const root of roots) {
      checkShape(root)
      const given = resolve(root)
      forms.add(given)
      try {
        forms.add(await realpath(given))
      } catch {
        // Keep the given form only (see above).
      }
    }
    return new PathScope([...forms], ownData.map((form) => resolve(form)))
  }

  /**
   * A scope over roots already stored in canonical form (realpath taken when they were opened), matched only in that
   * form. A root that no longer resolves to itself (renamed away and replaced by a symlink, or deleted) contributes
   * nothing: following it now would put whatever it points to in scope.
   */
  static async canonical(roots: Iterable<string>, ownData: readonly string[] = []): Promise<PathScope> {
    const forms = new Set<string>()
    for (const root of roots) {
      checkShape(root)
      forms.add(resolve(root))
    }
    // Which roots still resolve to themselves is asked only when a path's own resolution does not already answer it:
    // a realpath per root on every check was most of the scope's cost on a save (issue 16).
    return new PathScope([...forms], ownData.map((form) => resolve(form)), true)
  }

  /** `canonical`'s scope with each root's self-resolution checked now: the roots that fail it are dropped. */
  private async withSelfResolvingRoots(): Promise<PathScope> {
    const forms: string[] = []
    for (const root of this.forms) {
      try {
        if ((await realpath(root)) === root) forms.push(root)
      } catch {
        // Gone: nothing inside it is in scope.
      }
    }
    return new PathScope(forms, this.ownData)
  }

  /** The scope with no roots: every path is refused (SCOPE.3). */
  static readonly empty: PathScope = new PathScope([])

  /**
   * Roots in every form they are matched in (given and real). For a `canonical` scope, the roots as stored: which of
   * them still resolve to themselves is checked only by `resolveInScope`.
   */
  get roots(): readonly string[] {
    return this.forms
  }

  get isEmpty(): boolean {
    return this.forms.length === 0
  }

  /** Whether `absolute` (already in `path.resolve` form) is inside any root form. Purely lexical. */
  contains(absolute: string): boolean {
    return this.forms.some((root) => isWithin(absolute, root))
  }

  /**
   * The path to operate on for `requested`, or a `QuireError('INVALID_PATH')` whose `details.reason` is a
   * `ScopeRefusal`. Never follows a fallback on anything but ENOENT.
   */
  async resolveInScope(requested: string): Promise<ScopedPath> {
    checkShape(requested)
    if (this.selfResolutionUnchecked) {
      return (await this.resolveWithinCanonicalRoot(requested)) ?? (await this.withSelfResolvingRoots()).resolveInScope(requested)
    }
    if (this.isEmpty) {
      refuse(requested, 'no_scope', 'No workspace or document is open, so no path is in scope; open a workspace first.')
    }
    const lexical = resolve(requested)
    this.refuseOwnData(requested, lexical)
    if (!this.contains(lexical)) {
      refuse(requested, 'outside_scope', `${requested} is outside the open workspace folders and the folders of open documents.`)
    }

    let real: string
    try {
      real = await realpath(requested)
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') {
        return refuse(requested, 'unresolvable', `${requested} cannot be resolved (${errorCode(error) ?? String(error)}).`, {
          cause: errorCode(error),
        })
      }
      return this.resolveNewFile(requested, lexical)
    }
    this.refuseOwnData(requested, real)
    if (!this.contains(real)) {
      refuse(requested, 'symlink_outside_scope', `${requested} is a link to ${real}, which is outside the open workspace folders.`, {
        real,
      })
    }
    return { requested: lexical, real, exists: true }
  }

  /**
   * The common case of a `canonical` scope, answered with the one realpath of `requested`: an existing file whose
   * lexical and real forms lie inside the same stored root, strictly below it. A real path is free of symlinks, so
   * every directory above it resolves to itself: that root passes the self-resolution check at the instant of this
   * realpath, and the full check would accept the path with the same answer. Anything else (a new file, a refusal,
   * own data, a path reached through another root) returns undefined, and the full check decides with its own reasons.
   */
  private async resolveWithinCanonicalRoot(requested: string): Promise<ScopedPath | undefined> {
    const lexical = resolve(requested)
    let real: string
    try {
      real = await realpath(requested)
    } catch {
      return undefined
    }
    if (this.isOwnData(lexical) || this.isOwnData(real)) return undefined
    const within = this.forms.some((root) => real !== root && isWithin(real, root) && isWithin(lexical, root))
    return within ? { requested: lexical, real, exists: true } : undefined
  }

  private isOwnData(location: string): boolean {
    return this.ownData.some((directory) => isWithin(location, directory)) || isSaveTempName(basename(location)) || isCoherenceState(location)
  }

  /**
   * Refuses `location` (a lexical or real form of `requested`) when it is Quire's data directory, inside it, a save
   * temp, or coherence state.
   */
  private refuseOwnData(requested: string, location: string): void {
    if (isCoherenceState(location)) {
      refuse(requested, 'coherence_ledger', `${requested} is part of a coherence ledger (.vmark/); Quire keeps it itself and never opens or saves it for anyone.`)
    }
    const inData = this.ownData.some((directory) => isWithin(location, directory))
    if (this.isOwnData(location)) {
      refuse(
        requested,
        'quire_data',
        inData
          ? `${requested} is Quire's own data (its data directory); Quire never opens or writes its own files for anyone.`
          : `${requested} is Quire's own data (the temp file of a save in progress); it is never opened or written.`,
      )
    }
  }

  /** Nothing exists at `requested` (realpath said ENOENT): check the real parent directory instead. */
  private async resolveNewFile(requested: string, lexical: string): Promise<ScopedPath> {
    // The name as the caller wrote it: `/ws/new.md/`, `/ws/x/.` or `/ws/x/..` name a directory, not a file to create.
    const name = requested.slice(requested.lastIndexOf(sep) + 1)
    if (name === '' || name === '.' || name === '..') {
      refuse(requested, 'not_a_file_name', `${requested} does not end in a file name.`)
    }
    // realpath said ENOENT, yet something may be there: a symlink whose chain ends nowhere. Where it points is its
    // real location, which the parent check below cannot see, so it is refused outright.
    let danglingLink = false
    try {
      danglingLink = (await lstat(requested)).isSymbolicLink()
    } catch {
      // Nothing there: the expected case for a new file.
    }
    if (danglingLink) {
      refuse(requested, 'dangling_symlink', `${requested} is a symbolic link to a file that does not exist.`)
    }
    let parent: string
    try {
      // The parent as written (not the lexical form): `/ws/link/../new.md` must go through the link, as the kernel would.
      parent = await realpath(dirname(requested))
    } catch (error) {
      const code = errorCode(error)
      return refuse(
        requested,
        code === 'ENOENT' || code === 'ENOTDIR' ? 'parent_missing' : 'unresolvable',
        `The folder of ${requested} does not exist or cannot be resolved (${code ?? String(error)}).`,
        { cause: code },
      )
    }
    const real = join(parent, name)
    this.refuseOwnData(requested, real)
    if (!this.contains(real)) {
      refuse(requested, 'symlink_outside_scope', `${requested} would be created at ${real}, which is outside the open workspace folders.`, {
        real,
      })
    }
    return { requested: lexical, real, exists: false }
  }
}
