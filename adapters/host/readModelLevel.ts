import { randomUUID } from 'node:crypto'
import { ClassicLevel } from 'classic-level'
import type { KeyRange, ReadModelStore, ReadModelStores, ScratchStore, StoreBatch } from '../../projections/readModel/store.js'

interface Level {
  get(key: string): Promise<Uint8Array | undefined>
  iterator(options: object): AsyncIterable<[string, Uint8Array]>
  batch(operations: Array<{ type: 'put'; key: string; value: Uint8Array } | { type: 'del'; key: string }>): Promise<void>
  clear(options?: object): Promise<void>
}

/** One model's namespace of the read models' LevelDB (a sublevel: its keys prefixed by the model's name). */
class LevelReadModelStore implements ScratchStore {
  constructor(private readonly level: Level) {}

  get(key: string): Promise<Uint8Array | undefined> {
    return this.level.get(key)
  }

  async *entries(range: KeyRange): AsyncIterable<readonly [string, Uint8Array]> {
    const options: Record<string, unknown> = {}
    for (const name of ['gte', 'gt', 'lt', 'lte', 'reverse', 'limit'] as const) if (range[name] !== undefined) options[name] = range[name]
    yield* this.level.iterator(options)
  }

  write(batch: StoreBatch): Promise<void> {
    return this.level.batch([...batch].map(([key, value]) => (value === undefined ? { type: 'del' as const, key } : { type: 'put' as const, key, value })))
  }

  clear(): Promise<void> {
    return this.level.clear()
  }

  drop(): Promise<void> {
    return this.level.clear()
  }
}

/**
 * The read models' stores in the data directory (`readmodels/`, a LevelDB of its own beside the log): derived data,
 * so losing it costs a rebuild, never an event. Each model is a sublevel; a batch and its checkpoint are one atomic
 * LevelDB write.
 */
export class LevelReadModelStores implements ReadModelStores {
  private constructor(private readonly db: ClassicLevel<string, Uint8Array>) {}

  static async open(location: string): Promise<LevelReadModelStores> {
    const db = new ClassicLevel<string, Uint8Array>(location, { keyEncoding: 'utf8', valueEncoding: 'view' })
    await db.open()
    // Scratch stores a verify killed midway left behind (a sublevel's keys are `!name!key` at the root).
    await db.clear({ gte: '!scratch-', lt: '!scratch.' })
    return new LevelReadModelStores(db)
  }

  async open(model: string): Promise<ReadModelStore> {
    return new LevelReadModelStore(this.namespace(`model-${model}`))
  }

  async scratch(model: string): Promise<ScratchStore> {
    const store = new LevelReadModelStore(this.namespace(`scratch-${model}-${randomUUID()}`))
    await store.clear()
    return store
  }

  close(): Promise<void> {
    return this.db.close()
  }

  private namespace(name: string): Level {
    return this.db.sublevel<string, Uint8Array>(name, { keyEncoding: 'utf8', valueEncoding: 'view' }) as unknown as Level
  }
}
