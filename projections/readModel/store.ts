/**
 * Where a read model keeps what it folded: an ordered key-value store of its own (keys are strings compared by
 * UTF-16 code unit, which for the ASCII keys the models use is byte order). Core and the models know only this port;
 * the data directory's LevelDB implements it in adapters/host/readModelLevel.ts.
 */
export interface ReadModelStore {
  get(key: string): Promise<Uint8Array | undefined>
  /** Entries in key order (or reverse order) within the range. */
  entries(range: KeyRange): AsyncIterable<readonly [string, Uint8Array]>
  /** Puts and deletes, all or nothing: a crash leaves either every one of them or none. */
  write(batch: StoreBatch): Promise<void>
  /** Removes every entry (a rebuild starts from nothing). */
  clear(): Promise<void>
}

export interface KeyRange {
  readonly gte?: string
  readonly gt?: string
  readonly lt?: string
  readonly lte?: string
  readonly reverse?: boolean
  readonly limit?: number
}

/** The entries one write changes: `undefined` deletes the key. */
export type StoreBatch = ReadonlyMap<string, Uint8Array | undefined>

/** Opens the stores of the read models one process runs, one namespace per model. */
export interface ReadModelStores {
  /** The store a model folds into (created empty the first time). */
  open(model: string): Promise<ReadModelStore>
  /** A store that is thrown away after use: `verify` rebuilds a model into one and compares it with the live one. */
  scratch(model: string): Promise<ScratchStore>
  close(): Promise<void>
}

export interface ScratchStore extends ReadModelStore {
  drop(): Promise<void>
}

/** Every key that starts with `prefix`, as a range. */
export const prefixRange = (prefix: string, more: Omit<KeyRange, 'gte' | 'lt'> = {}): KeyRange => ({ ...more, gte: prefix, lt: `${prefix}\uffff` })

const encoder = new TextEncoder()
const decoder = new TextDecoder()

export const encodeJson = (value: unknown): Uint8Array => encoder.encode(JSON.stringify(value))
export const decodeJson = <T>(bytes: Uint8Array): T => JSON.parse(decoder.decode(bytes)) as T

/** A log position as a key part that sorts as the number does. */
export const positionKey = (position: number): string => position.toString().padStart(16, '0')
export const positionOfKey = (key: string): number => Number(key.slice(-16))
