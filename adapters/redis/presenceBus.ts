import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { Redis, type RedisOptions } from 'ioredis'
import { presenceOf } from '../../core/presence/editorPresence.js'
import type { PresenceRegistry } from '../../core/presence/presenceRegistry.js'
import { DEFAULT_LIMITS } from '../collab/limits.js'
import { awarenessMessage, parsePeerMessage, type AwarenessBounds, type AwarenessEntry } from '../collab/protocol.js'
import type { AwarenessRelay, Room } from '../collab/room.js'
import {
  decodePresenceMessage, encodePresenceMessage, PRESENCE_PROTOCOL_VERSION, roomAwarenessOf, updateBytes, type PresenceMessage, type RoomAwareness,
} from './presenceMessages.js'
import { NodeClaim } from './nodeClaim.js'
import { describeRedisTarget, redisTarget, type RedisTarget } from './redisTarget.js'

/**
 * - `connecting`: connecting to Redis, or connected and taking this node's id (nodeClaim.ts) before it shares
 *   anything;
 * - `connected`: presence and awareness cross nodes;
 * - `degraded`: Redis is unreachable: presence is this node's only, documents work as ever, and the bus keeps
 *   reconnecting;
 * - `clash`: another running process serves as a node of this id: neither node's presence can be told from the
 *   other's, so this one shares nothing more and the node must not serve (for good: it needs an id of its own);
 * - `closed`: the bus was closed.
 */
export type PresenceBusState = 'connecting' | 'connected' | 'degraded' | 'clash' | 'closed'

export interface PresenceBusStatus {
  /** This node's id, on everything it publishes. */
  readonly node: string
  readonly state: PresenceBusState
  /** When the bus entered `state` (ms since the epoch). */
  readonly since: number
  /**
   * Why presence is this node's only (what Redis or the connection said) while `degraded`; while `connecting`, that
   * it waits for another process's claim on this id to end; while `clash`, what was found.
   */
  readonly reason?: string
  /** Other nodes heard from that have not gone quiet. */
  readonly nodes: number
}

export interface PresenceBusOptions {
  /** `redis://…`, `rediss://…` or `unix:///…` (see redisTarget.ts). */
  readonly redis: string
  /** The node's presence registry: other nodes' editors are added to it, tagged with their node. */
  readonly presence: PresenceRegistry
  /** Unique in the cluster; default: host name, process id and a random suffix. */
  readonly nodeId?: string
  /** The pub/sub channel; nodes of one cluster share it (default `quire:presence`). */
  readonly channel?: string
  /** How often a node says it is alive (default 5 s). */
  readonly heartbeatMs?: number
  /**
   * A node not heard from for this long is dropped, with its editors (default three heartbeats); also how long the
   * node's claim on its id lives unless renewed (a node that died lets go of its id after this long).
   */
  readonly nodeTimeoutMs?: number
  /**
   * How long a node that has served without Redis, and never held its id, listens before taking it once Redis is
   * back (default one heartbeat): a node of the same id that held it before takes it back first, and is heard.
   */
  readonly claimQuietMs?: number
  /** The longest wait between reconnection attempts while Redis is down (default 2 s). */
  readonly reconnectMaxMs?: number
  /** Bytes of one client's awareness state accepted from another node (default: the collaboration limit). */
  readonly maxAwarenessStateBytes?: number
  readonly now?: () => number
}

/** What the bus has seen on the channel (diagnostics and tests). */
export interface PresenceBusCounters {
  published: number
  received: number
  /** This node's own messages, come back through the channel and dropped. */
  echoesDropped: number
  /** Messages under this node's id from another process. */
  foreignInstances: number
  /** Messages that were not a presence message this version understands, or held an invalid awareness update. */
  refused: number
}

/** One awareness client of another node, as that node last announced it. */
interface RemoteClient {
  readonly clock: number
  readonly state: unknown
  readonly json: string
  /** Its label in the presence registry: `<node>/<connection label on that node>`. */
  readonly connection: string
}

