import * as Y from 'yjs'
import * as awarenessProtocol from 'y-protocols/awareness'
import type { RecordedEvent } from '../../core/log/eventLog.js'
import { presenceOf } from '../../core/presence/editorPresence.js'
import type { PresenceRegistry } from '../../core/presence/presenceRegistry.js'
import { CollabConnection } from './connection.js'
import { awarenessMessage, encodeAwarenessEntries, LimitExceeded, updateMessage, type AwarenessEntry } from './protocol.js'
import { CLOSE } from './limits.js'
import { assistantEditMessage } from './assistantEdit.js'

interface AwarenessChanges {
  readonly added: readonly number[]
  readonly updated: readonly number[]
  readonly removed: readonly number[]
}

/**
 * Carries rooms' awareness to the same documents' rooms on other nodes (adapters/redis/presenceBus.ts): awareness is
 * never logged, so the log, which carries document changes across nodes, cannot carry it.
 */
export interface AwarenessRelay {
  /** A room opened: the relay hands it what other nodes' peers of its document announced (`applyRemoteAwareness`). */
  opened(room: Room): void
  /** This room's own peers changed their awareness: `update` holds exactly those clients, `owners` their connections' labels. */
  changed(room: Room, update: Uint8Array, owners: ReadonlyMap<number, string>): void
  closed(room: Room): void
}

/** The origin of awareness applied from other nodes: never relayed back, never the registry's (the relay keeps that). */
const REMOTE = Symbol('awareness from another node')

/**
 * The peers of one document: who is connected, and their awareness (cursors, names, the editor presence of
 * {@link presenceOf}). Awareness lives on a small Y.Doc of its own: it is ephemeral, never logged, and must never
 * touch the document's Y.Doc, whose every change is an event. A room exists while it has connections.
 */
export class Room {
  readonly connections = new Set<CollabConnection>()
  private readonly awarenessDoc = new Y.Doc()
  private readonly awareness = new awarenessProtocol.Awareness(this.awarenessDoc)
  /** Which connection speaks for each awareness client (a peer may not overwrite or remove another's). */
  private readonly owners = new Map<number, CollabConnection>()
  /**
   * Keystrokes forwarded ahead of the log (keystrokes.ts, `relay`): each forward and each join takes the next tick;
   * a forwarded update remembers its tick, a connection the tick it joined at. A connection that joined after an
   * update was forwarded never got it, so the log fan-out sends it that update; everyone else had it already.
   */
  private tick = 0
  private readonly joinedAt = new Map<CollabConnection, number>()
  private readonly forwardedAt = new WeakMap<Uint8Array, number>()

  constructor(
    readonly docId: string,
    private readonly presence: PresenceRegistry,
    /** Awareness clients one connection may speak for at once (CollabLimits.maxAwarenessClientsPerConnection). */
    private readonly maxClientsPerConnection: number,
    private readonly relay?: AwarenessRelay,
  ) {
    // The server itself is not a collaborator.
    this.awareness.setLocalState(null)
    this.awareness.on('update', (changes: AwarenessChanges, origin: unknown) => this.awarenessChanged(changes, origin))
    this.relay?.opened(this)
  }

  join(connection: CollabConnection): void {
    this.connections.add(connection)
    this.joinedAt.set(connection, ++this.tick)
  }

  /** Removes a connection and everything it announced; true when the room is now empty. */
  leave(connection: CollabConnection): boolean {
    if (!this.connections.delete(connection)) return this.connections.size === 0
    this.joinedAt.delete(connection)
    const clients = [...connection.awarenessClients]
    if (clients.length > 0) awarenessProtocol.removeAwarenessStates(this.awareness, clients, null)
    this.presence.dropConnection(connection.label)
    return this.connections.size === 0
  }

  /**
   * Sends a recorded update to every peer but the one it came from (that peer has it already: it made it). Encoded
   * once for all of them.
   */
  broadcastUpdate(update: Uint8Array, event: RecordedEvent): void {
    const origin = event.actor.kind === 'peer' ? event.actor.peer : undefined
    // The bridge's mirror change that completes an assistant's journaled write (see assistantEdit.ts).
    const assistantEdit = event.actor.kind === 'system' && (event.data as { journal?: number }).journal !== undefined
    let message: Uint8Array | undefined
    let edit: Uint8Array | undefined
    const forwarded = this.forwardedAt.get(update)
    for (const connection of this.connections) {
      if (connection.label === origin) continue
      if (forwarded !== undefined && this.joinedAt.get(connection)! < forwarded) continue
      if (assistantEdit && connection.access.assistantEdits) connection.send((edit ??= assistantEditMessage(update)))
      else connection.send((message ??= updateMessage(update)))
    }
  }

  /**
   * Sends a peer's update, already checked, to every other peer at once, before the log has it (`message`: the update
   * message they are sent); {@link broadcastUpdate} then skips the peers that got it.
   */
  forwardUpdate(from: CollabConnection, update: Uint8Array, message: Uint8Array): void {
    this.forwardedAt.set(update, ++this.tick)
    for (const connection of this.connections) if (connection !== from) connection.send(message)
  }

