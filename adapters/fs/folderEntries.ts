/**
 * The console's file tree on the real file system: a folder's entries, a new folder, and a rename that never
 * replaces anything. Like the saves (atomicWrite.ts), every step happens in a `VerifiedDirectory`: the folder checked
 * to be in scope, pinned by a descriptor and verified to still be at its real path, so a folder swapped for a link
 * between the scope check and the operation makes it fail instead of acting somewhere else.
 *
 * Paths here are real paths (`ScopedPath.real`) the caller checked; listing checks each entry itself.
 */
import { chmod, link, lstat, mkdir, readdir, rename, rmdir, stat, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { QuireError } from '../../core/errors.js'
import { newFolderMode } from './fileModes.js'
import { VerifiedDirectory } from './verifiedDirectory.js'

export interface FolderEntry {
  readonly name: string
  /** The entry's real path (a link is listed where it leads, when that is in scope). */
  readonly path: string
  readonly type: 'file' | 'directory'
}

/** Where an entry is allowed to be seen: the scope's check, throwing for anything out of scope or Quire's own. */
export type EntryCheck = (path: string) => Promise<{ readonly real: string }>

/** No folder listing is longer than this: a tree is for finding a document, not for browsing node_modules whole. */
export const MAX_FOLDER_ENTRIES = 2000

const errorCode = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined

/**
 * The files and folders in `folder` that `check` lets through (sockets, FIFOs and devices are left out), folders
 * first, then by name; at most MAX_FOLDER_ENTRIES.
 */
export async function listFolder(folder: string, check: EntryCheck): Promise<{ entries: FolderEntry[]; truncated: boolean }> {
  const directory = await VerifiedDirectory.open(folder, folder)
  let names: string[]
  try {
    names = (await readdir(directory.at(''))).sort()
    await directory.verify(folder)
  } finally {
    await directory.close()
  }
  const entries: FolderEntry[] = []
  for (const name of names) {
    let real: string
    try {
      real = (await check(join(folder, name))).real
    } catch {
      continue // out of scope (a link leading outside), Quire's own data, a save temp: not shown
    }
    const kind = await stat(real).catch(() => undefined)
    if (kind?.isDirectory()) entries.push({ name, path: real, type: 'directory' })
    else if (kind?.isFile()) entries.push({ name, path: real, type: 'file' })
  }
  entries.sort((a, b) => (a.type === b.type ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.type === 'directory' ? -1 : 1))
  return { entries: entries.slice(0, MAX_FOLDER_ENTRIES), truncated: entries.length > MAX_FOLDER_ENTRIES }
}

/** Creates the folder `path`, which must not exist (anything at all there is refused), 0777 minus the person's umask. */
export async function createFolder(path: string): Promise<void> {
  const parent = await VerifiedDirectory.open(dirname(path), path)
  try {
    try {
      await mkdir(parent.at(basename(path)))
    } catch (error) {
      if (errorCode(error) === 'EEXIST') refuseExisting(path)
      throw error
    }
    await chmod(parent.at(basename(path)), newFolderMode())
    await parent.sync()
  } finally {
    await parent.close()
  }
}

/**
 * Moves the file or folder `from` to `to`, which must not exist at the instant it is placed: a file is hard-linked
 * at `to` (link(2) fails if anything is there) and then unlinked at `from`; a folder first gets an empty placeholder
 * folder at `to` (mkdir fails if anything is there), which rename(2) then replaces (a rename replaces an empty folder
 * only, so a placeholder something was put into meanwhile makes it fail). Either way nothing that was at `to` is lost.
 */
export async function renameEntry(from: string, to: string): Promise<void> {
  const source = await VerifiedDirectory.open(dirname(from), from)
  try {
    const target = await VerifiedDirectory.open(dirname(to), to)
    try {
      const what = await lstat(source.at(basename(from)))
      if (what.isDirectory()) await moveFolder(source, target, from, to)
      else if (what.isFile()) await moveFile(source, target, from, to)
      else throw new QuireError('INVALID_PATH', `${from} is neither a file nor a folder`, { reason: 'not_a_file', path: from })
      await source.sync()
      await target.sync()
    } finally {
      await target.close()
    }
  } finally {
    await source.close()
  }
}

async function moveFile(source: VerifiedDirectory, target: VerifiedDirectory, from: string, to: string): Promise<void> {
  await source.verify(from)
  await target.verify(to)
  try {
    await link(source.at(basename(from)), target.at(basename(to)))
  } catch (error) {
    if (errorCode(error) === 'EEXIST') refuseExisting(to)
    if (errorCode(error) === 'EXDEV') throw new QuireError('INVALID_PATH', `${to} is on another file system than ${from}; move it there by hand`, { reason: 'cross_device', path: to })
    throw error
  }
  await unlink(source.at(basename(from)))
}

async function moveFolder(source: VerifiedDirectory, target: VerifiedDirectory, from: string, to: string): Promise<void> {
  try {
    await mkdir(target.at(basename(to)), { mode: 0o700 })
  } catch (error) {
    if (errorCode(error) === 'EEXIST') refuseExisting(to)
    throw error
  }
  try {
    await source.verify(from)
    await target.verify(to)
    await rename(source.at(basename(from)), target.at(basename(to)))
  } catch (error) {
    await rmdir(target.at(basename(to))).catch(() => undefined)
    const code = errorCode(error)
    if (code === 'EINVAL') throw new QuireError('INVALID_PATH', `${from} cannot move into itself (${to})`, { reason: 'into_itself', path: to })
    if (code === 'ENOTEMPTY' || code === 'EEXIST') refuseExisting(to)
    throw error
  }
}

function refuseExisting(path: string): never {
  throw new QuireError('ALREADY_EXISTS', `${path} already exists; nothing was replaced`, { reason: 'exists', path })
}

