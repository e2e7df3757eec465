import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { openEngine, type Engine, type EngineOptions } from '../../core/engine.js'
import { openEmbeddedEngine, type EmbeddedEngineOptions } from '../leveldb/embeddedEngine.js'
import { EventStoreError } from '../../core/log/errors.js'
import type { AdvisoryTurns } from '../postgres/advisoryTurns.js'
import { holdNodeHome } from './nodeHome.js'
import { sharedStore } from './sharedStore.js'

/** Says which shared log a node's data directory belongs to (its embedded log is absent). */
const SHARED_LOG_MARK = 'shared-log'

/** What a node's data directory holds for the shared log before the engine writes anything of its own. */
const NODE_ENTRIES = [SHARED_LOG_MARK, 'node', 'owner.pid']

/** Those of `names` not yet in `home`. */
async function absentEntries(home: string, names: readonly string[]): Promise<string[]> {
  const present = new Set(await readdir(home).catch(() => []))
  return names.filter((name) => !present.has(name))
}

/** A data directory opened with the other kind of log than the one it has. */
export class StoreMismatchError extends EventStoreError {
  constructor(message: string) {
    super('STORE_MISMATCH', message)
  }
}

/** Whether `home` holds an embedded log with events in it (a LevelDB directory nobody opened holds none). */
async function hasEmbeddedLog(home: string): Promise<boolean> {
  const directory = join(home, 'log')
  for (const entry of await readdir(directory).catch(() => [])) {
    // Tables, or a write-ahead file with writes in it (`LOG` is LevelDB's own diagnostics).
    if (entry.endsWith('.ldb')) return true
    if (entry.endsWith('.log') && ((await stat(join(directory, entry)).catch(() => undefined))?.size ?? 0) > 0) return true
  }
  return false
}

export interface EngineHomeOptions extends EmbeddedEngineOptions {
  /** A log the caller opened itself (tests wrap one to hold or fail its writes); the engine follows it as shared. */
  readonly openLog?: EngineOptions['openLog']
  /**
   * Where the log lives: a `postgres://` URL (sharedStore.ts) for a log several nodes share, each node with a data
   * directory of its own. Default: $QUIRE_STORE, and without it the data directory's own embedded log.
   */
  readonly store?: string
}

/**
 * Opens the engine on `home`: on its own embedded log (the log's lock holds the directory), or on the shared log
 * `store` names, the directory then held by a lock of its own and the documents' write turns taken among the nodes.
 * Every command that opens a data directory opens it here, so `QUIRE_STORE` means the same to all of them.
 */
export async function openEngineHome(home: string, options: EngineHomeOptions = {}): Promise<Engine> {
  const name = options.store ?? (process.env.QUIRE_STORE || undefined)
  const sharedMark = await readFile(join(home, SHARED_LOG_MARK), 'utf8').catch(() => undefined)
  if (name === undefined) {
    // Opened without its store, a node's directory would get an empty log of its own, and writes there reach no node.
    if (sharedMark !== undefined) throw new StoreMismatchError(`the data directory ${home} is a node of the shared log ${sharedMark.trim()}: give it with --store or QUIRE_STORE`)
    const { openLog } = options
    return openLog ? openEngine(home, { ...options, openLog, sharedLog: true }) : openEmbeddedEngine(home, options)
  }
  const store = sharedStore(name)
  if (sharedMark === undefined && (await hasEmbeddedLog(home))) {
    throw new StoreMismatchError(`the data directory ${home} keeps its log itself: copy it to the shared store with \`quire migrate --from ${home} --to …\`, then serve from a new data directory`)
  }
  // Before the directory is touched: a store that refuses this node leaves it as it was.
  await store.check()
  const created = await absentEntries(home, NODE_ENTRIES)
  const held = await holdNodeHome(home)
  let turns: AdvisoryTurns | undefined
  let engine: Engine
  try {
    if (sharedMark === undefined) await writeFile(join(home, SHARED_LOG_MARK), `${store.shown}\n`, { mode: 0o600 })
    turns = await store.turns()
    const { now, interceptWrite, writeRetryWindowMs, closeTimeoutMs } = options
    const logOptions = { now, writeRetryWindowMs, closeTimeoutMs, ...(interceptWrite ? { interceptWrite: (write: () => Promise<void>) => interceptWrite(write, []) } : {}) }
    engine = await openEngine(home, { ...options, openLog: (registry) => store.open(registry, logOptions), sharedLog: true, crossNodeTurns: turns })
  } catch (error) {
    await turns?.close()
    await held.release()
    // What this failed start made, and only that (the lock was ours, so no other process made it meanwhile).
    for (const name of created) await rm(join(home, name), { recursive: true, force: true })
    throw error
  }
  const opened = turns
  return {
    ...engine,
    async close() {
      try {
        await engine.close()
      } finally {
        await opened.close()
        await held.release()
      }
    },
  }
}
