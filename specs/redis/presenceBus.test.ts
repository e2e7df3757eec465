import { cp, rm } from 'node:fs/promises'
import { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { USER } from '../../core/events/actor.js'
import { PRESENCE_FIELD, type EditorPresence, type EditorPresenceState } from '../../core/presence/editorPresence.js'
import { PresenceRegistry } from '../../core/presence/presenceRegistry.js'
import { encodeAwarenessEntries } from '../../adapters/collab/protocol.js'
import { startHttpServer, type HttpServer } from '../../adapters/http/daemon.js'
import { openQuire, type Quire } from '../../adapters/host/quire.js'
import { PresenceBus, type PresenceBusStatus } from '../../adapters/redis/presenceBus.js'
import { presenceStatusLine } from '../../adapters/redis/presenceStatusLine.js'
import { tempDir } from '../support/mcpHarness.js'
import { peer, until, type Peer } from '../support/collabPeers.js'
import { startTestRedis, type TestRedis } from '../support/redisServer.js'

/**
 * Presence and awareness across nodes through a real redis-server (issue 17, item 3): two nodes, each with its own
 * engine holding the same document (one data directory copied: the shared log is not this test's subject) and its
 * own presence bus, with real y-websocket peers on each.
 */

interface Node {
  readonly quire: Quire
  readonly http: HttpServer
  readonly bus: PresenceBus
  readonly home: string
}

const editor = (overrides: Partial<EditorPresenceState> = {}): EditorPresenceState => ({
  window: 'main', tabId: 't-1', focused: true, mode: 'source', composing: false, compositionEndedAt: null, selection: null, ...overrides,
})

let redis: TestRedis
let docId: string
let seedHome: string
const nodes: Node[] = []
const peers: Peer[] = []
const buses: PresenceBus[] = []

async function startNode(nodeId: string, options: { heartbeatMs?: number; nodeTimeoutMs?: number } = {}): Promise<Node> {
  const home = await tempDir(`quire-node-${nodeId}-`)
  await cp(seedHome, home, { recursive: true })
  const quire = await openQuire(home, { watchDisk: false })
  const bus = new PresenceBus({ redis: redis.url, presence: quire.services.presence, nodeId, reconnectMaxMs: 200, ...options })
  const http = await startHttpServer(quire.services, { presenceBus: bus })
  const node = { quire, http, bus, home }
  nodes.push(node)
  return node
}

async function stopNode(node: Node): Promise<void> {
  nodes.splice(nodes.indexOf(node), 1)
  await node.http.close()
  await node.bus.close()
  await node.quire.close()
  await rm(node.home, { recursive: true, force: true })
}

const join = (node: Node): Peer => {
  const joined = peer(node.http.port, docId, { token: node.http.token })
  peers.push(joined)
  return joined
}

/** The editors a registry holds for the document, as [connection, clientId, composing]. */
const editors = (registry: PresenceRegistry): [string, number, boolean][] =>
  registry.forDocument(docId).map((seen: EditorPresence) => [seen.connection, seen.clientId, seen.composing] as [string, number, boolean]).sort()

const awarenessOf = (watcher: Peer, of: Peer): Record<string, unknown> | undefined =>
  watcher.provider.awareness.getStates().get(of.doc.clientID) as Record<string, unknown> | undefined

/** Every message the bus published so far has come back to it through Redis (and been dropped). */
const echoesIn = (bus: PresenceBus) => {
  const published = bus.counters.published
  return until(`${bus.node}'s echoes`, () => bus.counters.echoesDropped >= published)
}

beforeAll(async () => {
  redis = await startTestRedis()
  seedHome = await tempDir('quire-seed-')
  const seed = await openQuire(seedHome, { watchDisk: false })
  docId = (await seed.services.engine.commands.documents.create({ kind: 'markdown', content: 'shared\n', path: null, title: 'shared', origin: 'untitled', actor: USER })).docId
  await seed.close()
})

afterEach(async () => {
  for (const each of peers.splice(0)) each.destroy()
  for (const bus of buses.splice(0)) await bus.close()
  for (const node of [...nodes]) await stopNode(node)
})

afterAll(async () => {
  await redis?.stop()
  if (seedHome) await rm(seedHome, { recursive: true, force: true })
})

describe('presence and awareness across nodes through Redis', () => {
  it("shows each node's editors in the other's registry and rooms, tagged with their node, and drops its own echoes", async () => {
    const [a, b] = [await startNode('node-a'), await startNode('node-b')]
    await Promise.all([a.bus.connected(), b.bus.connected()])
    expect(a.bus.status).toMatchObject({ node: 'node-a', state: 'connected' })

    const onA = join(a)
    const onB = join(b)
    await Promise.all([onA.synced(), onB.synced()])
    onA.provider.awareness.setLocalStateField('user', { name: 'Ada' })
    onA.provider.awareness.setLocalStateField(PRESENCE_FIELD, editor({ composing: true }))
    onB.provider.awareness.setLocalStateField(PRESENCE_FIELD, editor({ window: 'second' }))

    // Presence: B's registry holds A's editor under A's node id, and A's holds B's.
    await until("B to see A's editor", () => b.quire.services.presence.forDocument(docId).some((seen) => seen.clientId === onA.doc.clientID && seen.composing))
    await until("A to see B's editor", () => a.quire.services.presence.forDocument(docId).some((seen) => seen.clientId === onB.doc.clientID))
    const [seenOnB] = b.quire.services.presence.forDocument(docId).filter((seen) => seen.clientId === onA.doc.clientID)
    expect(seenOnB).toMatchObject({ ...editor({ composing: true }), docId, clientId: onA.doc.clientID, connection: expect.stringMatching(/^node-a\/console-\d+$/) })
    // The write path's view on B: the person composes on A, in an editor showing this document.
    expect(b.quire.services.presence.forWindow('main').map((seen) => seen.clientId)).toEqual([onA.doc.clientID])

    // Awareness: the peer on B sees the peer on A's cursor state, and the other way round.
    await until("B's peer to see A's peer", () => (awarenessOf(onB, onA)?.['user'] as { name?: string } | undefined)?.name === 'Ada')
    await until("A's peer to see B's peer", () => (awarenessOf(onA, onB)?.[PRESENCE_FIELD] as { window?: string } | undefined)?.window === 'second')

    // Own echoes: once everything each node sent has come back to it, each registry holds each editor exactly once.
    await Promise.all([echoesIn(a.bus), echoesIn(b.bus)])
    expect(a.bus.counters.echoesDropped).toBeGreaterThan(0)
    const localA = a.quire.services.presence.forDocument(docId).find((seen) => seen.clientId === onA.doc.clientID)!.connection
    const localB = b.quire.services.presence.forDocument(docId).find((seen) => seen.clientId === onB.doc.clientID)!.connection
    expect(editors(a.quire.services.presence)).toEqual([[localA, onA.doc.clientID, true], [`node-b/${localB}`, onB.doc.clientID, false]].sort())
    expect(editors(b.quire.services.presence)).toEqual([[`node-a/${localA}`, onA.doc.clientID, true], [localB, onB.doc.clientID, false]].sort())

    // A peer that leaves A leaves B's registry and B's peers.
    onA.provider.disconnect()
    await until('A\'s editor to leave B', () => !b.quire.services.presence.forDocument(docId).some((seen) => seen.clientId === onA.doc.clientID))
    await until("A's peer to leave B's peer", () => awarenessOf(onB, onA) === undefined)
  })

  it('gives a node that joins later, and a room opened later, what the other nodes announce', async () => {
    const a = await startNode('node-a')
    await a.bus.connected()
    const onA = join(a)
    await onA.synced()
    onA.provider.awareness.setLocalStateField(PRESENCE_FIELD, editor())
    await until("A's own editor", () => a.quire.services.presence.forDocument(docId).length === 1)

    const b = await startNode('node-b')
    await b.bus.connected()
    await until("B to see A's editor", () => b.quire.services.presence.forDocument(docId).some((seen) => seen.clientId === onA.doc.clientID))
    // B had no room for the document when A's state came; its first peer gets A's peers' awareness on joining.
    const onB = join(b)
    await onB.synced()
    await until("B's new peer to see A's peer", () => awarenessOf(onB, onA) !== undefined)
  })

  it("drops a node's editors when it says goodbye, and when it goes quiet without a word", async () => {
    const b = await startNode('node-b', { heartbeatMs: 100, nodeTimeoutMs: 400 })
    await b.bus.connected()
    const registry = new PresenceRegistry()
    // Never drops a node for silence within this test: only B's goodbye can take B's editors away.
    const c = new PresenceBus({ redis: redis.url, presence: registry, nodeId: 'node-c', nodeTimeoutMs: 600_000 })
    buses.push(c)
    await c.connected()
    const onB = join(b)
    await onB.synced()
    onB.provider.awareness.setLocalStateField(PRESENCE_FIELD, editor())
    await until("C to see B's editor", () => registry.forDocument(docId).length === 1)
    await b.bus.close()
    await until("C to drop B's editors on B's goodbye", () => registry.forDocument(docId).length === 0)

    // A node that dies says nothing: a raw client plays one that announces an editor, then never speaks again.
    const ghost = new Redis({ path: redis.url.slice('unix://'.length) })
    try {
      const update = encodeAwarenessEntries([{ clientId: 4242, clock: 1, state: { [PRESENCE_FIELD]: editor() }, json: JSON.stringify({ [PRESENCE_FIELD]: editor() }) }])
      const state = { v: 2, node: 'node-ghost', instance: 'ghost-instance', kind: 'state', ask: false, rooms: [{ docId, update: Buffer.from(update).toString('base64'), owners: { 4242: 'person-1' } }] }
      const quiet = new PresenceRegistry()
      // The watcher's clock stands still until the test moves it: the ghost cannot go quiet before it was seen.
      let clock = Date.now()
      const watcher = new PresenceBus({ redis: redis.url, presence: quiet, nodeId: 'node-d', heartbeatMs: 50, nodeTimeoutMs: 1_000, now: () => clock })
      buses.push(watcher)
      await watcher.connected()
      await ghost.publish('quire:presence', JSON.stringify(state))
      await until("D to see the ghost's editor", () => quiet.forDocument(docId).some((seen) => seen.connection === 'node-ghost/person-1'))
      expect(watcher.status.nodes).toBeGreaterThanOrEqual(1)
      clock += 1_001
      await until("D to drop the quiet ghost's editor", () => quiet.forDocument(docId).length === 0)
    } finally {
      ghost.disconnect()
    }
  })

  it('refuses what is not a presence message, and keeps working', async () => {
    const registry = new PresenceRegistry()
    const bus = new PresenceBus({ redis: redis.url, presence: registry, nodeId: 'node-e' })
    buses.push(bus)
    await bus.connected()
    const other = new Redis({ path: redis.url.slice('unix://'.length) })
    try {
      await other.publish('quire:presence', 'not json')
      await other.publish('quire:presence', JSON.stringify({ v: 3, node: 'future', instance: 'future-instance', kind: 'alive' }))
      await other.publish('quire:presence', JSON.stringify({ v: 2, node: 'x', instance: 'x-instance', kind: 'awareness', docId, update: Buffer.from([1, 99]).toString('base64'), owners: {} }))
      await until('three refusals', () => bus.counters.refused === 3)
      const update = encodeAwarenessEntries([{ clientId: 7, clock: 1, state: { [PRESENCE_FIELD]: editor() }, json: JSON.stringify({ [PRESENCE_FIELD]: editor() }) }])
      await other.publish('quire:presence', JSON.stringify({ v: 2, node: 'x', instance: 'x-instance', kind: 'awareness', docId, update: Buffer.from(update).toString('base64'), owners: { 7: 'person-9' } }))
      await until('the valid one to be applied', () => registry.forDocument(docId).length === 1)
      expect(bus.status.state).toBe('connected')
    } finally {
      other.disconnect()
    }
  })

  it('refuses an address that is not Redis, naming the forms it takes, and never repeats a password', () => {
    const registry = new PresenceRegistry()
    expect(() => new PresenceBus({ redis: 'postgres://db/quire', presence: registry })).toThrow(/is not a Redis address \(postgres: given\): give redis:\/\/HOST/)
    expect(() => new PresenceBus({ redis: 'redis:////', presence: registry })).toThrow(/names no host/)
    expect(() => new PresenceBus({ redis: 'unix://', presence: registry })).toThrow(/names no socket/)
    expect(() => new PresenceBus({ redis: 'nonsense with spaces', presence: registry })).toThrow(/is not a Redis address/)
    let message = ''
    try {
      new PresenceBus({ redis: 'http://user:hunter2@redis:6379', presence: registry })
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toMatch(/is not a Redis address/)
    expect(message).not.toContain('hunter2')
  })
})

describe('Redis going away', () => {
  it('keeps documents and local presence working, says presence is degraded, and recovers when Redis is back', async () => {
    const [a, b] = [await startNode('node-a'), await startNode('node-b')]
    await Promise.all([a.bus.connected(), b.bus.connected()])
    const statuses: PresenceBusStatus[] = []
    a.bus.onStatus((status) => statuses.push(status))
    const onA = join(a)
    const alsoOnA = join(a)
    const onB = join(b)
    await Promise.all([onA.synced(), alsoOnA.synced(), onB.synced()])
    onA.provider.awareness.setLocalStateField(PRESENCE_FIELD, editor())
    await until("B to see A's editor", () => b.quire.services.presence.forDocument(docId).some((seen) => seen.clientId === onA.doc.clientID))

    await redis.kill()
    await until('both buses to be degraded', () => a.bus.status.state === 'degraded' && b.bus.status.state === 'degraded')
    expect(a.bus.status.reason).toMatch(/^Redis at unix:\/\/.*redis\.sock is unreachable .*; presence is this node's only$/)
    expect(statuses.map((status) => status.state)).toContain('degraded')
    // Presence is this node's only: B no longer counts A's editor (nor A B's), and each still has its own.
    expect(b.quire.services.presence.forDocument(docId).some((seen) => seen.clientId === onA.doc.clientID)).toBe(false)
    expect(a.quire.services.presence.forDocument(docId).map((seen) => seen.clientId)).toEqual([onA.doc.clientID])

    // Documents keep working: an edit on A is recorded and reaches A's other peer.
    onA.text.insert(0, 'typed while Redis was down ')
    await until('the edit on A', async () => (await a.quire.services.engine.documents.get(docId))!.content.startsWith('typed while Redis was down '))
    await until("A's other peer to get the edit", () => alsoOnA.text.toString().startsWith('typed while Redis was down '))
    // Local awareness and presence keep working.
    onA.provider.awareness.setLocalStateField(PRESENCE_FIELD, editor({ composing: true }))
    await until("A's registry to see the composition", () => a.quire.services.presence.forDocument(docId)[0]?.composing === true)
    await until("A's other peer to see it", () => (awarenessOf(alsoOnA, onA)?.[PRESENCE_FIELD] as { composing?: boolean } | undefined)?.composing === true)

    await redis.restart()
    await until('both buses to reconnect', () => a.bus.status.state === 'connected' && b.bus.status.state === 'connected', 20_000)
    expect(statuses.at(-1)).toMatchObject({ node: 'node-a', state: 'connected' })
    expect(a.bus.status.reason).toBeUndefined()
    // What changed on A while Redis was down reaches B: its registry, and its peer.
    await until("B to see A's composition", () =>
      b.quire.services.presence.forDocument(docId).some((seen) => seen.clientId === onA.doc.clientID && seen.composing))
    await until("B's peer to see it", () => (awarenessOf(onB, onA)?.[PRESENCE_FIELD] as { composing?: boolean } | undefined)?.composing === true)
  })

  it('starts degraded when Redis is not there, and connects once it is', async () => {
    await redis.kill()
    const registry = new PresenceRegistry()
    const bus = new PresenceBus({ redis: redis.url, presence: registry, nodeId: 'node-late', reconnectMaxMs: 200 })
    buses.push(bus)
    await until('the bus to say it is degraded', () => bus.status.state === 'degraded')
    await expect(bus.connected(300)).rejects.toThrow(/did not answer in 300 ms/)
    await redis.restart()
    await bus.connected(20_000)
    expect(bus.status.state).toBe('connected')
  })
})

describe("a node's id, held in Redis", () => {
  it('a second process given the same id turns clash and shares nothing; the first stays connected and sees nothing of it', async () => {
    const first = new PresenceBus({ redis: redis.url, presence: new PresenceRegistry(), nodeId: 'node-twin', heartbeatMs: 200 })
    buses.push(first)
    await first.connected()
    const secondRegistry = new PresenceRegistry()
    const second = new PresenceBus({ redis: redis.url, presence: secondRegistry, nodeId: 'node-twin', heartbeatMs: 200 })
    buses.push(second)
    await expect(second.connected(10_000)).rejects.toThrow(/another running process serves as node node-twin .*QUIRE_NODE_ID/)
    expect(second.status).toMatchObject({ node: 'node-twin', state: 'clash' })
    expect(await second.settled(1_000)).toMatchObject({ state: 'clash' })
    expect(second.counters.published).toBe(0)
    // The first never heard the second: a process that does not hold the id never speaks under it.
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(first.status.state).toBe('connected')
    expect(first.counters.foreignInstances).toBe(0)
  })

  it('a closed bus lets go of its id at once, and a dead process lets go of it when its claim runs out', async () => {
    const before = new PresenceBus({ redis: redis.url, presence: new PresenceRegistry(), nodeId: 'node-restarted' })
    await before.connected()
    await before.close()
    const after = new PresenceBus({ redis: redis.url, presence: new PresenceRegistry(), nodeId: 'node-restarted' })
    buses.push(after)
    // Well within the 15-second claim a process that was killed would leave.
    await after.connected(3_000)

    // A process killed without a word: its claim stays until its time to live runs out, and is never renewed.
    const raw = new Redis({ path: redis.url.slice('unix://'.length) })
    try {
      await raw.set('quire:presence:node:node-crashed', 'a-dead-instance', 'PX', 1_500)
      const statuses: PresenceBusStatus[] = []
      const next = new PresenceBus({ redis: redis.url, presence: new PresenceRegistry(), nodeId: 'node-crashed', heartbeatMs: 400 })
      buses.push(next)
      next.onStatus((status) => statuses.push(status))
      const settled = await next.settled(10_000)
      expect(settled.state).toBe('connected')
      expect(statuses.some((status) => status.state === 'connecting' && /another process holds the id node-crashed/.test(status.reason ?? ''))).toBe(true)
      expect(await raw.get('quire:presence:node:node-crashed')).toBe(next.instance)
    } finally {
      raw.disconnect()
    }
  })

  it('a claim on the id that another process keeps renewing is a clash, even when that process says nothing', async () => {
    const raw = new Redis({ path: redis.url.slice('unix://'.length) })
    const renewing = setInterval(() => void raw.set('quire:presence:node:node-renewed', 'a-silent-instance', 'PX', 3_000), 300)
    try {
      await raw.set('quire:presence:node:node-renewed', 'a-silent-instance', 'PX', 3_000)
      const bus = new PresenceBus({ redis: redis.url, presence: new PresenceRegistry(), nodeId: 'node-renewed', heartbeatMs: 400 })
      buses.push(bus)
      expect(await bus.settled(10_000)).toMatchObject({ state: 'clash', reason: expect.stringMatching(/keeps renewing its claim/) })
    } finally {
      clearInterval(renewing)
      raw.disconnect()
    }
  })

  it('a process heard speaking under the id of a node still taking it is a clash', async () => {
    const raw = new Redis({ path: redis.url.slice('unix://'.length) })
    try {
      // Another process holds the id, and renews it: it runs.
      await raw.set('quire:presence:node:node-spoken', 'a-live-instance', 'PX', 60_000)
      const bus = new PresenceBus({ redis: redis.url, presence: new PresenceRegistry(), nodeId: 'node-spoken', heartbeatMs: 60_000 })
      buses.push(bus)
      await until('the bus to wait for the claim', () => bus.status.state === 'connecting' && bus.status.reason !== undefined)
      await raw.publish('quire:presence', JSON.stringify({ v: 2, node: 'node-spoken', instance: 'a-live-instance', kind: 'alive' }))
      expect(await bus.settled(5_000)).toMatchObject({ state: 'clash', reason: expect.stringMatching(/speaks under the id/) })
    } finally {
      raw.disconnect()
    }
  })
})

describe('the status line quire serve prints', () => {
  it('says presence is degraded, why, and that documents are unaffected; and when it is shared again', () => {
    const since = Date.UTC(2026, 11, 1, 18, 30)
    expect(presenceStatusLine({ node: 'n1', state: 'degraded', since, reason: "Redis at redis://redis:6379 is unreachable (publishing and subscribing: connect ECONNREFUSED); presence is this node's only", nodes: 0 }))
      .toBe("presence: degraded since 2026-12-01T18:30:00.000Z: Redis at redis://redis:6379 is unreachable (publishing and subscribing: connect ECONNREFUSED); presence is this node's only; documents are unaffected, and it reconnects by itself")
    expect(presenceStatusLine({ node: 'n1', state: 'connected', since, nodes: 2 })).toBe('presence: node n1 shares presence and awareness with the other nodes through Redis (since 2026-12-01T18:30:00.000Z)')
    expect(presenceStatusLine({ node: 'n1', state: 'clash', since, reason: 'another running process serves as node n1 (…)', nodes: 0 }))
      .toBe('presence: node n1 takes no requests: another running process serves as node n1 (…)')
  })
})
