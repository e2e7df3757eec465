/**
 * Awareness is bounded (issue 11, finding 9): one state may hold at most maxAwarenessStateBytes (64 KiB), one
 * connection may speak for at most maxAwarenessClientsPerConnection (8) client ids. Over either, the connection is
 * closed with a clear code (4413, 4429: final for the stock client) and nothing of the message is kept or relayed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_LIMITS } from '../../adapters/collab/limits.js'
import { awarenessMessage, encodeAwarenessEntries } from '../../adapters/collab/protocol.js'
import { startCollabServer, type CollabServer } from '../support/collabServer.js'
import { peer, rawClient, until, type Peer, type RawClient } from '../support/collabPeers.js'
import { varUint } from '../support/collabFrames.js'
import { within } from './sessionsRig.js'

/** One awareness message announcing `states` for the client ids given, each at clock 1. */
function awareness(states: readonly { clientId: number; state: unknown }[]): Uint8Array {
  return awarenessMessage(encodeAwarenessEntries(states.map(({ clientId, state }) => ({ clientId, clock: 1, state, json: JSON.stringify(state) }))))
}

/** An awareness message with `count` entries, built by hand (encoding 200,000 through objects would be the test's cost). */
function manyClients(count: number): Uint8Array {
  const entry = (clientId: number) => [...varUint(clientId), 1, 2, ...Buffer.from('{}')]
  const body = [...varUint(count)]
  for (let clientId = 1; clientId <= count; clientId++) body.push(...entry(clientId))
  return Uint8Array.from([1, ...varUint(body.length), ...body])
}

describe('awareness bounds', () => {
  let server: CollabServer
  const peers: Peer[] = []
  const raws: RawClient[] = []
  const join = (docId: string): Peer => {
    const joined = peer(server.port, docId, { token: server.token })
    peers.push(joined)
    return joined
  }
  const raw = (docId: string): RawClient => {
    const client = rawClient(server.port, `/collab/${docId}?token=${server.token}`)
    raws.push(client)
    return client
  }

  beforeAll(async () => {
    server = await startCollabServer()
  })
  afterAll(async () => {
    for (const each of peers) each.destroy()
    for (const each of raws) each.ws.terminate()
    await server?.close()
  })

  it('the defaults are 64 KiB per state and 8 client ids per connection', () => {
    expect(DEFAULT_LIMITS.maxAwarenessStateBytes).toBe(64 * 1024)
    expect(DEFAULT_LIMITS.maxAwarenessClientsPerConnection).toBe(8)
  })

  it('a stock provider whose state is over 64 KiB is closed with 4413 and stops; the state reaches no one', async () => {
    const docId = await server.createDocument('x\n')
    const watcher = join(docId)
    const heavy = join(docId)
    await Promise.all([watcher.synced(), heavy.synced()])
    heavy.provider.awareness.setLocalStateField('blob', 'x'.repeat(15 * 1024 * 1024))
    await until('the heavy peer to be closed', () => heavy.closes.length > 0)
    expect(heavy.closes[0]!.code).toBe(4413)
    expect(heavy.closes[0]!.reason).toMatch(/awareness state of client \d+ has \d+ bytes, over the limit of 65536/)

    const joiner = join(docId)
    await joiner.synced()
    expect(joiner.provider.awareness.getStates().has(heavy.doc.clientID)).toBe(false)
    expect(watcher.provider.awareness.getStates().has(heavy.doc.clientID)).toBe(false)
    expect(heavy.closes.every((close) => close.code === 4413)).toBe(true)
  })

  it('a state just under the limit is relayed as usual', async () => {
    const docId = await server.createDocument('x\n')
    const watcher = join(docId)
    const sender = join(docId)
    await Promise.all([watcher.synced(), sender.synced()])
    sender.provider.awareness.setLocalStateField('note', 'y'.repeat(60 * 1024))
    await until('the watcher to get the state', () => watcher.provider.awareness.getStates().get(sender.doc.clientID)?.['note']?.length === 60 * 1024)
    expect(sender.closes).toHaveLength(0)
  })

  it('a connection may speak for 8 client ids; the 9th closes it with 4429 and its states are gone', async () => {
    const docId = await server.createDocument('x\n')
    const watcher = join(docId)
    await watcher.synced()
    const client = raw(docId)
    await client.opened
    for (let clientId = 1; clientId <= 8; clientId++) client.ws.send(awareness([{ clientId, state: { n: clientId } }]))
    await until('the watcher to see eight clients', () => [1, 2, 3, 4, 5, 6, 7, 8].every((id) => watcher.provider.awareness.getStates().has(id)))
    // Updating one it already speaks for is fine.
    client.ws.send(awareness([{ clientId: 3, state: { n: 33 } }]))
    client.ws.send(awareness([{ clientId: 9, state: { n: 9 } }]))
    const closed = await within(10_000, 'the close', client.closed)
    expect(closed).toEqual({ code: 4429, reason: 'a connection speaks for at most 8 awareness clients' })
    await until('its states to be removed from the others', () => [1, 2, 3, 4, 5, 6, 7, 8].every((id) => !watcher.provider.awareness.getStates().has(id)))
    expect(watcher.provider.awareness.getStates().has(9)).toBe(false)
  })

  it('200,000 client ids in one message are refused while decoding (4429), nothing applied', async () => {
    const docId = await server.createDocument('x\n')
    const watcher = join(docId)
    await watcher.synced()
    const client = raw(docId)
    await client.opened
    client.ws.send(manyClients(200_000))
    const closed = await within(10_000, 'the close', client.closed)
    expect(closed.code).toBe(4429)
    expect(closed.reason).toBe('an awareness message has 200000 entries; a connection speaks for at most 8 clients')
    const joiner = join(docId)
    await joiner.synced()
    // Only the joiner's own state (a stock provider's initial empty state, at clock 0, is never relayed).
    expect([...joiner.provider.awareness.getStates().keys()]).toEqual([joiner.doc.clientID])
  })

  it('removals of states nobody announced are ignored and do not count', async () => {
    const docId = await server.createDocument('x\n')
    const client = raw(docId)
    await client.opened
    client.ws.send(awareness(Array.from({ length: 8 }, (_, index) => ({ clientId: 1000 + index, state: null }))))
    client.ws.send(awareness(Array.from({ length: 8 }, (_, index) => ({ clientId: 2000 + index, state: { n: index } }))))
    const watcher = join(docId)
    await watcher.synced()
    await until('the watcher to see the eight live clients', () => watcher.provider.awareness.getStates().size >= 9)
    expect(raws.at(-1)!.ws.readyState).toBe(raws.at(-1)!.ws.OPEN)
  })
})
