import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PRESENCE_FIELD, type EditorPresenceState } from '../../core/presence/editorPresence.js'
import { startCollabServer, type CollabServer } from '../support/collabServer.js'
import { peer, until, type Peer } from '../support/collabPeers.js'

/** Awareness: relayed between the peers of a document, and read into the presence registry the MCP surface uses. */
describe('collaboration awareness and presence', () => {
  let server: CollabServer
  const peers: Peer[] = []
  const join = (docId: string, params: Record<string, string> = {}): Peer => {
    const joined = peer(server.port, docId, { token: server.token, params })
    peers.push(joined)
    return joined
  }
  const editor = (overrides: Partial<EditorPresenceState> = {}): EditorPresenceState => ({
    window: 'main', tabId: 't-1', focused: true, mode: 'source', composing: false, compositionEndedAt: null, selection: null, ...overrides,
  })

  beforeAll(async () => {
    server = await startCollabServer()
  })
  afterAll(async () => {
    for (const each of peers) each.destroy()
    await server?.close()
  })

  it("puts a peer's editor presence in the registry, updates it, and drops it when the peer leaves", async () => {
    const docId = await server.createDocument('text\n')
    const { presence } = server.quire.services
    const console1 = join(docId, { name: 'browser' })
    await console1.synced()
    console1.provider.awareness.setLocalStateField(PRESENCE_FIELD, editor())
    await until('the presence to appear', () => presence.forDocument(docId).length === 1)
    const [seen] = presence.forDocument(docId)
    expect(seen).toMatchObject({ ...editor(), docId, clientId: console1.doc.clientID, connection: expect.stringMatching(/^browser-\d+$/) })
    expect(presence.focused()?.clientId).toBe(console1.doc.clientID)

    console1.provider.awareness.setLocalStateField(PRESENCE_FIELD, editor({ composing: true, focused: false }))
    await until('the update', () => presence.forDocument(docId)[0]?.composing === true)
    expect(presence.focused()).toBeUndefined()

    console1.provider.disconnect()
    await until('the presence to go', () => presence.forDocument(docId).length === 0)
  })

  it('relays awareness to the other peers, ignores states without presence, and announces departures', async () => {
    const docId = await server.createDocument('')
    const { presence } = server.quire.services
    const a = join(docId)
    const b = join(docId)
    await Promise.all([a.synced(), b.synced()])
    a.provider.awareness.setLocalStateField('user', { name: 'Ada' })
    await until('b to see a', () => (b.provider.awareness.getStates().get(a.doc.clientID) as { user?: { name: string } } | undefined)?.user?.name === 'Ada')
    expect(presence.forDocument(docId)).toHaveLength(0)

    // A peer that joins later gets the current states at once.
    const c = join(docId)
    await c.synced()
    await until('c to see a', () => c.provider.awareness.getStates().has(a.doc.clientID))

    // A malformed presence is not a presence.
    b.provider.awareness.setLocalStateField(PRESENCE_FIELD, { window: 'main' })
    b.provider.awareness.setLocalStateField('x', 1)
    await until('a to see b', () => a.provider.awareness.getStates().get(b.doc.clientID)?.x === 1)
    expect(presence.forDocument(docId)).toHaveLength(0)

    a.provider.disconnect()
    await until('the others to see a leave', () => !b.provider.awareness.getStates().has(a.doc.clientID) && !c.provider.awareness.getStates().has(a.doc.clientID))
  })

  // A read-only peer's awareness feeds neither presence nor the other peers: specs/security/presenceReadOnly.test.ts.
})
