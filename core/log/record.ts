import { crc32 } from 'node:zlib'
import * as encoding from 'lib0/encoding'
import * as decoding from 'lib0/decoding'
import { ACTOR_TAGS, type Actor } from '../events/actor.js'

/**
 * The binary form of one event as stored under its position key. Yjs updates and other bytes stay bytes (lib0's
 * `writeAny` keeps Uint8Array as a tagged byte array), so a keystroke costs tens of bytes, not base64 JSON.
 *
 *   varUint  format (RECORD_FORMAT)
 *   varString type, varUint v (event schema version)
 *   varString stream, varUint streamVersion
 *   varUint  at (ms since the epoch)
 *   actor:   varUint tag, then the kind's strings
 *   any      data
 *   uint32   CRC-32 of every byte before it
 *
 * The checksum makes damage detectable even where the damaged bytes would still parse.
 */
export const RECORD_FORMAT = 1

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

export function encodeRecord(event: StoredEvent): Uint8Array {
  const encoder = encoding.createEncoder()
  encoding.writeVarUint(encoder, RECORD_FORMAT)
  encoding.writeVarString(encoder, event.type)
  encoding.writeVarUint(encoder, event.v)
  encoding.writeVarString(encoder, event.stream)
  encoding.writeVarUint(encoder, event.streamVersion)
  encoding.writeVarUint(encoder, event.at)
  writeActor(encoder, event.actor)
  // lib0's type for writeAny excludes `unknown`; event payloads are validated by their schema before they get here.
  encoding.writeAny(encoder, event.data as encoding.AnyEncodable)
  const body = encoding.toUint8Array(encoder)
  const record = new Uint8Array(body.length + 4)
  record.set(body)
  new DataView(record.buffer).setUint32(body.length, crc32(body))
  return record
}

export function decodeRecord(record: Uint8Array): StoredEvent {
  if (record.length < 5) throw new RecordDecodeError(`record is ${record.length} bytes, too short`)
  const bodyLength = record.length - 4
  const body = record.subarray(0, bodyLength)
  const stored = new DataView(record.buffer, record.byteOffset, record.byteLength).getUint32(bodyLength)
  if (crc32(body) !== stored) throw new RecordDecodeError('checksum mismatch')
  try {
    const decoder = decoding.createDecoder(body)
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
    encoding.writeVarString(encoder, actor.principal)
    encoding.writeVarString(encoder, actor.connection)
  } else if (actor.kind === 'peer') {
    encoding.writeVarString(encoder, actor.peer)
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
