/**
 * Crash-safe file placement (DESIGN.md §7, WS.SAVE_AS.6–8). Both functions write the new bytes to a temp file in the
 * target's own directory (same file system, so the final step is one atomic directory operation), fsync it, and only
 * then put it in place; the directory is fsync'd afterwards so the new name survives a power cut. Whatever happens —
 * an I/O error, a thrown fault hook, a kill — the target holds either its old bytes or the complete new ones, never
 * a prefix; on any failure the temp file is removed (a SIGKILL can leave one behind: `.quire-save-<pid>-*.tmp`,
 * saveTemp.ts, which the next look at the folder removes since its owner is dead: staleTemps.ts).
 *
 * - `writeFileAtomic` replaces the target with `rename(2)`. Rename never follows a symlink at the destination: if the
 *   target was swapped for a link after the scope check, the link itself is replaced and nothing is written where it
 *   points.
 * - `createFileExclusive` places the temp with `link(2)`, which fails with EEXIST if anything at all — a file, a
 *   directory, a symlink, even a dangling one — exists at that instant. That is the only way to be sure `save_as`
 *   never replaces a file that appeared while the save was running; a file that wins the race keeps its contents.
 *
 * Both expect `path` to be a *real* path (`ScopedPath.real`): the scope check already put it inside the workspace.
 * A save never creates a byte outside it (issue 11, finding 7): every step happens in a `VerifiedDirectory`, the
 * target's directory pinned by a descriptor and verified to still be at the checked path when it is opened, once the
 * temp file exists (removed if not) and right before the final rename or link. The temp file is created with
 * O_CREAT|O_EXCL|O_NOFOLLOW and mode 0600 (a killed save leaves nothing readable by others) and gets the target's
 * final mode only once it holds the complete content: the replaced file's mode, or for a new file 0666 minus the
 * person's umask (fileModes.ts).
 */
import { constants } from 'node:fs'
import { link, lstat, open, rename, unlink } from 'node:fs/promises'
import type { FileHandle } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { QuireError } from '../../core/errors.js'
import { newDocumentMode } from './fileModes.js'
import { placedFileOf, type PlacedFile } from './placedFile.js'
import { newSaveTempName } from './saveTemp.js'
import { VerifiedDirectory } from './verifiedDirectory.js'

/** The two files a step is about, for fault hooks (plain paths in the target's directory). */
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

/** A temp file is the saver's alone until it holds the complete content. */
const TEMP_MODE = 0o600

/** `link(2)` errors meaning "this file system cannot place a file without risking a replace": refuse (WS.SAVE_AS.8). */
const NO_LINK_SUPPORT = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EXDEV', 'ENOSYS', 'EMLINK'])

const errorCode = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined

const toBytes = (content: Uint8Array | string): Uint8Array => (typeof content === 'string' ? Buffer.from(content, 'utf8') : content)

/**
 * Replace `path` with `content` atomically. The new file keeps the old one's permission bits (and, where the
 * process may, its owner and group); a new file gets 0666 minus the person's umask. Strings are written as UTF-8,
 * verbatim: line endings and BOM are the caller's business. Throws `QuireError('INVALID_PATH')` if `path` is not in
 * `path.resolve` form or its directory is no longer at that path; I/O errors are rethrown as they come. Resolves
 * with the placed file's inode, size and time, for the disk watcher (placedFile.ts).
 */
