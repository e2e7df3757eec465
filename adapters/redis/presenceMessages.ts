import { z } from 'zod'

/**
 * What nodes tell one another about presence and awareness over the Redis channel, as JSON. Awareness travels as
 * y-protocols awareness updates (base64), so the receiving node decodes them with the same strict, bounded decoder
 * it uses for its own peers' messages. Every message names the node that sent it, and the process serving as that
 * node (`instance`, random for each process): a node drops its own echoes, and one that hears its id from another
 * process knows two nodes were given the same id (nodeClaim.ts).
 *
 * - `awareness`: the peers of one of the sender's rooms changed their awareness (`update` holds exactly those
 *   clients; `owners` names the connection that carries each, keyed by client id).
 * - `state`: everything the sender's peers announce now, room by room; it replaces what the receiver held of that
 *   node. With `ask`, the sender has just (re)joined and every node answers with its own `state`.
 * - `alive`: the sender is still there (a node not heard from for a while is dropped).
 * - `bye`: the sender is stopping.
 */
export const PRESENCE_PROTOCOL_VERSION = 2

const nodeId = z.string().min(1).max(200)
const instance = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/)
const docId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/)
/** Base64 of an awareness update; a room's update is bounded by its clients' limits, so 16 MiB is generous. */
const awarenessUpdate = z.string().min(1).max(16 * 1024 * 1024).regex(/^[A-Za-z0-9+/]*={0,2}$/)
const owners = z.record(z.string().regex(/^\d{1,10}$/), z.string().min(1).max(200))

const roomAwareness = z.strictObject({ docId, update: awarenessUpdate, owners })

export const presenceMessageSchema = z.discriminatedUnion('kind', [
  z.strictObject({ v: z.literal(PRESENCE_PROTOCOL_VERSION), node: nodeId, instance, kind: z.literal('awareness'), ...roomAwareness.shape }),
  z.strictObject({ v: z.literal(PRESENCE_PROTOCOL_VERSION), node: nodeId, instance, kind: z.literal('state'), ask: z.boolean(), rooms: z.array(roomAwareness) }),
  z.strictObject({ v: z.literal(PRESENCE_PROTOCOL_VERSION), node: nodeId, instance, kind: z.literal('alive') }),
  z.strictObject({ v: z.literal(PRESENCE_PROTOCOL_VERSION), node: nodeId, instance, kind: z.literal('bye') }),
])
export type PresenceMessage = z.infer<typeof presenceMessageSchema>
export type RoomAwareness = z.infer<typeof roomAwareness>

/** One room's awareness as a message part. */
export function roomAwarenessOf(docIdValue: string, update: Uint8Array, ownerLabels: ReadonlyMap<number, string>): RoomAwareness {
  return { docId: docIdValue, update: Buffer.from(update).toString('base64'), owners: Object.fromEntries([...ownerLabels].map(([clientId, label]) => [String(clientId), label])) }
}

export const encodePresenceMessage = (message: PresenceMessage): string => JSON.stringify(message)

/** The message, or why it is not one (a node of another version, or garbage on the channel). */
export function decodePresenceMessage(text: string): { readonly message: PresenceMessage } | { readonly error: string } {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { error: 'not JSON' }
  }
  const parsed = presenceMessageSchema.safeParse(json)
  if (!parsed.success) return { error: parsed.error.issues.map((issue) => `${issue.path.join('.') || 'message'}: ${issue.message}`).join('; ') }
  return { message: parsed.data }
}

export const updateBytes = (part: RoomAwareness): Uint8Array => new Uint8Array(Buffer.from(part.update, 'base64'))
