import { crc32 } from 'node:zlib'
import * as encoding from 'lib0/encoding'
import * as decoding from 'lib0/decoding'
import { ACTOR_TAGS, type Actor } from '../events/actor.js'

/**
 * The binary form of events. One append's events are stored together as a chunk under the position of the first
 * (one LevelDB entry per append, not per event: LevelDB's per-entry overhead would otherwise dominate keystroke
 * ingest), each record length-prefixed and self-checking, so damage to one record loses only that record:
 *
 *   chunk:   varUint count, count × (varUint length, uint32 CRC-32 of the record), then the records back to back
 *
 * A record:
 *
 *   varUint  format (RECORD_FORMAT)
 *   varString type, varUint v (event schema version)
 *   varString stream, varUint streamVersion
 *   varUint  at (ms since the epoch)
 *   actor:   varUint tag, then the kind's strings
 *   any      data
 *
 * The checksum makes damage detectable even where the damaged bytes would still parse. Yjs updates and other
 * bytes stay bytes (lib0's `writeAny` keeps Uint8Array as a tagged byte array).
 */
const RECORD_FORMAT = 1

export interface StoredEvent {
  readonly type: string
  readonly v: number
  readonly stream: string
  readonly streamVersion: number
  readonly at: number
  readonly actor: Actor
  readonly data: unknown
}

export class RecordDecodeError extends Error {
  override name = 'RecordDecodeError'
}

const utf8 = new TextEncoder()
/**
 * UTF-8 of the strings records repeat on every append (event types, stream names, actors), so they are encoded once:
 * lib0's writeVarString writes a string byte by byte, which showed in the append path's profile.
 */
const encodedStrings = new Map<string, Uint8Array>()

/** Writes `value` exactly as lib0's writeVarString does (varUint byte length, then the UTF-8 bytes). */
function writeRepeatedString(encoder: encoding.Encoder, value: string): void {
  let bytes = encodedStrings.get(value)
  if (!bytes) {
    if (encodedStrings.size >= 4_096) encodedStrings.clear()
    bytes = utf8.encode(value)
    encodedStrings.set(value, bytes)
  }
  encoding.writeVarUint(encoder, bytes.length)
  // lib0's writeUint8Array takes a subarray even when the bytes fit; here they nearly always do.
  if (encoder.cbuf.length - encoder.cpos >= bytes.length) {
    encoder.cbuf.set(bytes, encoder.cpos)
    encoder.cpos += bytes.length
  } else {
    encoding.writeUint8Array(encoder, bytes)
  }
}

function writeRecordBody(encoder: encoding.Encoder, event: StoredEvent): void {
  encoding.writeVarUint(encoder, RECORD_FORMAT)
  writeRepeatedString(encoder, event.type)
  encoding.writeVarUint(encoder, event.v)
  writeRepeatedString(encoder, event.stream)
  encoding.writeVarUint(encoder, event.streamVersion)
  encoding.writeVarUint(encoder, event.at)
  writeActor(encoder, event.actor)
  // lib0's type for writeAny excludes `unknown`; event payloads are validated by their schema before they get here.
  encoding.writeAny(encoder, event.data as encoding.AnyEncodable)
}

/** Decodes one record's bytes (its checksum is verified by the chunk decoder). */
function decodeRecord(record: Uint8Array): StoredEvent {
  try {
    const decoder = decoding.createDecoder(record)
    const format = decoding.readVarUint(decoder)
    if (format !== RECORD_FORMAT) throw new RecordDecodeError(`unknown record format ${format}`)
    const type = decoding.readVarString(decoder)
    const v = decoding.readVarUint(decoder)
    const stream = decoding.readVarString(decoder)
    const streamVersion = decoding.readVarUint(decoder)
    const at = decoding.readVarUint(decoder)
    const actor = readActor(decoder)
    const data = decoding.readAny(decoder)
    if (decoding.hasContent(decoder)) throw new RecordDecodeError('trailing bytes after the event data')
    return { type, v, stream, streamVersion, at, actor, data }
  } catch (error) {
    if (error instanceof RecordDecodeError) throw error
    throw new RecordDecodeError(`malformed record: ${(error as Error).message}`)
  }
}

function writeActor(encoder: encoding.Encoder, actor: Actor): void {
  encoding.writeVarUint(encoder, ACTOR_TAGS[actor.kind])
  if (actor.kind === 'mcp') {
    writeRepeatedString(encoder, actor.principal)
    writeRepeatedString(encoder, actor.connection)
  } else if (actor.kind === 'peer') {
    writeRepeatedString(encoder, actor.peer)
  }
}

const SIMPLE_ACTORS: readonly Actor[] = [
  { kind: 'user' },
  { kind: 'disk' },
  { kind: 'system' },
].map((actor) => Object.freeze(actor as Actor))

function readActor(decoder: decoding.Decoder): Actor {
  const tag = decoding.readVarUint(decoder)
  switch (tag) {
    case ACTOR_TAGS.mcp:
      return { kind: 'mcp', principal: decoding.readVarString(decoder), connection: decoding.readVarString(decoder) }
    case ACTOR_TAGS.peer:
      return { kind: 'peer', peer: decoding.readVarString(decoder) }
    case ACTOR_TAGS.user:
      return SIMPLE_ACTORS[0]!
    case ACTOR_TAGS.disk:
      return SIMPLE_ACTORS[1]!
    case ACTOR_TAGS.system:
      return SIMPLE_ACTORS[2]!
    default:
      throw new RecordDecodeError(`unknown actor tag ${tag}`)
  }
}

