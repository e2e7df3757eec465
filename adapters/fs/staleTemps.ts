import { lstat, readdir, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { parseSaveTempName } from './saveTemp.js'

/** Old enough that no save still running (in this or another Quire) can own it: a save takes milliseconds. */
export const STALE_AFTER_MS = 10 * 60 * 1000

/**
 * Removes temp files that a save killed mid-way (SIGKILL, power loss) left in `directory` (issue 11, finding 12):
 * regular files named exactly like Quire's temps (saveTemp.ts) whose owner, named in the file name, is a process
 * that no longer exists — at once, whatever their age — or, when the owner may still be saving (it is alive, it is
 * this process, or the name is an earlier version's without an owner), once untouched for `olderThanMs`. Never
 * follows or removes a symlink, never anything else; failures are ignored (it is tidying, not a save). Returns the
 * names removed.
 *
 * A pid says nothing across pid namespaces: a Quire in a container saving into the same folder may look dead from
 * here, and its save then fails to rename its temp (an error it reports; no data is lost).
 */
export async function removeStaleTemps(directory: string, now = Date.now(), olderThanMs = STALE_AFTER_MS): Promise<string[]> {
  let names: string[]
  try {
    names = await readdir(directory)
  } catch {
    return []
  }
  const removed: string[] = []
  for (const name of names) {
    const temp = parseSaveTempName(name)
    if (temp === undefined) continue
    const path = join(directory, name)
    try {
      const info = await lstat(path)
      if (!info.isFile()) continue
      const ownerDead = temp.owner !== 'unknown' && temp.owner !== process.pid && !isAlive(temp.owner)
      if (!ownerDead && now - info.mtimeMs < olderThanMs) continue
      await unlink(path)
      removed.push(name)
    } catch {
      // Gone already, or not ours to touch.
    }
  }
  return removed
}

/**
 * At start-up: the dead owners' temps (and stale ones) in each of `directories` — the folders of the documents the
 * log knows, where every save of this data directory wrote its temps. Returns how many were removed.
 */
export async function removeStaleTempsIn(directories: Iterable<string>): Promise<number> {
  let count = 0
  for (const directory of new Set(directories)) count += (await removeStaleTemps(directory)).length
  return count
}

/** Whether a process with this pid exists (EPERM: it does, it is another user's). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM'
  }
}