interface RemoteNode {
  heardAt: number
  /** By document, then awareness client id. */
  readonly documents: Map<string, Map<number, RemoteClient>>
}

/**
 * Presence and awareness across nodes through Redis pub/sub. Neither is ever logged (presence is not history), so
 * the shared log, which carries every document change to every node, cannot carry them. Each node publishes the
 * awareness changes of its rooms' own peers (adapters/collab/room.ts hands them over as {@link AwarenessRelay}),
 * tagged with its node id, and applies other nodes' messages: their awareness to its rooms of the same documents (so
 * peers here see cursors there), and their editors' presence to its presence registry (so BUSY, ABORTED and the
 * selection tools see the person's editors on every node). Its own echoes are dropped.
 *
 * Redis down: documents keep working (they never pass through here); the status turns `degraded`, other nodes'
 * editors leave the registry at once (this node's view is its own only, and says so), and their cursors fade from
 * the rooms by y-protocols' own 30-second rule for a silent client. Redis back: each node publishes its whole state
 * and asks for everyone else's, so the registry is complete again; cursors reappear as their editors renew their
 * awareness (y-websocket clients do every 15 s).
 *
 * Two processes given the same node id would each drop the other's messages as echoes, so neither would see the
 * other's editors (BUSY would not hold across them). A node takes its id in Redis before it shares anything
 * (nodeClaim.ts) and renews it at every heartbeat; a process that cannot hold it, or that hears its id from another
 * process, turns `clash` and shares nothing more: the node must not serve.
 */
export class PresenceBus implements AwarenessRelay {
  readonly node: string
  /** This process's token, on everything it publishes and in its claim on the id. */
  readonly instance = randomBytes(12).toString('base64url')
  readonly counters: PresenceBusCounters = { published: 0, received: 0, echoesDropped: 0, foreignInstances: 0, refused: 0 }
  private readonly target: RedisTarget
  private readonly channel: string
  private readonly presence: PresenceRegistry
  private readonly now: () => number
  private readonly nodeTimeoutMs: number
  private readonly bounds: AwarenessBounds
  private readonly publisher: Redis
  private readonly subscriber: Redis
  private readonly rooms = new Map<string, Room>()
  private readonly remote = new Map<string, RemoteNode>()
  private readonly listeners = new Set<(status: PresenceBusStatus) => void>()
  private readonly heartbeat: NodeJS.Timeout
  private readonly heartbeatMs: number
  private readonly claimQuietMs: number
  private readonly claim: NodeClaim
  /** Bumped whenever the connection goes or the bus stops: a claim under way for an older one gives up. */
  private connection = 0
  private claiming = false
  private everHeld = false
  private servedWithoutRedis = false
  /** Another process spoke under this id while this one held it: the next heartbeat sends the whole state again. */
  private foreignHeard = false
  private publisherReady = false
  private subscribed = false
  private lastProblem: string | undefined
  private current: { readonly state: PresenceBusState; readonly since: number; readonly reason?: string }

