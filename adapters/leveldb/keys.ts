/**
 * The LevelDB key layout of the log. Every key starts with one tag byte naming its keyspace; numbers are 8-byte
 * big-endian so LevelDB's byte order is numeric order.
 *
 *   e <position>                 → a chunk: the records of one append, the first at <position> (see record.ts)
 *   s <stream> 00 <version>      → the chunk holding that stream's events from number <version> (1-based) on:
 *                                  varUint position of its first event, varUint count
 *   h <stream>                   → marks that the stream exists (written once, by its first append); the head is
 *                                  read from the stream's last index entry
 *   q <position>                 → quarantine note for a record whose bytes are damaged
 *   v                            → the event versions record (eventVersions.ts): the newest schema version of each
 *                                  event type the log holds, grown in the batch of the append that first holds it
 *   p <name> 00 <key>            → a projection snapshot (see snapshots in eventStore.ts)
 *   c <position>                 → the chain's links of the chunk at e <position> (core/log/hashChain.ts), 32 bytes
 *                                  per record, written in the chunk's batch
 *   l                            → the ranges of positions the chain was extended over when they were found
 *                                  unchained (a log kept before the chain, or appended to by an older Quire): JSON
 */

const EVENT = 0x65 // 'e'
const STREAM_INDEX = 0x73 // 's'
const STREAM_MARKER = 0x68 // 'h'
const QUARANTINE = 0x71 // 'q'
const SNAPSHOT = 0x70 // 'p'
const EVENT_VERSIONS = 0x76 // 'v'
const CHAIN = 0x63 // 'c'
const CHAINED_LATE = 0x6c // 'l'

const utf8 = new TextEncoder()
/** Encoded stream names, so a busy stream's name is not re-encoded on every append. */
const encodedNames = new Map<string, Uint8Array>()

function encodeName(name: string): Uint8Array {
  let bytes = encodedNames.get(name)
  if (!bytes) {
    if (encodedNames.size >= 4_096) encodedNames.clear()
    bytes = utf8.encode(name)
    encodedNames.set(name, bytes)
  }
  return bytes
}
const utf8Decoder = new TextDecoder('utf-8', { fatal: true })

function writeU64(target: Uint8Array, offset: number, value: number): void {
  // Positions stay below 2^53, so the high word fits a uint32 exactly.
  const high = Math.floor(value / 0x1_0000_0000)
  const low = value >>> 0
  target[offset] = high >>> 24
  target[offset + 1] = (high >>> 16) & 0xff
  target[offset + 2] = (high >>> 8) & 0xff
  target[offset + 3] = high & 0xff
  target[offset + 4] = low >>> 24
  target[offset + 5] = (low >>> 16) & 0xff
  target[offset + 6] = (low >>> 8) & 0xff
  target[offset + 7] = low & 0xff
}

function readU64(source: Uint8Array, offset: number): number {
  const high = ((source[offset]! << 24) | (source[offset + 1]! << 16) | (source[offset + 2]! << 8) | source[offset + 3]!) >>> 0
  const low = ((source[offset + 4]! << 24) | (source[offset + 5]! << 16) | (source[offset + 6]! << 8) | source[offset + 7]!) >>> 0
  return high * 0x1_0000_0000 + low
}

function tagged(tag: number, value: number): Uint8Array {
  const key = new Uint8Array(9)
  key[0] = tag
  writeU64(key, 1, value)
  return key
}

function named(tag: number, name: string, suffix?: Uint8Array): Uint8Array {
  const bytes = encodeName(name)
  const key = new Uint8Array(1 + bytes.length + (suffix ? 1 + suffix.length : 0))
  key[0] = tag
  key.set(bytes, 1)
  if (suffix) {
    key[1 + bytes.length] = 0
    key.set(suffix, 2 + bytes.length)
  }
  return key
}

export const eventKey = (position: number): Uint8Array => tagged(EVENT, position)
export const positionOfEventKey = (key: Uint8Array): number => readU64(key, 1)
/** Bounds for iterating every event: [EVENTS_START, EVENTS_END). */
export const EVENTS_END = Uint8Array.of(EVENT + 1)

export const chainKey = (position: number): Uint8Array => tagged(CHAIN, position)
export const positionOfChainKey = (key: Uint8Array): number => readU64(key, 1)
export const CHAIN_END = Uint8Array.of(CHAIN + 1)
export const CHAINED_LATE_KEY = Uint8Array.of(CHAINED_LATE)

export function streamIndexKey(stream: string, version: number): Uint8Array {
  const name = encodeName(stream)
  const key = new Uint8Array(name.length + 10)
  key[0] = STREAM_INDEX
  key.set(name, 1)
  key[name.length + 1] = 0
  writeU64(key, name.length + 2, version)
  return key
}
export const versionOfStreamIndexKey = (key: Uint8Array): number => readU64(key, key.length - 8)

/** Range of one stream's index keys. */
export const streamIndexRange = (stream: string): { gte: Uint8Array; lte: Uint8Array } => ({
  gte: streamIndexKey(stream, 0),
  lte: streamIndexKey(stream, Number.MAX_SAFE_INTEGER),
})

export const streamMarkerKey = (stream: string): Uint8Array => named(STREAM_MARKER, stream)
export const STREAM_MARKERS_START = Uint8Array.of(STREAM_MARKER)
export const STREAM_MARKERS_END = Uint8Array.of(STREAM_MARKER + 1)
export const streamOfMarkerKey = (key: Uint8Array): string => utf8Decoder.decode(key.subarray(1))
/** Range of marker keys for streams whose name starts with `prefix`. */
export function streamMarkerRange(prefix: string): { gte: Uint8Array; lt: Uint8Array } {
  const start = named(STREAM_MARKER, prefix)
  const end = start.slice()
  // Incrementing the last byte gives the first key past every name with this prefix (prefixes here are ASCII).
  end[end.length - 1]! += 1
  return { gte: start, lt: end }
}

export const quarantineKey = (position: number): Uint8Array => tagged(QUARANTINE, position)
export const QUARANTINE_END = Uint8Array.of(QUARANTINE + 1)
export const positionOfQuarantineKey = (key: Uint8Array): number => readU64(key, 1)

/** The one key of the event versions record; operations compare it by identity. */
export const EVENT_VERSIONS_KEY = Uint8Array.of(EVENT_VERSIONS)

export const snapshotKey = (projection: string, key: string): Uint8Array =>
  named(SNAPSHOT, projection, utf8.encode(key))
export function snapshotRange(projection: string): { gte: Uint8Array; lt: Uint8Array } {
  const start = named(SNAPSHOT, projection, new Uint8Array(0))
  const end = start.slice()
  end[end.length - 1] = 1
  return { gte: start, lt: end }
}
