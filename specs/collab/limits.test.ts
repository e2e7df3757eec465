import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as encoding from 'lib0/encoding'
import { startCollabServer, type CollabServer } from '../support/collabServer.js'
import { peer, rawClient, until, type Peer, type RawClient } from '../support/collabPeers.js'
import { insertUpdate } from '../support/collabFrames.js'
import { fuzzParameters } from '../support/fuzz.js'

/**
 * The endpoint's limits at test sizes (the defaults are in adapters/collab/limits.ts): oversized messages, peers that
 * stop reading or vanish, bytes that are not the protocol, and shutdown.
 */
const LIMITS = { maxMessageBytes: 64 * 1024, maxQueuedBytes: 256 * 1024, pingIntervalMs: 200, closeGraceMs: 500 }

function updateFrame(update: Uint8Array, step = 2): Uint8Array {
  const encoder = encoding.createEncoder()
  encoding.writeVarUint(encoder, 0)
  encoding.writeVarUint(encoder, step)
  encoding.writeVarUint8Array(encoder, update)
  return encoding.toUint8Array(encoder)
}

describe('collaboration endpoint limits', () => {
  let server: CollabServer
  const peers: Peer[] = []
  const raws: RawClient[] = []
  const join = (docId: string): Peer => {
    const joined = peer(server.port, docId, { token: server.token })
    peers.push(joined)
    return joined
  }
  const raw = (docId: string, options: { autoPong?: boolean } = {}): RawClient => {
    const client = rawClient(server.port, `/collab/${docId}?token=${server.token}`, options)
    raws.push(client)
    return client
  }

  beforeAll(async () => {
    server = await startCollabServer(LIMITS)
  })
  afterAll(async () => {
    for (const each of peers) each.destroy()
    for (const each of raws) each.ws.terminate()
    await server?.close()
  })

  it('closes a connection that sends a message over the size limit with 1009, and applies none of it', async () => {
    const docId = await server.createDocument('small\n')
    const client = raw(docId)
    await client.opened
    client.ws.send(updateFrame(insertUpdate('x'.repeat(LIMITS.maxMessageBytes + 1))))
    expect((await client.closed).code).toBe(1009)
    expect(await server.text(docId)).toBe('small\n')
  })

  it('cuts off a peer that stops reading once its queue passes the cap, while the others carry on', async () => {
    // A server of its own: the shared one's 200 ms keepalive and 64 KiB messages are other tests' subjects. Here they
    // would cut the writer or the reader whenever a loaded machine stalls this process (one event loop for server and
    // peers) past two pings, and a peer holding megabytes it has not sent could then never resync through 64 KiB.
    const own = await startCollabServer({ ...LIMITS, pingIntervalMs: 60_000, maxMessageBytes: 16 * 1024 * 1024 })
    const docId = await own.createDocument('')
    const sleeper = rawClient(own.port, `/collab/${docId}?token=${own.token}`)
    const writer = peer(own.port, docId, { token: own.token })
    const reader = peer(own.port, docId, { token: own.token })
    try {
      await sleeper.opened
      const sleeping = [...own.http.collabRooms.get(docId)!.connections]
      expect(sleeping).toHaveLength(1)
      const cutOff = sleeping[0]!
      // Stop reading: the kernel buffers fill, then the server's queue for this peer grows.
      const socket = (sleeper.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket
      socket.pause()
      await Promise.all([writer.synced(), reader.synced()])
      const chunk = 'y'.repeat(48 * 1024)
      const chunksPerCatchUp = Math.floor(LIMITS.maxQueuedBytes / chunk.length) - 1
      let sent = 0
      // Until the server cuts the sleeper: loopback's socket buffers (a few MiB) first, then the cap. Each chunk goes
      // in at the start: appended at the end, Yjs would merge them into one item that every update re-encodes whole.
      for (let chunks = 1; cutOff.closedBecause === undefined; chunks++) {
        expect(sent, 'the slow peer was not cut off').toBeLessThan(64 * 1024 * 1024)
        writer.text.insert(0, chunk)
        sent += chunk.length
        // The reader never has more than the cap in flight, so the cap can only ever cut the sleeper.
        if (chunks % chunksPerCatchUp === 0) await until('the reader to keep up', () => reader.text.length === writer.text.length, 60_000)
      }
      expect(cutOff.closedBecause).toEqual({ code: 1013, reason: `more than ${LIMITS.maxQueuedBytes} bytes queued: the peer is not reading` })
      await until('the reader to have everything', () => reader.text.length === writer.text.length, 60_000)
      expect(reader.text.toString()).toBe(writer.text.toString())
      socket.resume()
      // Terminated, not closed: a close frame behind a queue the peer does not read would never arrive.
      expect((await sleeper.closed).code).toBe(1006)
      const got = sleeper.received.reduce((total, message) => total + message.length, 0)
      expect(got).toBeLessThan(sent)
      expect(reader.closes).toHaveLength(0)
      expect(writer.closes).toHaveLength(0)
    } finally {
      writer.destroy()
      reader.destroy()
      sleeper.ws.terminate()
      await own.close()
    }
  }, 180_000)

  it('terminates a peer that stops answering pings', async () => {
    const docId = await server.createDocument('')
    const silent = raw(docId, { autoPong: false })
    const healthy = raw(docId)
    await Promise.all([silent.opened, healthy.opened])
    const closed = await silent.closed
    expect(closed.code).toBe(1006)
    await new Promise((resolve) => setTimeout(resolve, LIMITS.pingIntervalMs * 3))
    expect(healthy.ws.readyState).toBe(healthy.ws.OPEN)
  })

  it('closes on text frames (1003), unknown types and truncated messages (1002), and undecodable updates (1002)', async () => {
    const docId = await server.createDocument('intact\n')
    const cases: [string | Uint8Array, number][] = [
      ['hello', 1003],
      [Uint8Array.of(7), 1002],
      [Uint8Array.of(0, 9, 1, 0), 1002],
      [Uint8Array.of(0, 2, 200), 1002],
      [Uint8Array.of(1, 5, 1, 2), 1002],
      [updateFrame(Uint8Array.of(1, 2, 3, 4, 5, 6)), 1002],
      [updateFrame(Uint8Array.of(255, 255, 255), 0), 1002],
    ]
    for (const [frame, code] of cases) {
      const client = raw(docId)
      await client.opened
      client.ws.send(frame)
      const closed = await client.closed
      expect(closed.code, `for ${String(frame)}`).toBe(code)
      expect(closed.reason.length).toBeGreaterThan(0)
    }
    expect(await server.text(docId)).toBe('intact\n')
  })

  it('survives arbitrary garbage frames and keeps serving', async () => {
    const docId = await server.createDocument('still here\n')
    await fc.assert(
      fc.asyncProperty(fc.array(fc.uint8Array({ minLength: 0, maxLength: 64 }), { minLength: 1, maxLength: 5 }), async (frames) => {
        const client = raw(docId)
        await client.opened
        for (const frame of frames) if (client.ws.readyState === client.ws.OPEN) client.ws.send(frame)
        client.ws.close()
        await client.closed
      }),
      fuzzParameters({ numRuns: 40 }),
    )
    const after = join(docId)
    await after.synced()
    expect(after.text.toString()).toBe(await server.text(docId))
  })

  it('closes every peer with 1001 when the server shuts down', async () => {
    const own = await startCollabServer(LIMITS)
    const docId = await own.createDocument('bye\n')
    const first = peer(own.port, docId, { token: own.token })
    const second = rawClient(own.port, `/collab/${docId}?token=${own.token}`)
    await Promise.all([first.synced(), second.opened])
    first.text.insert(0, 'last words ')
    await own.close()
    expect((await second.closed).code).toBe(1001)
    await until('the provider to see it', () => first.closes.length > 0)
    expect(first.closes[0]!.code).toBe(1001)
    first.destroy()
  })
})