  constructor(options: PresenceBusOptions) {
    this.target = redisTarget(options.redis)
    this.node = options.nodeId ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`
    if (this.node.length === 0 || this.node.length > 200 || this.node.includes('/')) throw new Error('a node id has 1 to 200 characters and no "/"')
    this.channel = options.channel ?? 'quire:presence'
    this.presence = options.presence
    this.now = options.now ?? Date.now
    const heartbeatMs = options.heartbeatMs ?? 5_000
    this.heartbeatMs = heartbeatMs
    this.nodeTimeoutMs = options.nodeTimeoutMs ?? heartbeatMs * 3
    this.claimQuietMs = options.claimQuietMs ?? heartbeatMs
    // Another node's room may hold many connections' clients; each state is held to the collaboration limit.
    this.bounds = { maxStateBytes: options.maxAwarenessStateBytes ?? DEFAULT_LIMITS.maxAwarenessStateBytes, maxEntries: 100_000 }
    this.current = { state: 'connecting', since: this.now() }
    const reconnectMaxMs = options.reconnectMaxMs ?? 2_000
    const common: RedisOptions = {
      ...('path' in this.target ? { path: this.target.path } : {}),
      // Presence that waited for Redis is stale when it arrives: nothing is queued while disconnected; the whole
      // state is published again on reconnecting instead.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      autoResubscribe: false,
      connectTimeout: 5_000,
      retryStrategy: (attempt: number) => Math.min(50 * 2 ** Math.min(attempt, 10), reconnectMaxMs),
    }
    const connect = (role: string): Redis => {
      const connectionName = `quire-presence-${role}`
      return 'url' in this.target ? new Redis(this.target.url, { ...common, connectionName }) : new Redis({ ...common, connectionName })
    }
    this.publisher = connect('publisher')
    this.subscriber = connect('subscriber')
    this.claim = new NodeClaim(this.publisher, `${this.channel}:node:${this.node}`, this.instance, this.nodeTimeoutMs)
    this.publisher.on('ready', () => {
      this.publisherReady = true
      this.reassess()
    })
    this.publisher.on('close', () => {
      this.publisherReady = false
      this.reassess()
    })
    this.subscriber.on('ready', () => {
      this.subscriber.subscribe(this.channel).then(
        () => {
          this.subscribed = true
          this.reassess()
        },
        (error: unknown) => this.problem(error),
      )
    })
    this.subscriber.on('close', () => {
      this.subscribed = false
      this.reassess()
    })
    this.subscriber.on('message', (_channel: string, text: string) => this.receive(text))
    // Without a listener, ioredis prints every failed attempt; the reason is kept for the status instead.
    this.publisher.on('error', (error: unknown) => this.problem(error))
    this.subscriber.on('error', (error: unknown) => this.problem(error))
    this.heartbeat = setInterval(() => this.beat(), heartbeatMs)
    this.heartbeat.unref()
  }

  get status(): PresenceBusStatus {
    return { node: this.node, ...this.current, nodes: this.remote.size }
  }

  /** Where the bus connects, without a password. */
  get redis(): string {
    return describeRedisTarget(this.target)
  }

  /** Calls `listener` with every change of state; returns the function that stops it. */
  onStatus(listener: (status: PresenceBusStatus) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Resolves once connected, or rejects after `timeoutMs` saying why not (for start-up that wants to know). */
  connected(timeoutMs = 10_000): Promise<void> {
    if (this.current.state === 'connected') return Promise.resolve()
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        stop()
        reject(new Error(`Redis at ${this.redis} did not answer in ${timeoutMs} ms${this.lastProblem ? `: ${this.lastProblem}` : ''}`))
      }, timeoutMs)
      const stop = this.onStatus((status) => {
        if (status.state !== 'connected' && status.state !== 'closed' && status.state !== 'clash') return
        clearTimeout(timer)
        stop()
        if (status.state === 'connected') resolve()
        else reject(new Error(status.state === 'clash' ? (status.reason ?? 'another process serves as this node') : 'the presence bus was closed'))
      })
    })
  }

  /**
   * The status once start-up has an answer (for `quire serve`, which must not serve under an id another node uses):
   * `connected`, `clash`, or `degraded` (Redis unreachable: the id is taken, or found taken, once it is back). While
   * another process's claim on the id may be a dead node's, that waits until the claim runs out; at most `timeoutMs`.
   */
  settled(timeoutMs: number): Promise<PresenceBusStatus> {
    const done = (state: PresenceBusState) => state !== 'connecting'
    if (done(this.current.state)) return Promise.resolve(this.status)
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        stop()
        resolve(this.status)
      }, timeoutMs)
      const stop = this.onStatus((status) => {
        if (!done(status.state)) return
        clearTimeout(timer)
        stop()
        resolve(status)
      })
    })
  }

  opened(room: Room): void {
    this.rooms.set(room.docId, room)
    const announced: AwarenessEntry[] = []
    for (const node of this.remote.values()) {
      for (const [clientId, client] of node.documents.get(room.docId) ?? []) announced.push({ clientId, clock: client.clock, state: client.state, json: client.json })
    }
    if (announced.length > 0) room.applyRemoteAwareness(announced)
  }

  changed(room: Room, update: Uint8Array, owners: ReadonlyMap<number, string>): void {
    this.publish({ ...this.sender, kind: 'awareness', ...roomAwarenessOf(room.docId, update, owners) })
  }

  closed(room: Room): void {
    if (this.rooms.get(room.docId) === room) this.rooms.delete(room.docId)
  }

  /** Says goodbye (other nodes drop this node's editors at once), forgets other nodes' editors, and disconnects. */
  async close(): Promise<void> {
    if (this.current.state === 'closed') return
    clearInterval(this.heartbeat)
    this.connection++
    if (this.current.state === 'connected') {
      await this.publisher.publish(this.channel, encodePresenceMessage({ ...this.sender, kind: 'bye' })).catch(() => undefined)
      await this.claim.release().catch(() => undefined)
    }
    this.enter('closed')
    this.dropEveryNode()
    this.rooms.clear()
    this.subscriber.disconnect()
    this.publisher.disconnect()
  }

  private reassess(): void {
    if (this.current.state === 'closed' || this.current.state === 'clash') return
    const up = this.publisherReady && this.subscribed
    if (up && this.current.state !== 'connected') {
      if (!this.claiming) void this.takeId(this.connection)
    } else if (!up) {
      this.connection++
      this.claiming = false
      if (this.current.state === 'connected') {
        this.enter('degraded', this.downReason())
        this.dropEveryNode()
      } else if (this.current.state === 'degraded') {
        this.enter('degraded', this.downReason())
      }
    }
  }

  /**
   * Takes this node's id before sharing anything. Another process's claim is a clash when this process held the id
   * before (the other took it meanwhile), when the other renews it (it runs), or when it speaks under the id (only a
   * holder speaks); a dead node's claim runs out within its time to live, and the id is then taken.
   */
  private async takeId(connection: number): Promise<void> {
    this.claiming = true
    const current = () => connection === this.connection
    try {
      if (this.servedWithoutRedis && !this.everHeld) {
        this.enter('connecting')
        await pause(this.claimQuietMs)
      }
      // The latest the other claim can end, as last seen: without renewal, no later look can find it ending later.
      let endsBy: number | undefined
      while (current()) {
        const asked = performance.now()
        const answer = await this.claim.take()
        if (!current()) {
          // Closed while the answer was on its way: a claim taken then would keep a restart waiting for it to run out.
          if (answer.held && this.current.state === 'closed') await this.claim.release().catch(() => undefined)
          return
        }
        if (answer.held) {
          this.everHeld = true
          this.lastProblem = undefined
          this.enter('connected')
          // Whatever changed while disconnected was not published; and the other nodes' state is needed here.
          this.publish(this.ownState(true))
          return
        }
        if (this.everHeld) return this.clash('took the id while this node was cut off from Redis')
        // The answer was computed between asking and now: measured from either end, latency never looks like renewal.
        if (endsBy !== undefined && asked + answer.expiresInMs > endsBy + PTTL_ROUNDING_MS) return this.clash('keeps renewing its claim on the id')
        endsBy = Math.min(endsBy ?? Infinity, performance.now() + answer.expiresInMs)
        this.enter('connecting', `another process holds the id ${this.node} in Redis; waiting up to ${Math.ceil(answer.expiresInMs / 1000)} s for it to run out (a node that stopped without a word) or be renewed (a node that runs)`)
        await pause(Math.min(answer.expiresInMs + 10, this.heartbeatMs / 2))
      }
    } catch (error) {
      // Redis went away meanwhile: its 'close' degrades the bus, and the next connection takes the id again.
      this.problem(error)
    } finally {
      if (current()) this.claiming = false
    }
  }

  /** Another process serves as this node: this one shares nothing more, for good. */
  private clash(found: string): void {
    if (this.current.state === 'closed' || this.current.state === 'clash') return
    this.connection++
    clearInterval(this.heartbeat)
    this.dropEveryNode()
    this.enter('clash', `another running process serves as node ${this.node} (it ${found}; Redis at ${this.redis}): two nodes were given the same id, so presence, and BUSY with it, cannot hold; give every node its own QUIRE_NODE_ID (or leave it unset for a unique one)`)
    this.subscriber.disconnect()
    this.publisher.disconnect()
  }

  private problem(error: unknown): void {
    this.lastProblem = error instanceof Error ? error.message : String(error)
    if (this.current.state === 'connecting') this.enter('degraded', this.downReason())
  }

  private downReason(): string {
    const down = [!this.publisherReady && 'publishing', !this.subscribed && 'subscribing'].filter(Boolean).join(' and ')
    return `Redis at ${this.redis} is unreachable (${down || 'connecting'}${this.lastProblem ? `: ${this.lastProblem}` : ''}); presence is this node's only`
  }

