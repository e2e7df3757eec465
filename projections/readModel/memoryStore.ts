import type { KeyRange, ReadModelStore, ReadModelStores, ScratchStore, StoreBatch } from './store.js'

/**
 * A read model store in memory: for tests, and for a process that keeps nothing between runs. Keys are sorted
 * lazily, on the first range read after a write, so a fold that only writes pays no ordering cost per key.
 */
export class MemoryReadModelStore implements ScratchStore {
  private readonly values = new Map<string, Uint8Array>()
  private sorted: string[] | undefined

  async get(key: string): Promise<Uint8Array | undefined> {
    return this.values.get(key)
  }

  async *entries(range: KeyRange): AsyncIterable<readonly [string, Uint8Array]> {
    const keys = (this.sorted ??= [...this.values.keys()].sort(compareKeys))
    const start = range.gte !== undefined ? lowerBound(keys, range.gte) : range.gt !== undefined ? upperBound(keys, range.gt) : 0
    const end = range.lt !== undefined ? lowerBound(keys, range.lt) : range.lte !== undefined ? upperBound(keys, range.lte) : keys.length
    const limit = range.limit ?? Number.POSITIVE_INFINITY
    const chosen = keys.slice(start, Math.max(start, end))
    if (range.reverse) chosen.reverse()
    let yielded = 0
    for (const key of chosen) {
      if (yielded++ >= limit) return
      const value = this.values.get(key)
      if (value !== undefined) yield [key, value]
    }
  }

  async write(batch: StoreBatch): Promise<void> {
    for (const [key, value] of batch) {
      if (value === undefined) {
        if (this.values.delete(key)) this.sorted = undefined
      } else {
        if (!this.values.has(key)) this.sorted = undefined
        this.values.set(key, value)
      }
    }
  }

  async clear(): Promise<void> {
    this.values.clear()
    this.sorted = undefined
  }

  async drop(): Promise<void> {
    await this.clear()
  }
}

/** Read model stores that live as long as the process: each model's own, and scratch ones for verify. */
export class MemoryReadModelStores implements ReadModelStores {
  private readonly stores = new Map<string, MemoryReadModelStore>()

  async open(model: string): Promise<ReadModelStore> {
    let store = this.stores.get(model)
    if (!store) this.stores.set(model, (store = new MemoryReadModelStore()))
    return store
  }

  async scratch(): Promise<ScratchStore> {
    return new MemoryReadModelStore()
  }

  async close(): Promise<void> {}
}

export const compareKeys = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

function lowerBound(keys: readonly string[], key: string): number {
  let low = 0
  let high = keys.length
  while (low < high) {
    const middle = (low + high) >> 1
    if (keys[middle]! < key) low = middle + 1
    else high = middle
  }
  return low
}

function upperBound(keys: readonly string[], key: string): number {
  let low = 0
  let high = keys.length
  while (low < high) {
    const middle = (low + high) >> 1
    if (keys[middle]! <= key) low = middle + 1
    else high = middle
  }
  return low
}
