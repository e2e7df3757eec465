import * as encoding from 'lib0/encoding'
import * as decoding from 'lib0/decoding'
import { CLOSE } from './limits.js'

/**
 * The y-websocket wire format (y-protocols PROTOCOL.md): every message is `varUint(type) • body`. Decoding here is
 * strict and total: a message either parses into one of the shapes below or throws {@link MalformedMessage}, so the
 * connection can be closed with a reason instead of the server crashing on a peer's bytes.
 */
export const MESSAGE_SYNC = 0
export const MESSAGE_AWARENESS = 1
export const MESSAGE_AUTH = 2
export const MESSAGE_QUERY_AWARENESS = 3

export const SYNC_STEP1 = 0
export const SYNC_STEP2 = 1
export const SYNC_UPDATE = 2

/** One awareness entry: `varUint(clientID) • varUint(clock) • varString(JSON state)`; state null = removed. */
export interface AwarenessEntry {
  readonly clientId: number
  readonly clock: number
  readonly state: unknown
  /** The JSON as received, re-encoded verbatim when the entry is relayed. */
  readonly json: string
}

export type PeerMessage =
  | { readonly kind: 'sync-step1'; readonly stateVector: Uint8Array }
  | { readonly kind: 'sync-step2' | 'update'; readonly update: Uint8Array }
  | { readonly kind: 'awareness'; readonly entries: readonly AwarenessEntry[] }
  | { readonly kind: 'query-awareness' }

export class MalformedMessage extends Error {
  override name = 'MalformedMessage'
}

/** A well-formed message over one of the bounds below; the connection is closed with `code`. */
export class LimitExceeded extends Error {
  override name = 'LimitExceeded'
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message)
  }
}

/** What one awareness message may hold (see CollabLimits): checked while decoding, before anything is built. */
export interface AwarenessBounds {
  /** Bytes of one client's JSON state. */
  readonly maxStateBytes: number
  /** Entries in one message (no more than the clients one connection may speak for). */
  readonly maxEntries: number
}

/** Parses one binary message from a peer. */
export function parsePeerMessage(bytes: Uint8Array, bounds: AwarenessBounds): PeerMessage {
  try {
    const decoder = decoding.createDecoder(bytes)
    const type = decoding.readVarUint(decoder)
    switch (type) {
      case MESSAGE_SYNC: {
        const step = decoding.readVarUint(decoder)
        // A copy: the view would pin the whole socket read it came from for as long as the event is kept.
        const payload = readBytes(decoder).slice()
        if (step === SYNC_STEP1) return { kind: 'sync-step1', stateVector: payload }
        if (step === SYNC_STEP2) return { kind: 'sync-step2', update: payload }
        if (step === SYNC_UPDATE) return { kind: 'update', update: payload }
        throw new MalformedMessage(`unknown sync message type ${step}`)
      }
      case MESSAGE_AWARENESS:
        return { kind: 'awareness', entries: parseAwarenessUpdate(readBytes(decoder), bounds) }
      case MESSAGE_QUERY_AWARENESS:
        return { kind: 'query-awareness' }
      default:
        throw new MalformedMessage(`unknown message type ${type}`)
    }
  } catch (error) {
    if (error instanceof MalformedMessage || error instanceof LimitExceeded) throw error
    // lib0 throws plain Errors ("Unexpected end of array", "Integer out of Range") on truncated or overlong input.
    throw new MalformedMessage(`truncated or invalid message: ${(error as Error).message}`)
  }
}

/** lib0's own decoder settings: invalid UTF-8 is an error, and a leading BOM is kept as it was sent. */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * `varUint(length) • bytes`, checked against what the message holds (lib0 takes a view of the underlying buffer,
 * which for a socket read can be larger than the message).
 */
function readBytes(decoder: decoding.Decoder, maxBytes = Number.POSITIVE_INFINITY, tooLong?: (length: number) => Error): Uint8Array {
  const length = decoding.readVarUint(decoder)
  if (length > maxBytes && tooLong) throw tooLong(length)
  if (length > decoder.arr.length - decoder.pos) throw new MalformedMessage(`a length of ${length} runs past the end of the message`)
  return decoding.readUint8Array(decoder, length)
}

function parseAwarenessUpdate(update: Uint8Array, bounds: AwarenessBounds): AwarenessEntry[] {
  const decoder = decoding.createDecoder(update)
  const count = decoding.readVarUint(decoder)
  if (count > bounds.maxEntries) {
    throw new LimitExceeded(CLOSE.tooMany, `an awareness message has ${count} entries; a connection speaks for at most ${bounds.maxEntries} clients`)
  }
  const entries: AwarenessEntry[] = []
  for (let i = 0; i < count; i++) {
    const clientId = decoding.readVarUint(decoder)
    const clock = decoding.readVarUint(decoder)
    const raw = readBytes(decoder, bounds.maxStateBytes, (length) =>
      new LimitExceeded(CLOSE.awarenessTooLarge, `the awareness state of client ${clientId} has ${length} bytes, over the limit of ${bounds.maxStateBytes}`),
    )
    let json: string
    try {
      json = utf8.decode(raw)
    } catch {
      throw new MalformedMessage(`awareness state of client ${clientId} is not UTF-8`)
    }
    let state: unknown
    try {
      state = JSON.parse(json)
    } catch {
      throw new MalformedMessage(`awareness state of client ${clientId} is not JSON`)
    }
    entries.push({ clientId, clock, state, json })
  }
  return entries
}

/** An awareness update (the body `applyAwarenessUpdate` takes) holding exactly `entries`. */
export function encodeAwarenessEntries(entries: readonly AwarenessEntry[]): Uint8Array {
  const encoder = encoding.createEncoder()
  encoding.writeVarUint(encoder, entries.length)
  for (const entry of entries) {
    encoding.writeVarUint(encoder, entry.clientId)
    encoding.writeVarUint(encoder, entry.clock)
    encoding.writeVarString(encoder, entry.json)
  }
  return encoding.toUint8Array(encoder)
}

function syncMessage(step: number, payload: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder()
  encoding.writeVarUint(encoder, MESSAGE_SYNC)
  encoding.writeVarUint(encoder, step)
  encoding.writeVarUint8Array(encoder, payload)
  return encoding.toUint8Array(encoder)
}

export const syncStep1Message = (stateVector: Uint8Array): Uint8Array => syncMessage(SYNC_STEP1, stateVector)
export const syncStep2Message = (update: Uint8Array): Uint8Array => syncMessage(SYNC_STEP2, update)
export const updateMessage = (update: Uint8Array): Uint8Array => syncMessage(SYNC_UPDATE, update)

export function awarenessMessage(awarenessUpdate: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder()
  encoding.writeVarUint(encoder, MESSAGE_AWARENESS)
  encoding.writeVarUint8Array(encoder, awarenessUpdate)
  return encoding.toUint8Array(encoder)
}

/**
 * y-protocols' auth message "permission denied" (auth.js: `messagePermissionDenied = 0`): the stock client logs the
 * reason. Sent once to a read-only peer whose edit was dropped, so the person sees why it does not stick.
 */
export function permissionDeniedMessage(reason: string): Uint8Array {
  const encoder = encoding.createEncoder()
  encoding.writeVarUint(encoder, MESSAGE_AUTH)
  encoding.writeVarUint(encoder, 0)
  encoding.writeVarString(encoder, reason)
  return encoding.toUint8Array(encoder)
}
