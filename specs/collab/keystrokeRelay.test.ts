import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setTimeout as sleep } from 'node:timers/promises'
import * as encoding from 'lib0/encoding'
import type { RecordedEvent } from '../../core/log/eventLog.js'
import { keystrokePolicyFromEnvironment } from '../../adapters/collab/keystrokes.js'
import { startCollabServer, type CollabServer } from '../support/collabServer.js'
import { peer, rawClient, until, type Peer, type RawClient } from '../support/collabPeers.js'
import { insertUpdate } from '../support/collabFrames.js'

/**
 * The opt-in `relay` rule (adapters/collab/keystrokes.ts): a keystroke goes to the other peers as soon as it is known
 * to be a Yjs update, and is appended within its window; nothing else about durability changes. The log's disk
 * writes are held at a gate, as in durability.test.ts, so "not yet durable" lasts as long as a test wants.
 */
/** Long enough that keystrokes sent 10 ms apart land in one window even on a loaded machine. */
const WINDOW_MS = 300

describe('relaying keystrokes ahead of the log', () => {
  let server: CollabServer
  let release: (() => void) | undefined
  let gate: Promise<void> = Promise.resolve()
  /** Synced writes the log has started. */
  let writes = 0
  const hold = () => {
    gate = new Promise<void>((resolve) => (release = resolve))
  }
  const open = () => {
    release?.()
    gate = Promise.resolve()
  }
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
  const peerEvents = async (docId: string): Promise<RecordedEvent[]> => {
    const events: RecordedEvent[] = []
    for await (const event of server.quire.services.engine.store.readAll(0)) {
      if (event.stream === `doc:${docId}` && event.type === 'document.changed' && event.actor.kind === 'peer') events.push(event)
    }
    return events
  }

  beforeAll(async () => {
    server = await startCollabServer({}, { interceptWrite: async (write) => { writes++; await gate; await write() } }, { fanOut: 'relay', appendWindowMs: WINDOW_MS })
  })
  afterAll(async () => {
    open()
    for (const each of peers) each.destroy()
    for (const each of raws) each.ws.terminate()
    await server?.close()
  })

  it('sends a keystroke to the other peers before it is durable, records it, and still holds a joiner until the disk has it', async () => {
    const docId = await server.createDocument('base\n')
    const typist = join(docId)
    const other = join(docId)
    await Promise.all([typist.synced(), other.synced()])
    hold()
    typist.text.insert(0, 'k')
    await until('the other peer to get the keystroke while the disk is held', () => other.text.toString() === 'kbase\n')
    // Recorded within its window, as the peer's own event, though not yet on disk.
    await until('the server to append the keystroke', async () => (await server.text(docId)) === 'kbase\n')
    const { store } = server.quire.services.engine
    expect(store.durableHeadPosition).toBeLessThan(store.headPosition)
    // A joiner's SyncStep2 is computed from the live document and sent only once all of it is durable, as before.
    const late = join(docId)
    await sleep(300)
    expect(late.provider.synced).toBe(false)
    open()
    await until('the joiner to sync', () => late.text.toString() === 'kbase\n')
    const recorded = await peerEvents(docId)
    expect(recorded).toHaveLength(1)
    expect(other.text.toString()).toBe('kbase\n')
  })

  it('gathers the keystrokes of one window into one synced write, each its own event', async () => {
    const docId = await server.createDocument('')
    const typist = join(docId)
    await typist.synced()
    hold()
    const before = writes
    // Keystrokes 10 ms apart, each its own frame, all well inside one window. Appended one by one (the durable rule),
    // the first would be written alone and the others queued behind it: two writes.
    for (const key of 'abcde') {
      typist.text.insert(typist.text.length, key)
      await sleep(10)
    }
    await until('the server to append them', async () => (await server.text(docId)) === 'abcde')
    open()
    const { store } = server.quire.services.engine
    await until('the write to land', () => store.durableHeadPosition === store.headPosition)
    expect(writes - before).toBe(1)
    expect(await peerEvents(docId)).toHaveLength(5)
  })

  it('sends the log fan-out of a relayed keystroke only to peers that joined after it was relayed', async () => {
    const docId = await server.createDocument('x\n')
    const early = raw(docId)
    await early.opened
    const typist = join(docId)
    await typist.synced()
    hold()
    typist.text.insert(0, 'y')
    await until('the relay to reach the early peer', () => updatesIn(early).length === 1)
    await until('the server to append the keystroke', async () => (await server.text(docId)) === 'yx\n')
    // Joins after the relay, before the keystroke is durable: only the log can bring it to this one.
    const joinedLater = raw(docId)
    await joinedLater.opened
    open()
    await until('the log fan-out to reach the later peer', () => updatesIn(joinedLater).length === 1)
    await sleep(200)
    expect(updatesIn(early)).toHaveLength(1)
    expect(updatesIn(joinedLater)).toHaveLength(1)
  })

  it('relays nothing that is not a Yjs update, and closes its sender (1002)', async () => {
    const docId = await server.createDocument('intact\n')
    const watcher = raw(docId)
    const sender = raw(docId)
    await Promise.all([watcher.opened, sender.opened])
    sender.ws.send(updateFrame(Uint8Array.of(1, 2, 3, 4, 5, 6)))
    expect((await sender.closed).code).toBe(1002)
    // A real update after it still travels: the room is unharmed.
    const writer = raw(docId)
    await writer.opened
    writer.ws.send(updateFrame(insertUpdate('ok ')))
    await until('the good update to reach the watcher', () => updatesIn(watcher).length === 1)
    expect(updatesIn(watcher)).toHaveLength(1)
    await until('the good update to be recorded', async () => (await server.text(docId)).startsWith('ok ') || (await server.text(docId)).endsWith('ok '))
  })
})

describe('QUIRE_COLLAB_FANOUT', () => {
  it('is durable fan-out unless relay is asked for, and refuses anything else naming the accepted values', () => {
    expect(keystrokePolicyFromEnvironment({})).toEqual({ fanOut: 'durable', appendWindowMs: 0 })
    expect(keystrokePolicyFromEnvironment({ QUIRE_COLLAB_FANOUT: 'relay' })).toEqual({ fanOut: 'relay', appendWindowMs: 20 })
    expect(keystrokePolicyFromEnvironment({ QUIRE_COLLAB_FANOUT: 'relay', QUIRE_COLLAB_APPEND_WINDOW_MS: '0' })).toEqual({ fanOut: 'relay', appendWindowMs: 0 })
    expect(() => keystrokePolicyFromEnvironment({ QUIRE_COLLAB_FANOUT: 'fast' })).toThrow(/durable or relay/)
    expect(() => keystrokePolicyFromEnvironment({ QUIRE_COLLAB_FANOUT: 'relay', QUIRE_COLLAB_APPEND_WINDOW_MS: '-5' })).toThrow(/0 to 1000/)
    expect(() => keystrokePolicyFromEnvironment({ QUIRE_COLLAB_FANOUT: 'relay', QUIRE_COLLAB_APPEND_WINDOW_MS: '2.5' })).toThrow(/whole number/)
  })
})

/** Sync-update frames (`0, 2, …`) among what a raw client received. */
function updatesIn(client: RawClient): Uint8Array[] {
  return client.received.filter((message) => message[0] === 0 && message[1] === 2)
}

function updateFrame(update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder()
  encoding.writeVarUint(encoder, 0)
  encoding.writeVarUint(encoder, 2)
  encoding.writeVarUint8Array(encoder, update)
  return encoding.toUint8Array(encoder)
}
