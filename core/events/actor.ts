/**
 * Who caused an event. Every event in the log carries one; the audit CLI prints it and coherence delegations
 * match the `mcp` principal (the authenticated token's identity, never a name a client claims).
 */
export type Actor =
  | { readonly kind: 'mcp'; readonly principal: string; readonly connection: string }
  | { readonly kind: 'peer'; readonly peer: string }
  | { readonly kind: 'user' }
  | { readonly kind: 'disk' }
  | { readonly kind: 'system' }

export type ActorKind = Actor['kind']

/** Wire tags for the binary record format. Append only: a tag, once written to a log, keeps its meaning. */
export const ACTOR_TAGS: Readonly<Record<ActorKind, number>> = { mcp: 0, peer: 1, user: 2, disk: 3, system: 4 }

export const SYSTEM: Actor = Object.freeze({ kind: 'system' })
export const USER: Actor = Object.freeze({ kind: 'user' })
export const DISK: Actor = Object.freeze({ kind: 'disk' })

/** A short human label, as the audit log prints it: `mcp:alice/c-12`, `peer:trace-1`, `user`. */
export function describeActor(actor: Actor): string {
  switch (actor.kind) {
    case 'mcp':
      return `mcp:${actor.principal}/${actor.connection}`
    case 'peer':
      return `peer:${actor.peer}`
    default:
      return actor.kind
  }
}
