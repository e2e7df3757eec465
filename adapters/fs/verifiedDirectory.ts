/**
 * A directory pinned by an open descriptor, so that a save creates, renames and removes its files in the directory
 * that was checked to be in scope and nowhere else, even while a component of its path is being swapped for a
 * symlink (issue 11, finding 7: a folder swapped for a link during saves left temp files full of document text in
 * the folder the link pointed to).
 *
 * Node has no `openat`/`renameat`. On Linux `/proc/self/fd/N/name` stands in for them: the kernel resolves
 * `/proc/self/fd/N` to the very directory descriptor N holds, not to whatever its path leads to now, so every
 * operation through `at(name)` happens inside that directory. `verify()` asks the kernel where that directory is now
 * (`readlink` of the descriptor) and refuses unless it is still exactly the real path that was checked: a directory
 * reached through a swapped-in symlink, or moved away since, is refused before anything is written into it, and again
 * before the final rename.
 *
 * Without `/proc` (macOS, the BSDs) `at(name)` is the plain path and `verify()` compares `realpath`; a swap between the
 * check and the create can then still place a temp file elsewhere for a moment. That is a documented limit of those
 * platforms (docs/security.md).
 */
import { constants, existsSync } from 'node:fs'
import { open, readlink, realpath } from 'node:fs/promises'
import type { FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { QuireError } from '../../core/errors.js'

const PROC_FD = '/proc/self/fd'
const HAS_PROC_FD = process.platform === 'linux' && existsSync(PROC_FD)

/** Errors from fsync on a directory that only mean "this file system does not do that"; the data is still placed. */
const DIR_SYNC_UNSUPPORTED = new Set(['EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'EISDIR', 'EBADF', 'EPERM'])

const errorCode = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined

export class VerifiedDirectory {
  private constructor(
    /** The real path the directory was checked at (`dirname(ScopedPath.real)`). */
    readonly path: string,
    private readonly handle: FileHandle,
  ) {}

  /**
   * Opens `path` (a real path, free of symlinks when it was checked) and verifies the directory opened is the one at
   * that path. Throws `QuireError('INVALID_PATH', reason 'parent_changed')` otherwise; `target` names the file
   * being saved in the message.
   */
  static async open(path: string, target: string): Promise<VerifiedDirectory> {
    let handle: FileHandle
    try {
      // O_NOFOLLOW: a final component swapped for a link is refused outright (ELOOP).
      handle = await open(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW)
    } catch (error) {
      throw parentChanged(target, `its folder cannot be opened (${errorCode(error) ?? String(error)})`)
    }
    const directory = new VerifiedDirectory(path, handle)
    try {
      await directory.verify(target)
    } catch (error) {
      await directory.close()
      throw error
    }
    return directory
  }

  /** The path through which `name` is reached inside this very directory (see the module comment). */
  at(name: string): string {
    return HAS_PROC_FD ? `${PROC_FD}/${this.handle.fd}/${name}` : join(this.path, name)
  }

  /** Throws INVALID_PATH ('parent_changed') unless the directory is still at the path it was checked at. */
  async verify(target: string): Promise<void> {
    let now: string
    try {
      now = HAS_PROC_FD ? await readlink(`${PROC_FD}/${this.handle.fd}`) : await realpath(this.path)
    } catch (error) {
      throw parentChanged(target, `its folder disappeared (${errorCode(error) ?? String(error)})`)
    }
    if (now !== this.path) throw parentChanged(target, `its folder is now reached at ${now}`, now)
  }

  /** fsync the directory, so a rename or link in it is durable. */
  async sync(): Promise<void> {
    try {
      await this.handle.sync()
    } catch (error) {
      const code = errorCode(error)
      if (code === undefined || !DIR_SYNC_UNSUPPORTED.has(code)) throw error
    }
  }

  async close(): Promise<void> {
    await this.handle.close().catch(() => undefined)
  }
}

function parentChanged(target: string, why: string, real?: string): QuireError {
  return new QuireError('INVALID_PATH', `The save of ${target} was refused: ${why}, not where it was checked.`, {
    reason: 'parent_changed',
    path: target,
    ...(real === undefined ? {} : { real }),
  })
}
