import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ClassicLevel } from 'classic-level'
import { DataDirLockedError } from '../../core/log/errors.js'
import { readOwnerPid } from '../leveldb/eventStore.js'

/** What a node holds of its data directory while its log lives in a shared store. */
export interface HeldHome {
  release(): Promise<void>
}

/**
 * Holds a node's data directory when the log is not in it (a log several nodes share): the directory still keeps
 * what is this node's alone (the port file and access token, the browser's profiles, the coherence writer's id), so
 * exactly one process may serve from it. It takes the same lock the embedded log takes, LevelDB's on an empty
 * database of its own, which the operating system drops with a process that dies, so a crash never leaves it held.
 */
export async function holdNodeHome(home: string): Promise<HeldHome> {
  await mkdir(home, { recursive: true, mode: 0o700 })
  const lock = new ClassicLevel(join(home, 'node'))
  try {
    await lock.open()
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause
    if (cause?.code === 'LEVEL_LOCKED') throw new DataDirLockedError(home, await readOwnerPid(home), { cause: error })
    throw error
  }
  await writeFile(join(home, 'owner.pid'), `${process.pid}\n`)
  return { release: () => lock.close() }
}
