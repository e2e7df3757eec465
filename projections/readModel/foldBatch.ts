import type { FoldContext } from './readModel.js'
import type { ReadModelStore } from './store.js'

/** Values read from the store kept for later events; past this many the cache starts again. */
const CACHED_READS = 200_000

/**
 * The writes of one batch of events, read through before they reach the store. The model is its store's only writer,
 * so what it read stays true after a commit (updated by its own writes): reads are cached across batches.
 */
export class FoldBatch implements FoldContext {
  private readonly writes = new Map<string, Uint8Array | undefined>()
  private readonly cache = new Map<string, Uint8Array | undefined>()

  constructor(private readonly store: ReadModelStore) {}

  async get(key: string): Promise<Uint8Array | undefined> {
    if (this.writes.has(key)) return this.writes.get(key)
    if (this.cache.has(key)) return this.cache.get(key)
    const value = await this.store.get(key)
    this.remember(key, value)
    return value
  }

  put(key: string, value: Uint8Array): void {
    this.writes.set(key, value)
  }

  delete(key: string): void {
    this.writes.set(key, undefined)
  }

  get size(): number {
    return this.writes.size
  }

  /** Writes everything at once (with `extra`, the checkpoint) and starts an empty batch. */
  async commit(extra: ReadonlyMap<string, Uint8Array> = new Map()): Promise<void> {
    const batch = new Map(this.writes)
    for (const [key, value] of extra) batch.set(key, value)
    this.writes.clear()
    await this.store.write(batch)
    for (const [key, value] of batch) if (this.cache.has(key)) this.cache.set(key, value)
  }

  /** Forgets the batch and every cached read: the store was cleared or written by someone else. */
  discard(): void {
    this.writes.clear()
    this.cache.clear()
  }

  private remember(key: string, value: Uint8Array | undefined): void {
    if (this.cache.size >= CACHED_READS) this.cache.clear()
    this.cache.set(key, value)
  }
}
