/**
 * Crash-safe file placement (DESIGN.md §7, WS.SAVE_AS.6–8). Both functions write the new bytes to a temp file in the
 * target's own directory (same file system, so the final step is one atomic directory operation), fsync it, and only
 * then put it in place; the directory is fsync'd afterwards so the new name survives a power cut. Whatever happens —
 * an I/O error, a thrown fault hook, a kill — the target holds either its old bytes or the complete new ones, never
 * a prefix; on any failure the temp file is removed (a SIGKILL can leave one behind: `.quire-save-*.tmp`).
 *
 * - `writeFileAtomic` replaces the target with `rename(2)`. Rename never follows a symlink at the destination: if the
 *   target was swapped for a link after the scope check, the link itself is replaced and nothing is written where it
 *   points.
 * - `createFileExclusive` places the temp with `link(2)`, which fails with EEXIST if anything at all — a file, a
 *   directory, a symlink, even a dangling one — exists at that instant. That is the only way to be sure `save_as`
 *   never replaces a file that appeared while the save was running; a file that wins the race keeps its contents.
 *
 * Both expect `path` to be a *real* path (`ScopedPath.real`). Right before the final step they check that the
 * directory still resolves to itself: if a parent directory was swapped for a symlink since the scope check, the
 * write is refused rather than landing wherever the link points. (Node has no `openat`/`renameat`, so a swap in the
 * microseconds between that check and the rename remains possible; it needs write access to the workspace's parent.)
 */
import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { link, lstat, open, realpath, rename, unlink } from 'node:fs/promises'
import type { FileHandle } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { QuireError } from '../../core/errors.js'

/** The two files a step is about, for fault hooks. */
export interface WriteStep {
  readonly target: string
  readonly temp: string
}

/**
 * Test seams: each hook runs at one step of the write and may pause it (to let a test change the file system) or
 * throw (to fail it there, as an I/O error would). Production code passes none.
 */
export interface WriteFaults {
  /** The temp file exists (created with `wx`), nothing written to it yet. */
  readonly afterTempCreated?: (step: WriteStep) => Promise<void> | void
  /** The temp file holds the full new content, fsync'd and closed. */
  readonly afterTempWritten?: (step: WriteStep) => Promise<void> | void
  /** `writeFileAtomic` only: about to check the directory and rename the temp over the target. */
  readonly beforeRename?: (step: WriteStep) => Promise<void> | void
  /** `createFileExclusive` only: about to check the directory and link the temp to the target. */
  readonly beforeLink?: (step: WriteStep) => Promise<void> | void
  /** The target holds the new content; the directory is not fsync'd yet (and, after a link, the temp not removed). */
  readonly afterPlaced?: (step: WriteStep) => Promise<void> | void
}

export interface AtomicWriteOptions {
  readonly faults?: WriteFaults
}

/** Permissions for a file that did not exist before (the process umask still applies, as for any new file). */
const NEW_FILE_MODE = 0o644

/** `link(2)` errors meaning "this file system cannot place a file without risking a replace": refuse (WS.SAVE_AS.8). */
const NO_LINK_SUPPORT = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EXDEV', 'ENOSYS', 'EMLINK'])