  private enter(state: PresenceBusState, reason?: string): void {
    if (state === 'degraded') this.servedWithoutRedis = true
    if (this.current.state === state && this.current.reason === reason) return
    this.current = state === this.current.state ? { ...this.current, reason } : { state, since: this.now(), ...(reason ? { reason } : {}) }
    const status = this.status
    for (const listener of this.listeners) listener(status)
  }

  private beat(): void {
    if (this.current.state !== 'connected') return
    // Renewed at every heartbeat; found held by another process, it was taken meanwhile (this one was cut off).
    const connection = this.connection
    this.claim.take().then(
      (answer) => {
        if (!answer.held && connection === this.connection) this.clash('took the id while this node was stalled or cut off')
      },
      () => undefined,
    )
    // After another process spoke under this id, the whole state replaces whatever others took from it.
    this.publish(this.foreignHeard ? this.ownState(false) : { ...this.sender, kind: 'alive' })
    this.foreignHeard = false
    const quietSince = this.now() - this.nodeTimeoutMs
    for (const [id, node] of this.remote) if (node.heardAt < quietSince) this.dropNode(id)
  }

  private publish(message: PresenceMessage): void {
    if (this.current.state !== 'connected') return
    this.counters.published++
    // A failed publish means the connection is going: its 'close' degrades the bus, and reconnecting republishes all.
    this.publisher.publish(this.channel, encodePresenceMessage(message)).catch(() => undefined)
  }