  /**
   * Applies awareness entries a peer sent, minus those of clients another connection speaks for and removals of
   * states nobody announced (they change nothing, yet would each leave a clock behind). Throws LimitExceeded, having
   * applied nothing, when the entries would make the connection speak for more clients than it may.
   */
  applyAwareness(connection: CollabConnection, entries: readonly AwarenessEntry[]): void {
    const own = entries.filter((entry) => {
      if (entry.clientId === this.awareness.clientID) return false
      const owner = this.owners.get(entry.clientId)
      if (owner === undefined) return entry.state !== null
      return owner === connection
    })
    if (own.length === 0) return
    const claimed = new Set(own.filter((entry) => !this.owners.has(entry.clientId)).map((entry) => entry.clientId))
    if (connection.awarenessClients.size + claimed.size > this.maxClientsPerConnection) {
      throw new LimitExceeded(CLOSE.tooMany, `a connection speaks for at most ${this.maxClientsPerConnection} awareness clients`)
    }
    awarenessProtocol.applyAwarenessUpdate(this.awareness, encodeAwarenessEntries(own), connection)
  }

  /**
   * Applies awareness entries other nodes' peers announced, minus those of clients a connection here speaks for (a
   * peer that moved to this node keeps its client id; the old node's removal must not remove it here).
   */
  applyRemoteAwareness(entries: readonly AwarenessEntry[]): void {
    const foreign = entries.filter((entry) => entry.clientId !== this.awareness.clientID && !this.owners.has(entry.clientId))
    if (foreign.length > 0) awarenessProtocol.applyAwarenessUpdate(this.awareness, encodeAwarenessEntries(foreign), REMOTE)
  }

  /** The awareness of this room's own peers as one update with their connections' labels; undefined when there is none. */
  ownAwareness(): { readonly update: Uint8Array; readonly owners: ReadonlyMap<number, string> } | undefined {
    const states = this.awareness.getStates()
    const owners = new Map<number, string>()
    for (const [clientId, owner] of this.owners) if (states.has(clientId)) owners.set(clientId, owner.label)
    if (owners.size === 0) return undefined
    return { update: awarenessProtocol.encodeAwarenessUpdate(this.awareness, [...owners.keys()]), owners }
  }

  /** Every current awareness state as one message, for a peer that joins or asks; undefined when there are none. */
  awarenessSnapshot(): Uint8Array | undefined {
    const clients = [...this.awareness.getStates().keys()]
    if (clients.length === 0) return undefined
    return awarenessMessage(awarenessProtocol.encodeAwarenessUpdate(this.awareness, clients))
  }

  destroy(): void {
    this.relay?.closed(this)
    this.awareness.destroy()
    this.awarenessDoc.destroy()
  }

  private awarenessChanged({ added, updated, removed }: AwarenessChanges, origin: unknown): void {
    const from = origin instanceof CollabConnection ? origin : undefined
    const states = this.awareness.getStates()
    // This room's own peers' changes (a timeout of another node's client is that node's to announce).
    const own = new Map<number, string>()
    for (const clientId of [...added, ...updated]) {
      if (from && !this.owners.has(clientId)) {
        this.owners.set(clientId, from)
        from.awarenessClients.add(clientId)
      }
      const owner = this.owners.get(clientId)
      if (owner) {
        this.publishPresence(owner, clientId, states.get(clientId))
        own.set(clientId, owner.label)
      }
    }
    for (const clientId of removed) {
      const owner = this.owners.get(clientId)
      if (!owner) continue
      this.owners.delete(clientId)
      owner.awarenessClients.delete(clientId)
      this.presence.set(owner.label, clientId, undefined)
      own.set(clientId, owner.label)
    }
    const changed = [...added, ...updated, ...removed]
    if (changed.length === 0) return
    const update = awarenessProtocol.encodeAwarenessUpdate(this.awareness, changed)
    const message = awarenessMessage(update)
    for (const connection of this.connections) if (connection !== from) connection.send(message)
    if (this.relay && origin !== REMOTE && own.size > 0) {
      this.relay.changed(this, own.size === changed.length ? update : awarenessProtocol.encodeAwarenessUpdate(this.awareness, [...own.keys()]), own)
    }
    // A removed client's clock is kept by y-protocols for good; forgotten here (once the removal is encoded), so
    // clients that come and go leave nothing behind in a long-lived room.
    for (const clientId of removed) this.awareness.meta.delete(clientId)
  }

  private publishPresence(owner: CollabConnection, clientId: number, state: unknown): void {
    const presence = presenceOf(state)
    this.presence.set(
      owner.label,
      clientId,
      presence && { ...presence, docId: this.docId, connection: owner.label, clientId, updatedAt: Date.now() },
    )
  }
}
