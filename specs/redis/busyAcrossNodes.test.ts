import { randomBytes } from 'node:crypto'
import { cp, mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHttpServer, type HttpServer } from '../../adapters/http/daemon.js'
import { openQuire, type Quire } from '../../adapters/host/quire.js'
import { PresenceBus } from '../../adapters/redis/presenceBus.js'
import { PERSON } from '../support/conformance.js'
import { editorPeer, type EditorPeer } from '../support/editorPeer.js'
import { docOfTab, envelope, launchFaulty, ok, openTab, readDoc, real, within } from '../support/faultSession.js'
import { launchInProcess, tempDir, type Session } from '../support/mcpHarness.js'
import { until } from '../support/collabPeers.js'
import { sharedTestRedis, type TestRedis } from '../support/redisServer.js'

/**
 * CONC.5 / DOC.WRITE.15 across nodes (issue 17, "presence and BUSY across nodes"): the person composes in an editor
 * attached to node A; an assistant's write through node B answers BUSY, because node B's presence registry holds
 * node A's editor through Redis. Both nodes start from one data directory copied (the same workspace, tab and
 * document; the shared log is not this test's subject), each with its own presence bus.
 */
describe('the person composing on one node holds back writes through another', () => {
  let redis: Pick<TestRedis, 'url' | 'stop'>
  // The run's Redis may be shared with other test files: this test's nodes talk on a channel of their own.
  const channel = `quire:presence:${randomBytes(6).toString('hex')}`
  let root: string
  let nodeA: { quire: Quire; http: HttpServer; bus: PresenceBus }
  let nodeB: { session: Session & { quire: Quire }; bus: PresenceBus }
  let tabId: string
  let docId: string
  let editor: EditorPeer | undefined

  beforeAll(async () => {
    redis = await sharedTestRedis()
    root = await real(await tempDir('quire-busy-nodes-'))
    const folder = join(root, 'workspace')
    await mkdir(folder)
    await writeFile(join(folder, 'notes.md'), 'hello world\n')
    const seedHome = join(root, 'seed')
    const seed = await launchFaulty({ home: seedHome, workspaces: [folder] })
    tabId = await openTab(seed, join(folder, 'notes.md'))
    await seed.quire.services.workspace.switchTab(tabId, PERSON)
    docId = docOfTab(seed.quire, tabId)
    await seed.close()
    await cp(seedHome, join(root, 'a'), { recursive: true })
    await cp(seedHome, join(root, 'b'), { recursive: true })

    const quireA = await openQuire(join(root, 'a'), { watchDisk: false })
    const busA = new PresenceBus({ redis: redis.url, channel, presence: quireA.services.presence, nodeId: 'node-a' })
    nodeA = { quire: quireA, bus: busA, http: await startHttpServer(quireA.services, { presenceBus: busA }) }
    const session = await launchInProcess({ home: join(root, 'b'), watchDisk: false })
    nodeB = { session, bus: new PresenceBus({ redis: redis.url, channel, presence: session.quire.services.presence, nodeId: 'node-b' }) }
    await Promise.all([nodeA.bus.connected(), nodeB.bus.connected()])
  })

  afterAll(async () => {
    editor?.close()
    await nodeA?.http.close()
    await nodeA?.bus.close()
    await nodeA?.quire.close()
    await nodeB?.bus.close()
    await nodeB?.session.close()
    await redis?.stop()
    if (root) await rm(root, { recursive: true, force: true })
  })

  it('CONC.5 BUSY on node B while the person composes on node A, and the write lands once the composition is over', async () => {
    editor = editorPeer(nodeA.http.url, nodeA.http.token, docId, { tabId })
    await within(10_000, 'the editor to sync', editor.synced())
    editor.present({ composing: true })
    const registryB = nodeB.session.quire.services.presence
    await until("node B to see node A's composing editor", () => registryB.forTab(tabId).some((seen) => seen.composing && seen.connection.startsWith('node-a/')))

    const before = await readDoc(nodeB.session, tabId)
    envelope(await nodeB.session.call('document', { action: 'write', tabId, content: 'must not land\n', save: false }), 'BUSY')
    expect(await readDoc(nodeB.session, tabId)).toEqual(before)

    // Ended without a composition end time: no grace period to wait out (DOC.WRITE.16).
    editor.present({ composing: false })
    await until('node B to see the composition end', () => registryB.forTab(tabId).some((seen) => seen.connection.startsWith('node-a/') && !seen.composing))
    ok(await nodeB.session.call('document', { action: 'write', tabId, content: 'after the composition\n', save: false }))
    expect((await readDoc(nodeB.session, tabId)).content).toBe('after the composition\n')
  })
})
