/**
 * Finding a command on PATH the way a shell would, without running a shell: the first folder of `PATH` holding a
 * regular file of that name that this process may execute. Empty and relative PATH entries (which a shell resolves
 * against the current folder) are skipped: the daemon's current folder is not a place to pick up executables from.
 */
import { constants } from 'node:fs'
import { access, stat } from 'node:fs/promises'
import { delimiter, isAbsolute, join } from 'node:path'

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false
    await access(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** The absolute path of `name` on `pathValue`, or undefined when no folder on it has one. */
export async function findOnPath(name: string, pathValue: string | undefined): Promise<string | undefined> {
  for (const folder of (pathValue ?? '').split(delimiter)) {
    if (folder === '' || !isAbsolute(folder)) continue
    const candidate = join(folder, name)
    if (await isExecutableFile(candidate)) return candidate
  }
  return undefined
}

/**
 * `findOnPath` for one command, remembered per PATH value: the lookup is a few `stat` calls per folder, and PATH
 * rarely changes in a running process. A command installed after the first lookup is seen by a new finder (a new
 * validator); `forget` drops an answer that turned out wrong (the file went away).
 */
export class PathFinder {
  private readonly found = new Map<string, Promise<string | undefined>>()

  constructor(private readonly name: string) {}

  find(pathValue: string | undefined): Promise<string | undefined> {
    const key = pathValue ?? ''
    let answer = this.found.get(key)
    if (!answer) {
      answer = findOnPath(this.name, pathValue)
      this.found.set(key, answer)
    }
    return answer
  }

  forget(pathValue: string | undefined): void {
    this.found.delete(pathValue ?? '')
  }
}
