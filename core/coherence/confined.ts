/**
 * The folders and files of a workspace's `.vmark/`, reached from the workspace root one name at a time without
 * following a link anywhere: a `.vmark`, `ledger`, `snapshots` or segment that is a link (a cloned repository may
 * hold one; another program may make one) would otherwise have Quire create folders, write document snapshots and
 * append JSON lines wherever it points, outside the workspace.
 *
 * Each folder is opened with `O_NOFOLLOW | O_DIRECTORY` through the descriptor of the one above it (on Linux the
 * kernel resolves `/proc/self/fd/N/name` inside the folder descriptor N holds, whatever its path leads to now), and
 * the kernel is asked where the opened folder is (`readlink` of its descriptor): anything but the expected real path
 * under the workspace root is refused. A caller verifies again right before it writes, and writes through the
 * descriptor's path, so a folder swapped for a link after the walk is refused rather than followed. Files are opened
 * with `O_NOFOLLOW` and must be regular; a file Quire appends to must have no other hard link (one to a file outside
 * would take the lines there).
 *
 * Without `/proc` (macOS, the BSDs) the folders are checked with `realpath` instead: a swap between that check and
 * the write can still reach outside for a moment (docs/security.md).
 */
import { constants, existsSync } from 'node:fs'
import { lstat, mkdir, open, readlink, realpath, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { CoherenceRefusal } from './refusal.js'

const PROC_FD = '/proc/self/fd'
const HAS_PROC_FD = process.platform === 'linux' && existsSync(PROC_FD)

/** What was wrong with a path of the ledger. */
export type UnsafeReason = 'link' | 'hard-link' | 'not-a-folder' | 'not-a-file' | 'moved'

const WHY: Readonly<Record<UnsafeReason, string>> = {
  link: 'is a link',
  'hard-link': 'is a hard link (the file has other names, possibly outside the workspace)',
  'not-a-folder': 'is not a folder',
  'not-a-file': 'is not a regular file',
  moved: 'is no longer where it was checked (a folder above it became a link, or was moved)',
}

/**
 * A ledger path Quire refuses to read or write through, named relative to the workspace root (`.vmark`,
 * `.vmark/ledger/<writer>.jsonl`). It is a coherence refusal: the coherence tools answer it as a plain string.
 */
export class UnsafeLedgerPath extends CoherenceRefusal {
  constructor(
    readonly root: string,
    /** Workspace-relative, `/`-separated; `''` is the workspace folder itself. */
    readonly path: string,
    readonly why: UnsafeReason,
  ) {
    super(
      'unsafe-link',
      `${path === '' ? `the workspace folder ${root}` : `${path} in ${root}`} ${WHY[why]}; Quire neither reads nor writes the coherence ledger through it (remove it, or make it a plain folder or file)`,
    )
  }
}

export const isUnsafeLedgerPath = (error: unknown): error is UnsafeLedgerPath => error instanceof UnsafeLedgerPath

const errorCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code

/** A folder under the workspace root, pinned by an open descriptor, reached without following any link. */
export class ConfinedDirectory {
  private constructor(
    readonly root: string,
    /** Workspace-relative, `/`-separated (`''`: the root). */
    readonly relative: string,
    /** Its real path. */
    readonly path: string,
    private readonly handle: FileHandle,
  ) {}

  /**
   * `root/parts[0]/parts[1]/…`, each a real folder (created when missing and `create`), or undefined when one is
   * missing and not to be created. Throws UnsafeLedgerPath for a link or a non-folder on the way.
   */
  static async open(root: string, parts: readonly string[], options: { readonly create: boolean }): Promise<ConfinedDirectory | undefined> {
    let current = await ConfinedDirectory.pin(root, '', root, root)
    for (const part of parts) {
      let next: ConfinedDirectory | undefined
      try {
        next = await current.child(part, options)
      } finally {
        await current.close()
      }
      if (next === undefined) return undefined
      current = next
    }
    return current
  }

  /** The folder `name` inside this one (created when missing and `create`), or undefined when missing. */
  async child(name: string, options: { readonly create: boolean }): Promise<ConfinedDirectory | undefined> {
    const relative = this.relative === '' ? name : `${this.relative}/${name}`
    if (options.create) {
      try {
        await mkdir(this.at(name))
      } catch (error) {
        // Whatever is there already (a folder, a link, a file) is judged by the open below.
        if (errorCode(error) !== 'EEXIST') throw error
      }
    }
    try {
      return await ConfinedDirectory.pin(this.root, relative, join(this.path, name), this.at(name))
    } catch (error) {
      if (errorCode(error) === 'ENOENT' && !options.create) return undefined
      throw error
    }
  }

  /** The path through which `name` is reached inside this very folder. */
  at(name: string): string {
    return HAS_PROC_FD ? `${PROC_FD}/${this.handle.fd}/${name}` : join(this.path, name)
  }

  /** Throws UnsafeLedgerPath ('moved') unless the folder is still at its real path: call right before writing. */
  async verify(): Promise<void> {
    let now: string
    try {
      now = HAS_PROC_FD ? await readlink(`${PROC_FD}/${this.handle.fd}`) : await realpath(this.path)
    } catch {
      throw new UnsafeLedgerPath(this.root, this.relative, 'moved')
    }
    if (now !== this.path) throw new UnsafeLedgerPath(this.root, this.relative, 'moved')
  }

  /**
   * Opens the file `name` in this folder without following a link. `appending`: the file must also have no other
   * hard link. Undefined when it does not exist (and `flags` do not create it).
   */
  async file(name: string, flags: number, options: { readonly mode?: number; readonly appending?: boolean } = {}): Promise<FileHandle | undefined> {
    const relative = this.relative === '' ? name : `${this.relative}/${name}`
    let handle: FileHandle
    // Checked before (nothing is created in a folder that moved) and after the open (the file is where it was meant).
    await this.verify()
    try {
      // O_NONBLOCK: a FIFO planted under a segment's name must not hang the read (no effect on a regular file).
      handle = await open(this.at(name), flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, options.mode ?? 0o644)
    } catch (error) {
      const code = errorCode(error)
      if (code === 'ENOENT') return undefined
      if (code === 'ELOOP') throw new UnsafeLedgerPath(this.root, relative, 'link')
      if (code === 'EISDIR') throw new UnsafeLedgerPath(this.root, relative, 'not-a-file')
      throw error
    }
    try {
      const info = await handle.stat()
      if (!info.isFile()) throw new UnsafeLedgerPath(this.root, relative, 'not-a-file')
      if (options.appending && info.nlink > 1) throw new UnsafeLedgerPath(this.root, relative, 'hard-link')
      await this.verify()
    } catch (error) {
      await handle.close().catch(() => undefined)
      throw error
    }
    return handle
  }

  /** Refuses a link at `name` (a file about to be created or replaced there must not be one). */
  async assertNotLink(name: string): Promise<boolean> {
    try {
      if ((await lstat(this.at(name))).isSymbolicLink()) throw new UnsafeLedgerPath(this.root, this.relative === '' ? name : `${this.relative}/${name}`, 'link')
      return true
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return false
      throw error
    }
  }

  /** fsync the folder (best effort: some file systems do not sync folders), so a rename in it is durable. */
  async sync(): Promise<void> {
    await this.handle.sync().catch(() => undefined)
  }

  async close(): Promise<void> {
    await this.handle.close().catch(() => undefined)
  }

  private static async pin(root: string, relative: string, expected: string, through: string): Promise<ConfinedDirectory> {
    let handle: FileHandle
    try {
      handle = await open(through, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW)
    } catch (error) {
      const code = errorCode(error)
      if (code === 'ELOOP') throw new UnsafeLedgerPath(root, relative, 'link')
      if (code === 'ENOTDIR') {
        const link = await lstat(through).then((info) => info.isSymbolicLink(), () => false)
        throw new UnsafeLedgerPath(root, relative, link ? 'link' : 'not-a-folder')
      }
      throw error
    }
    const directory = new ConfinedDirectory(root, relative, expected, handle)
    try {
      await directory.verify()
    } catch (error) {
      await directory.close()
      throw error
    }
    return directory
  }
}

/** Runs `job` with the folder `root/parts…` (see ConfinedDirectory.open), closing it after; undefined when missing. */
export async function withDirectory<T>(
  root: string,
  parts: readonly string[],
  options: { readonly create: boolean },
  job: (directory: ConfinedDirectory) => Promise<T>,
): Promise<T | undefined> {
  const directory = await ConfinedDirectory.open(root, parts, options)
  if (directory === undefined) return undefined
  try {
    return await job(directory)
  } finally {
    await directory.close()
  }
}