  private ownState(ask: boolean): PresenceMessage {
    const rooms: RoomAwareness[] = []
    for (const room of this.rooms.values()) {
      const own = room.ownAwareness()
      if (own) rooms.push(roomAwarenessOf(room.docId, own.update, own.owners))
    }
    return { ...this.sender, kind: 'state', ask, rooms }
  }

  private receive(text: string): void {
    this.counters.received++
    const decoded = decodePresenceMessage(text)
    if ('error' in decoded) {
      this.counters.refused++
      return
    }
    const { message } = decoded
    if (message.node === this.node) {
      if (message.instance === this.instance) this.counters.echoesDropped++
      // A process of this id saying goodbye is letting go of it (a restart overlapping its predecessor's stop).
      else if (message.kind !== 'bye') this.heardForeignInstance()
      return
    }
    // Degraded means this node's presence only: what trickles in before the bus is whole again waits for the states.
    if (this.current.state !== 'connected') return
    if (message.kind === 'bye') {
      this.dropNode(message.node)
      return
    }
    let node = this.remote.get(message.node)
    if (!node) {
      node = { heardAt: this.now(), documents: new Map() }
      this.remote.set(message.node, node)
    }
    node.heardAt = this.now()
    if (message.kind === 'awareness') this.applyRoom(message.node, node, message)
    else if (message.kind === 'state') {
      this.replaceState(message.node, node, message.rooms)
      if (message.ask) this.publish(this.ownState(false))
    }
  }

