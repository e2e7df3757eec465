import { lstat, readdir, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { parseSaveTempName } from './saveTemp.js'

/** Old enough that no save still running (in this or another Quire) can own it: a save takes milliseconds. */
export const STALE_AFTER_MS = 10 * 60 * 1000

/**
 * Removes temp files that a save killed mid-way (SIGKILL, power loss) left in `directory`: regular files named
 * exactly like Quire's temps and untouched for `olderThanMs`. Never follows or removes a symlink, never anything
 * else; failures are ignored (it is tidying, not a save). Returns the names removed.
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
    // Only temp files `writeFileAtomic`/`createFileExclusive` create (saveTemp.ts) are ever removed.
    if (parseSaveTempName(name) === undefined) continue
    const path = join(directory, name)
    try {
      const info = await lstat(path)
      if (!info.isFile() || now - info.mtimeMs < olderThanMs) continue
      await unlink(path)
      removed.push(name)
    } catch {
      // Gone already, or not ours to touch.
    }
  }
  return removed
}
