import * as encoding from 'lib0/encoding'
import * as decoding from 'lib0/decoding'

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

/** Parses one binary message from a peer. */
export function parsePeerMessage(bytes: Uint8Array): PeerMessage {
  try {
    const decoder = decoding.createDecoder(bytes)
    const type = decoding.readVarUint(decoder)
    switch (type) {
      case MESSAGE_SYNC: {
        const step = decoding.readVarUint(decoder)
        // A copy: the view would pin the whole socket read it came from for as long as the event is kept.
        const payload = decoding.readVarUint8Array(decoder).slice()
        if (step === SYNC_STEP1) return { kind: 'sync-step1', stateVector: payload }
        if (step === SYNC_STEP2) return { kind: 'sync-step2', update: payload }
        if (step === SYNC_UPDATE) return { kind: 'update', update: payload }
        throw new MalformedMessage(`unknown sync message type ${step}`)
      }
      case MESSAGE_AWARENESS:
        return { kind: 'awareness', entries: parseAwarenessUpdate(decoding.readVarUint8Array(decoder)) }
      case MESSAGE_QUERY_AWARENESS:
        return { kind: 'query-awareness' }
      default:
        throw new MalformedMessage(`unknown message type ${type}`)
    }
  } catch (error) {
    if (error instanceof MalformedMessage) throw error
    // lib0 throws plain Errors ("Unexpected end of array", "Integer out of Range") on truncated or overlong input.
    throw new MalformedMessage(`truncated or invalid message: ${(error as Error).message}`)
  }
}

function parseAwarenessUpdate(update: Uint8Array): AwarenessEntry[] {
  const decoder = decoding.createDecoder(update)
  const count = decoding.readVarUint(decoder)
  const entries: AwarenessEntry[] = []
  for (let i = 0; i < count; i++) {
    const clientId = decoding.readVarUint(decoder)
    const clock = decoding.readVarUint(decoder)
    const json = decoding.readVarString(decoder)
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
