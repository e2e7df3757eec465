/**
 * What the core needs from the file system, implemented by adapters/fs. Every method that refuses a path throws
 * QuireError('INVALID_PATH', reason); `createExclusive` throws QuireError('APPROVAL_REQUIRED', ...) when anything
 * already exists at the target.
 */
export interface ResolvedPath {
  /** The absolute path as asked for. */
  readonly requested: string
  /** Where it really is (symlinks resolved; for a new file, the real parent joined with the name). */
  readonly real: string
  /** Whether something exists there now. */
  readonly exists: boolean
}

/** How a queued save ended: it ran and wrote, or a save of the same file issued later had already written it. */
export type SaveOutcome<T> = { readonly status: 'written'; readonly value: T } | { readonly status: 'superseded' }

/** One entry of a folder listing: a file or a folder, at its real path. */
export interface FolderEntry {
  readonly name: string
  readonly path: string
  readonly type: 'file' | 'directory'
}

export interface FolderListing {
  /** The folder's real path. */
  readonly path: string
  readonly entries: readonly FolderEntry[]
  /** More entries than a listing holds: the rest are not shown. */
  readonly truncated: boolean
}

export interface FileSystemPort {
  /** SCOPE.1–3: the path, resolved, if it lies inside one of `roots`. */
  resolveInScope(path: string, roots: readonly string[]): Promise<ResolvedPath>
  /** A text file's content for opening, line endings normalised to LF. */
  readText(path: string): Promise<string>
  /**
   * Runs `job` in the save queue of `path`'s real file (SAVE.1): one at a time per real file (a path and a symlink to
   * it share a queue), in the order issued; the ticket is taken when this is called, before any waiting. At the turn,
   * a save already overtaken by a later one resolves `superseded` without running (SAVE.3); otherwise `atTurn` runs
   * first (the scope re-check, SCOPE.5: throwing there rejects without running the job), then the job.
   */
  enqueueSave<T>(path: string, job: () => Promise<T>, atTurn: () => Promise<void>): Promise<SaveOutcome<T>>
  /** Replaces a file atomically (temp, fsync, rename, fsync dir): readers see the old or the new bytes. */
  writeAtomic(path: string, content: string): Promise<void>
  /** Creates a file that must not exist, atomically, never replacing anything (WS.SAVE_AS.6–8). */
  createExclusive(path: string, content: string): Promise<void>
  /** Removes temp files that saves killed mid-way left in `directory` long ago (never anything else). */
  removeStaleTemps(directory: string): Promise<void>
  /** Tells the disk watcher that Quire itself is about to write these bytes there (not an external change). */
  expectWrite(path: string, sha256: string): void
  /**
   * The folder `path`, resolved in the scope of `roots`, and those of its files and folders that resolve in the same
   * scope (a link leading outside, Quire's own data and save temps are left out), folders first.
   */
  listFolder(path: string, roots: readonly string[]): Promise<FolderListing>
  /** Creates a folder at a real path that must not exist; anything there is refused with ALREADY_EXISTS. */
  createFolder(path: string): Promise<void>
  /**
   * Moves a file or folder from one real path to another that must not exist (ALREADY_EXISTS, nothing replaced).
   * Refuses to move anything that holds Quire's own data directory.
   */
  rename(from: string, to: string): Promise<void>
}
