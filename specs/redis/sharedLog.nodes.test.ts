import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { USER } from '../../core/events/actor.js'
import { PRESENCE_FIELD, type EditorPresenceState } from '../../core/presence/editorPresence.js'
import { startHttpServer, type HttpServer } from '../../adapters/http/daemon.js'
import { PresenceBus } from '../../adapters/redis/presenceBus.js'
import { closeNodes, useNodes } from '../nodes/support.js'
import { peer, until, type Peer } from '../support/collabPeers.js'
import { startTestRedis, type TestRedis } from '../support/redisServer.js'

/**
 * Two nodes on one PostgreSQL log, each with its own presence bus on one redis-server: a keystroke crosses through
 * the log, presence and awareness through Redis. With Redis killed, keystrokes still cross (documents never depend on
 * Redis) while presence is each node's own; with Redis back, presence crosses again.
 */
const cluster = useNodes()
let redis: TestRedis
const servers: { http: HttpServer; bus: PresenceBus }[] = []
const peers: Peer[] = []

beforeAll(async () => {
  redis = await startTestRedis()
})
afterEach(async () => {
  for (const each of peers.splice(0)) each.destroy()
  for (const { http, bus } of servers.splice(0)) {
    await http.close()
    await bus.close()
  }
  await closeNodes()
})
afterAll(async () => {
  await redis?.stop()
})

const editor = (overrides: Partial<EditorPresenceState> = {}): EditorPresenceState => ({
  window: 'main', tabId: 't-1', focused: true, mode: 'source', composing: false, compositionEndedAt: null, selection: null, ...overrides,
})

describe('nodes on one log with presence through Redis', () => {
  it('carry keystrokes through the log and presence through Redis, and keep carrying keystrokes while Redis is down', async () => {
    const [a, b] = await cluster(2)
    const { docId } = await a!.services.documents.create({ kind: 'markdown', content: 'shared\n', path: null, title: 'shared', origin: 'untitled', actor: USER })
    await until('node B to know the document', async () => (await b!.services.engine.documents.get(docId)) !== undefined)
    const started: { http: HttpServer; bus: PresenceBus }[] = []
    for (const [index, node] of [a!, b!].entries()) {
      const bus = new PresenceBus({ redis: redis.url, presence: node.services.presence, nodeId: `node-${index}`, reconnectMaxMs: 200 })
      const http = await startHttpServer(node.services, { presenceBus: bus })
      servers.push({ http, bus })
      started.push({ http, bus })
    }
    // Named apart: connection labels (`console-1`, …) are unique within a node only, and the fan-out does not send a
    // change to a peer whose label is the change's origin, so a same-named peer on the other node would miss it.
    const [onA, onB] = started.map(({ http }, index) => {
      const joined = peer(http.port, docId, { token: http.token, params: { name: index === 0 ? 'ada' : 'bob' } })
      peers.push(joined)
      return joined
    }) as [Peer, Peer]
    await Promise.all([onA.synced(), onB.synced(), ...started.map(({ bus }) => bus.connected())])
    const registryB = b!.services.presence

    onA.provider.awareness.setLocalStateField(PRESENCE_FIELD, editor({ composing: true }))
    onA.text.insert(0, 'from A: ')
    await until("B's peer to get A's keystrokes", () => onB.text.toString() === 'from A: shared\n')
    await until("B's registry to hold A's editor", () => registryB.forDocument(docId).some((seen) => seen.clientId === onA.doc.clientID && seen.composing))
    await until("B's peer to see A's peer", () => onB.provider.awareness.getStates().has(onA.doc.clientID))

    await redis.kill()
    await until('both buses to degrade', () => started.every(({ bus }) => bus.status.state === 'degraded'))
    expect(registryB.forDocument(docId).some((seen) => seen.clientId === onA.doc.clientID)).toBe(false)
    onB.text.insert(0, 'from B without Redis: ')
    await until("A's peer to get B's keystrokes", () => onA.text.toString() === 'from B without Redis: from A: shared\n')
    expect((await a!.services.engine.documents.get(docId))!.content).toBe('from B without Redis: from A: shared\n')

    await redis.restart()
    await until('both buses to reconnect', () => started.every(({ bus }) => bus.status.state === 'connected'), 20_000)
    await until("B's registry to hold A's editor again", () => registryB.forDocument(docId).some((seen) => seen.clientId === onA.doc.clientID && seen.composing))
  })
})