export async function writeFileAtomic(path: string, content: Uint8Array | string, options: AtomicWriteOptions = {}): Promise<PlacedFile> {
  assertNormalPath(path)
  const faults = options.faults ?? {}
  const directory = await VerifiedDirectory.open(dirname(path), path)
  try {
    const existing = await statIfRegularFile(directory.at(basename(path)))
    const { temp, placed } = await writeTemp(directory, path, toBytes(content), existing, faults)
    const step = { target: path, temp: join(directory.path, temp) }
    let renamed = false
    try {
      await faults.beforeRename?.(step)
      await directory.verify(path)
      await rename(directory.at(temp), directory.at(basename(path)))
      renamed = true
      await faults.afterPlaced?.(step)
      await directory.sync()
    } finally {
      if (!renamed) await removeQuietly(directory.at(temp))
    }
    return placed
  } finally {
    await directory.close()
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
  const directory = await VerifiedDirectory.open(dirname(path), path)
  try {
    const target = directory.at(basename(path))
    // An early look saves writing a temp file for the common refusal; the link below is what actually guarantees it.
    if (await existsAtAll(target)) refuseExisting(path)
    const { temp } = await writeTemp(directory, path, toBytes(content), undefined, faults)
    const step = { target: path, temp: join(directory.path, temp) }
    try {
      await faults.beforeLink?.(step)
      await directory.verify(path)
      try {
        await link(directory.at(temp), target)
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
      await faults.afterPlaced?.(step)
    } finally {
      // Placed or not, the temp name must go; after a successful link it is a second name for the new file.
      await removeQuietly(directory.at(temp))
    }
    await directory.sync()
  } finally {
    await directory.close()
  }
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

/**
 * Create a fresh temp file in `directory` (mode 0600), fill and fsync it, then give it the target's final mode and
 * owner; on any failure remove it and rethrow. Returns the temp file's name and what it is as complete (placedFile.ts).
 */
async function writeTemp(
  directory: VerifiedDirectory,
  target: string,
  bytes: Uint8Array,
  existing: ExistingFile | undefined,
  faults: WriteFaults,
): Promise<{ temp: string; placed: PlacedFile }> {
  const { handle, temp } = await createTemp(directory)
  const step = { target, temp: join(directory.path, temp) }
  let closed = false
  try {
    // Created through the pinned directory, so it is in the checked folder unless that folder itself was moved
    // away meanwhile: then it is removed (below) before a byte is written.
    await directory.verify(target)
    await faults.afterTempCreated?.(step)
    await handle.writeFile(bytes)
    await handle.sync()
    const placed = await applyFinalAttributes(handle, existing)
    closed = true
    await handle.close()
    await faults.afterTempWritten?.(step)
    return { temp, placed }
  } catch (error) {
    if (!closed) await handle.close().catch(() => undefined)
    await removeQuietly(directory.at(temp))
    throw error
  }
}

/**
 * A new temp file in `directory`, opened with O_CREAT|O_EXCL|O_NOFOLLOW: it can neither reuse nor follow anything
 * already there. The name carries this process's pid (saveTemp.ts) and is short (it must fit NAME_MAX whatever the
 * target's name is).
 */
async function createTemp(directory: VerifiedDirectory): Promise<{ handle: FileHandle; temp: string }> {
  for (let attempt = 0; ; attempt++) {
    const temp = newSaveTempName()
    try {
      const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW
      return { handle: await open(directory.at(temp), flags, TEMP_MODE), temp }
    } catch (error) {
      if (errorCode(error) !== 'EEXIST' || attempt >= 4) throw error
    }
  }
}

/**
 * The mode the target ends up with: the replaced file's exactly (and, if allowed, its owner), or for a new file
 * 0666 minus the person's umask. Set on the descriptor, not by path, and only now that the content is complete.
 * Returns the complete file's identity, from the one `fstat` the owner check needs anyway (a chown changes none of it).
 */
async function applyFinalAttributes(handle: FileHandle, existing: ExistingFile | undefined): Promise<PlacedFile> {
  await handle.chmod(existing === undefined ? newDocumentMode() : existing.mode)
  const stats = await handle.stat({ bigint: true })
  if (existing !== undefined && (stats.uid !== BigInt(existing.uid) || stats.gid !== BigInt(existing.gid))) {
    // Only root (or a member of the group, for gid) may; otherwise the file becomes the saver's, as in most editors.
    await handle.chown(existing.uid, existing.gid).catch(() => undefined)
  }
  return placedFileOf(stats)
}

async function removeQuietly(path: string): Promise<void> {
  await unlink(path).catch(() => undefined)
}
