import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setTimeout as sleep } from 'node:timers/promises'
import { startCollabServer, type CollabServer } from '../support/collabServer.js'
import { peer, until, type Peer } from '../support/collabPeers.js'

/**
 * Fan-out is event-sourced: a change reaches other peers only once its event is on disk, whoever made it. The log's
 * disk writes are held at a gate here, so "not yet durable" lasts as long as the test wants.
 */
describe('collaboration fan-out waits for the log', () => {
  let server: CollabServer
  let release: (() => void) | undefined
  let gate: Promise<void> = Promise.resolve()
  const hold = () => {
    gate = new Promise<void>((resolve) => (release = resolve))
  }
  const open = () => {
    release?.()
    gate = Promise.resolve()
  }
  const peers: Peer[] = []
  const join = (docId: string): Peer => {
    const joined = peer(server.port, docId, { token: server.token })
    peers.push(joined)
    return joined
  }

  beforeAll(async () => {
    server = await startCollabServer({}, { interceptWrite: async (write) => { await gate; await write() } })
  })
  afterAll(async () => {
    open()
    for (const each of peers) each.destroy()
    await server?.close()
  })

  it("holds a peer's keystroke from the other peers until it is durable", async () => {
    const docId = await server.createDocument('base\n')
    const typist = join(docId)
    const other = join(docId)
    await Promise.all([typist.synced(), other.synced()])
    hold()
    typist.text.insert(0, 'k')
    // The server has applied it to the live document...
    await until('the server to apply the keystroke', async () => (await server.text(docId)) === 'kbase\n')
    const { store } = server.quire.services.engine
    expect(store.durableHeadPosition).toBeLessThan(store.headPosition)
    // ...and holds it from the other peer, and from a peer that joins now, until the log has it.
    const late = join(docId)
    await sleep(300)
    expect(other.text.toString()).toBe('base\n')
    expect(late.provider.synced).toBe(false)
    open()
    await until('the keystroke to reach both', () => other.text.toString() === 'kbase\n' && late.text.toString() === 'kbase\n')
  })

  it('fans out a write made through the journal (as MCP does) only once it is on disk', async () => {
    const docId = await server.createDocument('draft\n')
    const watcher = join(docId)
    await watcher.synced()
    const { engine } = server.quire.services
    const seen: { durable: number; head: number }[] = []
    watcher.doc.on('update', () => seen.push({ durable: engine.store.durableHeadPosition, head: (engine.documents.peek(docId))!.position }))
    const outcome = await engine.commands.documents.write({ docId, content: 'draft\nassistant\n', actor: { kind: 'mcp', principal: 'test', connection: 'c-1' } })
    expect(outcome.changed).toBe(true)
    await until('the write to reach the peer', () => watcher.text.toString() === 'draft\nassistant\n')
    for (const moment of seen) expect(moment.durable).toBeGreaterThanOrEqual(moment.head)
  })

  it('fans out changes to every connection of a document, including a reload from disk', async () => {
    const docId = await server.createDocument('one\n')
    const first = join(docId)
    const second = join(docId)
    await Promise.all([first.synced(), second.synced()])
    await server.quire.services.engine.commands.documents.replaceFromDisk(docId, 'one\nfrom disk\n', '/tmp/nowhere.md', { kind: 'disk' })
    await until('both peers to get the reload', () => first.text.toString() === 'one\nfrom disk\n' && second.text.toString() === 'one\nfrom disk\n')
  })
})