/** Errors from fsync on a directory that only mean "this file system does not do that"; the data is still placed. */
const DIR_SYNC_UNSUPPORTED = new Set(['EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'EISDIR', 'EBADF', 'EPERM'])

const errorCode = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined

const toBytes = (content: Uint8Array | string): Uint8Array => (typeof content === 'string' ? Buffer.from(content, 'utf8') : content)

/**
 * Replace `path` with `content` atomically. The new file keeps the old one's permission bits (and, where the
 * process may, its owner and group); a new file gets 0o644 minus the umask. Strings are written as UTF-8, verbatim:
 * line endings and BOM are the caller's business. Throws `QuireError('INVALID_PATH')` if `path` is not in
 * `path.resolve` form or its directory no longer resolves to itself; I/O errors are rethrown as they come.
 */
export async function writeFileAtomic(path: string, content: Uint8Array | string, options: AtomicWriteOptions = {}): Promise<void> {
  assertNormalPath(path)
  const faults = options.faults ?? {}
  const existing = await statIfRegularFile(path)
  const temp = await writeTemp(path, toBytes(content), existing, faults)
  let placed = false
  try {
    await faults.beforeRename?.({ target: path, temp })
    await assertDirectoryUnchanged(path)
    await rename(temp, path)
    placed = true
    await faults.afterPlaced?.({ target: path, temp })
    await syncDirectory(dirname(path))
  } finally {
    if (!placed) await removeQuietly(temp)
  }
}

/**
 * Create `path` with `content` only if nothing exists there at the instant it is placed. Anything in the way — found
 * up front or appearing while the temp file was written — is refused with `QuireError('APPROVAL_REQUIRED')` and
 * left exactly as it was. A file system without hard links is refused with `QuireError('INVALID_PATH')` rather than
 * risking a replace. Other I/O errors are rethrown.
 */
export async function createFileExclusive(path: string, content: Uint8Array | string, options: AtomicWriteOptions = {}): Promise<void> {
  assertNormalPath(path)
  const faults = options.faults ?? {}
  // An early look saves writing a temp file for the common refusal; the link below is what actually guarantees it.
  if (await existsAtAll(path)) refuseExisting(path)
  const temp = await writeTemp(path, toBytes(content), undefined, faults)
  try {
    await faults.beforeLink?.({ target: path, temp })
    await assertDirectoryUnchanged(path)
    try {
      await link(temp, path)
    } catch (error) {
      const code = errorCode(error)
      if (code === 'EEXIST') refuseExisting(path)
      if (code !== undefined && NO_LINK_SUPPORT.has(code)) {
        throw new QuireError(
          'INVALID_PATH',
          `Cannot create ${path} safely: the file system does not support creating a file without possibly replacing one (${code}).`,
          { reason: 'no_exclusive_create', path, cause: code },
        )
      }
      throw error
    }
    await faults.afterPlaced?.({ target: path, temp })
  } finally {
    // Placed or not, the temp name must go; after a successful link it is a second name for the new file.
    await removeQuietly(temp)
  }
  await syncDirectory(dirname(path))
}

function refuseExisting(path: string): never {
  throw new QuireError('APPROVAL_REQUIRED', `${path} already exists; save_as never replaces a file it does not own.`, {
    reason: 'exists',
    path,
  })
}

/** Callers pass `ScopedPath.real`; anything with `.`/`..`/`//`/a trailing slash or relative is a caller bug. */
function assertNormalPath(path: string): void {
  if (path.length === 0 || path.includes('\0') || resolve(path) !== path || basename(path) === '') {
    throw new QuireError('INVALID_PATH', `${JSON.stringify(path)} is not a normalised absolute file path.`, { reason: 'not_normalised', path })
  }
}

/**
 * The target's directory must still be the directory that was checked: `path` came from `realpath`, so its parent
 * resolving to anything else means a component was swapped for a symlink since the check.
 */
async function assertDirectoryUnchanged(path: string): Promise<void> {
  const directory = dirname(path)
  let real: string
  try {
    real = await realpath(directory)
  } catch (error) {
    throw new QuireError('INVALID_PATH', `The folder of ${path} disappeared during the save (${errorCode(error) ?? String(error)}).`, {
      reason: 'parent_changed',
      path,
    })
  }
  if (real !== directory) {
    throw new QuireError('INVALID_PATH', `The folder of ${path} now resolves to ${real}; the save was refused.`, {
      reason: 'parent_changed',
      path,
      real,
    })
  }
}

interface ExistingFile {
  readonly mode: number
  readonly uid: number
  readonly gid: number
}

/** Mode and owner of the file being replaced, if it is a regular file (a link's target is not ours to copy). */
async function statIfRegularFile(path: string): Promise<ExistingFile | undefined> {
  try {
    const stats = await lstat(path)
    return stats.isFile() ? { mode: stats.mode & 0o7777, uid: stats.uid, gid: stats.gid } : undefined
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined
    throw error
  }
}

async function existsAtAll(path: string): Promise<boolean> {
  try {
    await lstat(path)
    return true
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false
    throw error
  }
}

/** Create a fresh temp file next to `target`, fill and fsync it; on any failure remove it and rethrow. */
async function writeTemp(target: string, bytes: Uint8Array, existing: ExistingFile | undefined, faults: WriteFaults): Promise<string> {
  const { handle, temp } = await createTemp(target, existing?.mode ?? NEW_FILE_MODE)
  let closed = false
  try {
    await faults.afterTempCreated?.({ target, temp })
    if (existing !== undefined) await copyAttributes(handle, existing)
    await handle.writeFile(bytes)
    await handle.sync()
    closed = true
    await handle.close()
    await faults.afterTempWritten?.({ target, temp })
    return temp
  } catch (error) {
    if (!closed) await handle.close().catch(() => undefined)
    await removeQuietly(temp)
    throw error
  }
}

/**
 * A new temp file in the target's directory, opened with O_CREAT|O_EXCL (`wx`): it can neither reuse nor follow
 * anything already there. The name is random and short (it must fit NAME_MAX whatever the target's name is).
 */
async function createTemp(target: string, mode: number): Promise<{ handle: FileHandle; temp: string }> {
  for (let attempt = 0; ; attempt++) {
    const temp = join(dirname(target), `.quire-save-${randomBytes(8).toString('hex')}.tmp`)
    try {
      return { handle: await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode), temp }
    } catch (error) {
      if (errorCode(error) !== 'EEXIST' || attempt >= 4) throw error
    }
  }
}

/** Keep the replaced file's permission bits exactly (open's mode was filtered by the umask) and, if allowed, owner. */
async function copyAttributes(handle: FileHandle, existing: ExistingFile): Promise<void> {
  await handle.chmod(existing.mode)
  const stats = await handle.stat()
  if (stats.uid !== existing.uid || stats.gid !== existing.gid) {
    // Only root (or a member of the group, for gid) may; otherwise the file becomes the saver's, as in most editors.
    await handle.chown(existing.uid, existing.gid).catch(() => undefined)
  }
}

/** fsync a directory so a rename or link in it is durable. */
async function syncDirectory(directory: string): Promise<void> {
  let handle: FileHandle | undefined
  try {
    handle = await open(directory, constants.O_RDONLY | constants.O_DIRECTORY)
    await handle.sync()
  } catch (error) {
    const code = errorCode(error)
    if (code === undefined || !DIR_SYNC_UNSUPPORTED.has(code)) throw error
  } finally {
    await handle?.close().catch(() => undefined)
  }
}

async function removeQuietly(path: string): Promise<void> {
  await unlink(path).catch(() => undefined)
}
