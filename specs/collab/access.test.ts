import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setTimeout as sleep } from 'node:timers/promises'
import { USER } from '../../core/events/actor.js'
import { startCollabServer, type CollabServer } from '../support/collabServer.js'
import { firstClose, peer, rawClient, until, type Peer } from '../support/collabPeers.js'

/** Who may connect and how: the person read-write, agents and `readonly=1` read-only, strangers and other origins never. */
describe('collaboration endpoint access', () => {
  let server: CollabServer
  let agentToken: string
  const peers: Peer[] = []
  const join = (docId: string, token: string, params: Record<string, string> = {}): Peer => {
    const joined = peer(server.port, docId, { token, params })
    peers.push(joined)
    return joined
  }

  beforeAll(async () => {
    server = await startCollabServer()
    agentToken = await server.quire.services.agents.add('helper', USER)
  })
  afterAll(async () => {
    for (const each of peers) each.destroy()
    await server?.close()
  })

  it('refuses a missing or unknown token with 4401, and the client stops retrying', async () => {
    const docId = await server.createDocument('secret')
    const stranger = join(docId, 'not-a-token')
    expect((await firstClose(stranger)).code).toBe(4401)
    expect(stranger.text.toString()).toBe('')
    const missing = rawClient(server.port, `/collab/${docId}`)
    expect((await missing.closed).code).toBe(4401)
    await sleep(300)
    expect(stranger.closes).toHaveLength(1)
  })

  it('refuses an unknown document with 4404', async () => {
    expect((await firstClose(join('d-nothing-here', server.token))).code).toBe(4404)
    expect((await firstClose(join('..%2Fadmin', server.token))).code).toBe(4404)
  })

  it('refuses an upgrade from another origin or for another host before it happens (403)', async () => {
    const docId = await server.createDocument('x')
    const evil = rawClient(server.port, `/collab/${docId}?token=${server.token}`, { headers: { origin: 'http://evil.example' } })
    await expect(evil.opened).rejects.toThrow('403')
    const rebinding = rawClient(server.port, `/collab/${docId}?token=${server.token}`, { headers: { host: `attacker.example:${server.port}` } })
    await expect(rebinding.opened).rejects.toThrow('403')
    const same = rawClient(server.port, `/collab/${docId}?token=${server.token}`, { headers: { origin: `http://127.0.0.1:${server.port}` } })
    await same.opened
    same.ws.close()
  })

  it('lets an agent token sync and read, but never applies its edits', async () => {
    const docId = await server.createDocument('journal only\n')
    const person = join(docId, server.token)
    const agent = join(docId, agentToken)
    await Promise.all([person.synced(), agent.synced()])
    expect(agent.text.toString()).toBe('journal only\n')
    agent.text.insert(0, 'SNEAKY ')
    person.text.insert(person.text.length, 'typed\n')
    await until('the agent to see the person', () => agent.text.toString().endsWith('typed\n'))
    await sleep(200)
    expect(await server.text(docId)).toBe('journal only\ntyped\n')
    expect(person.text.toString()).toBe('journal only\ntyped\n')
    expect(agent.closes).toHaveLength(0)
  })

  it('makes a person connection read-only with readonly=1', async () => {
    const docId = await server.createDocument('look\n')
    const viewer = join(docId, server.token, { readonly: '1' })
    await viewer.synced()
    const revision = (await server.quire.services.engine.documents.get(docId))!.revision
    viewer.text.insert(0, 'touch ')
    await sleep(300)
    expect(await server.text(docId)).toBe('look\n')
    expect((await server.quire.services.engine.documents.get(docId))!.revision).toBe(revision)
  })

  it('labels a person connection by its name and records its edits as that peer', async () => {
    const docId = await server.createDocument('')
    const named = join(docId, server.token, { name: 'Laptop Console!' })
    await named.synced()
    named.text.insert(0, 'hi')
    await until('the edit to land', async () => (await server.text(docId)) === 'hi')
    const { store } = server.quire.services.engine
    const actors: unknown[] = []
    for await (const event of store.readStream(`doc:${docId}`)) if (event.type === 'document.changed') actors.push(event.actor)
    expect(actors).toEqual([{ kind: 'peer', peer: expect.stringMatching(/^Laptop-Console-\d+$/) }])
  })

  it('lists tabs only for the person token', async () => {
    const agent = await fetch(`http://127.0.0.1:${server.port}/collab`, { headers: { authorization: `Bearer ${agentToken}` } })
    expect(agent.status).toBe(401)
    const person = await fetch(`http://127.0.0.1:${server.port}/collab?token=${server.token}`)
    expect(person.status).toBe(200)
  })
})