/**
 * One encoder reused for every chunk body: creating a lib0 Encoder allocates a buffer, and on the append path that
 * allocation costs more than the encoding. Safe because encodeChunk is synchronous and empties it before returning.
 */
const body = encoding.createEncoder()

export function encodeChunk(events: readonly StoredEvent[]): Uint8Array {
  // Records are written back to back; the header, written after, frames and checks them.
  // Empty already, unless an encoding threw half-way through the last chunk.
  body.cpos = 0
  if (body.bufs.length > 0) body.bufs = []
  const ends: number[] = []
  for (const event of events) {
    writeRecordBody(body, event)
    ends.push(encoding.length(body))
  }
  // Read in place when the body fits the encoder's buffer (the usual case): no copy until the final one below.
  const bodyBytes = body.bufs.length === 0 ? body.cbuf.subarray(0, body.cpos) : encoding.toUint8Array(body)
  // The header (count, then a length and a checksum per record) goes straight into the one final buffer: on the
  // append path every allocation shows, so no second encoder.
  let headerLength = varUintSize(events.length)
  let start = 0
  for (const end of ends) {
    headerLength += varUintSize(end - start) + 4
    start = end
  }
  // From Node's buffer pool: a chunk is larger than V8 keeps inside its heap (64 bytes), and a typed array of its
  // own then gets a backing store of its own, which took most of encodeChunk's time and much of the GC's. Every byte
  // is written below; LevelDB copies the value at put, so a view into the pool holds nothing alive for long.
  const chunk: Uint8Array = Buffer.allocUnsafe(headerLength + bodyBytes.length)
  let offset = writeVarUintAt(chunk, 0, events.length)
  start = 0
  for (const end of ends) {
    offset = writeVarUintAt(chunk, offset, end - start)
    const crc = crc32(ends.length === 1 ? bodyBytes : bodyBytes.subarray(start, end))
    // Little-endian, as lib0's writeUint32/readUint32 use.
    chunk[offset] = crc & 0xff
    chunk[offset + 1] = (crc >>> 8) & 0xff
    chunk[offset + 2] = (crc >>> 16) & 0xff
    chunk[offset + 3] = crc >>> 24
    offset += 4
    start = end
  }
  chunk.set(bodyBytes, offset)
  body.cpos = 0
  if (body.bufs.length > 0) body.bufs = []
  // Do not keep a buffer grown by one huge event alive for the life of the process.
  if (body.cbuf.length > 1 << 20) body.cbuf = new Uint8Array(1 << 12)
  return chunk
}

/** Bytes lib0's varUint encoding takes for `value`. */
export function varUintSize(value: number): number {
  let size = 1
  while (value > 0x7f) {
    value = Math.floor(value / 128)
    size++
  }
  return size
}

/** Writes `value` as a lib0 varUint at `offset`; returns the offset after it. */
export function writeVarUintAt(target: Uint8Array, offset: number, value: number): number {
  while (value > 0x7f) {
    target[offset++] = 0x80 | (value & 0x7f)
    value = Math.floor(value / 128)
  }
  target[offset++] = value
  return offset
}

/**
 * One slot of a decoded chunk: the event, or why its record could not be decoded. `damaged` when its bytes are not
 * the ones written (the checksum does not match): so for every reader. A record whose bytes are intact but that this
 * decoder does not understand (a record format or actor kind of a later Quire) is not damaged.
 */
export type ChunkEntry =
  | { readonly event: StoredEvent; readonly bytes: number }
  | { readonly error: string; readonly bytes: number; readonly damaged: boolean }

/**
 * The records of a chunk, each its bytes as stored and the checksum its frame gives. Throws RecordDecodeError when
 * the framing itself is damaged (then the chunk's records cannot be told apart).
 */
export function chunkRecords(chunk: Uint8Array): { readonly record: Uint8Array; readonly crc: number }[] {
  const frames: { length: number; crc: number }[] = []
  let offset: number
  try {
    const decoder = decoding.createDecoder(chunk)
    const count = decoding.readVarUint(decoder)
    if (count > chunk.length) throw new RecordDecodeError(`chunk claims ${count} records in ${chunk.length} bytes`)
    let total = 0
    for (let i = 0; i < count; i++) {
      const length = decoding.readVarUint(decoder)
      frames.push({ length, crc: decoding.readUint32(decoder) })
      total += length
    }
    offset = decoder.pos
    if (offset + total !== chunk.length) throw new RecordDecodeError('record lengths do not add up to the chunk')
  } catch (error) {
    if (error instanceof RecordDecodeError) throw error
    throw new RecordDecodeError(`damaged chunk framing: ${(error as Error).message}`)
  }
  return frames.map(({ length, crc }) => {
    const record = chunk.subarray(offset, offset + length)
    offset += length
    return { record, crc }
  })
}

/**
 * Splits a chunk into its records and decodes each. Throws RecordDecodeError only when the framing itself is
 * damaged (then the chunk's records cannot be told apart).
 */
export function decodeChunk(chunk: Uint8Array): ChunkEntry[] {
  return chunkRecords(chunk).map(({ record, crc }) => {
    if (crc32(record) !== crc) return { error: 'checksum mismatch', bytes: record.length, damaged: true }
    try {
      return { event: decodeRecord(record), bytes: record.length }
    } catch (error) {
      return { error: (error as Error).message, bytes: record.length, damaged: false }
    }
  })
}