  /**
   * Only a process holding the id speaks under it: one still taking it has met a running node of its id; one holding
   * it checks its claim (the other may have taken it while this one was cut off).
   */
  private heardForeignInstance(): void {
    this.counters.foreignInstances++
    if (this.current.state === 'closed' || this.current.state === 'clash') return
    if (this.current.state !== 'connected') return this.clash('speaks under the id')
    this.foreignHeard = true
    const connection = this.connection
    this.claim.take().then(
      (answer) => {
        if (!answer.held && connection === this.connection) this.clash('speaks under the id and holds it')
      },
      () => undefined,
    )
  }

  /** A node's whole state: its editors not in it are gone; the rest is applied as announced. */
  private replaceState(nodeId: string, node: RemoteNode, rooms: readonly RoomAwareness[]): void {
    const parsed = rooms.map((part) => ({ part, entries: this.entriesOf(part) }))
    const kept = new Set<string>()
    for (const { part, entries } of parsed) for (const entry of entries ?? []) if (entry.state !== null) kept.add(`${part.docId}\u0000${entry.clientId}`)
    for (const [docId, clients] of node.documents) {
      for (const [clientId, client] of clients) {
        if (kept.has(`${docId}\u0000${clientId}`)) continue
        clients.delete(clientId)
        this.presence.set(client.connection, clientId, undefined)
      }
      if (clients.size === 0) node.documents.delete(docId)
    }
    for (const { part, entries } of parsed) if (entries) this.applyEntries(nodeId, node, part, entries)
  }

  private applyRoom(nodeId: string, node: RemoteNode, part: RoomAwareness): void {
    const entries = this.entriesOf(part)
    if (entries) this.applyEntries(nodeId, node, part, entries)
  }

  /** The awareness entries of a message part, through the peers' own strict decoder; undefined (counted) when invalid. */
  private entriesOf(part: RoomAwareness): readonly AwarenessEntry[] | undefined {
    try {
      const parsed = parsePeerMessage(awarenessMessage(updateBytes(part)), this.bounds)
      if (parsed.kind === 'awareness') return parsed.entries
    } catch {
      // Counted below: a node of another build, or damage on the way.
    }
    this.counters.refused++
    return undefined
  }

  private applyEntries(nodeId: string, node: RemoteNode, part: RoomAwareness, entries: readonly AwarenessEntry[]): void {
    const clients = node.documents.get(part.docId) ?? new Map<number, RemoteClient>()
    const applied: AwarenessEntry[] = []
    for (const entry of entries) {
      const known = clients.get(entry.clientId)
      // A node's messages arrive in the order it sent them; an older clock is a state already superseded.
      if (known && entry.clock < known.clock) continue
      const label = part.owners[String(entry.clientId)]
      const connection = label ? `${nodeId}/${label}` : known?.connection
      if (!connection) continue
      if (known && known.connection !== connection) this.presence.set(known.connection, entry.clientId, undefined)
      if (entry.state === null) {
        clients.delete(entry.clientId)
        this.presence.set(connection, entry.clientId, undefined)
      } else {
        clients.set(entry.clientId, { clock: entry.clock, state: entry.state, json: entry.json, connection })
        const presence = presenceOf(entry.state)
        this.presence.set(
          connection,
          entry.clientId,
          presence && { ...presence, docId: part.docId, connection, clientId: entry.clientId, updatedAt: this.now() },
        )
      }
      applied.push(entry)
    }
    if (clients.size > 0) node.documents.set(part.docId, clients)
    else node.documents.delete(part.docId)
    if (applied.length > 0) this.rooms.get(part.docId)?.applyRemoteAwareness(applied)
  }

  private dropNode(nodeId: string): void {
    const node = this.remote.get(nodeId)
    if (!node) return
    this.remote.delete(nodeId)
    for (const clients of node.documents.values()) for (const [clientId, client] of clients) this.presence.set(client.connection, clientId, undefined)
  }

  private dropEveryNode(): void {
    for (const nodeId of [...this.remote.keys()]) this.dropNode(nodeId)
  }

  private get sender() {
    return { v: PRESENCE_PROTOCOL_VERSION, node: this.node, instance: this.instance } as const
  }
}

/** Redis answers a key's time to live in whole milliseconds. */
const PTTL_ROUNDING_MS = 2

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref())
