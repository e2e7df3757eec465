/**
 * Revocation reaches open connections (issue 11, finding 4): revoking an agent closes its `/collab` WebSockets at
 * once, with 4401 (so the stock client stops reconnecting), and no live edit reaches them afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { USER } from '../../core/events/actor.js'
import { startCollabServer, type CollabServer } from '../support/collabServer.js'
import { peer, until, type Peer } from '../support/collabPeers.js'
import { within } from './sessionsRig.js'

describe('revoking an agent ends its collaboration connections', () => {
  let server: CollabServer
  const peers: Peer[] = []
  const join = (docId: string, token: string): Peer => {
    const joined = peer(server.port, docId, { token })
    peers.push(joined)
    return joined
  }

  beforeAll(async () => {
    server = await startCollabServer()
  })
  afterAll(async () => {
    for (const each of peers) each.destroy()
    await server?.close()
  })

  it("the revoked agent's read-only socket is closed with 4401 at once and receives no further update; another agent's stays", async () => {
    const { agents } = server.quire.services
    const leaverToken = await agents.add('leaver', USER)
    const stayerToken = await agents.add('stayer', USER)
    const docId = await server.createDocument('before\n')
    const person = join(docId, server.token)
    const leaver = join(docId, leaverToken)
    const stayer = join(docId, stayerToken)
    await Promise.all([person.synced(), leaver.synced(), stayer.synced()])

    person.text.insert(person.text.length, 'live\n')
    await until('both agents to see the live edit', () => leaver.text.toString() === 'before\nlive\n' && stayer.text.toString() === 'before\nlive\n')
    let updatesAfterRevoke = 0
    const closed = new Promise<void>((resolve) => leaver.provider.once('connection-close', () => resolve()))

    // The person revokes through the console's Agents panel, as a person does.
    const revoked = await fetch(`http://127.0.0.1:${server.port}/console/api/panels/agents/leaver/revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}` },
    })
    expect(revoked.status).toBe(200)
    leaver.doc.on('update', () => updatesAfterRevoke++)
    await within(5_000, "the revoked agent's socket to close", closed)
    expect(leaver.closes[0]).toEqual({ code: 4401, reason: 'the token of agent leaver was revoked' })

    person.text.insert(person.text.length, 'after\n')
    await until('the other agent to see the next edit', () => stayer.text.toString() === 'before\nlive\nafter\n')
    expect(leaver.text.toString()).toBe('before\nlive\n')
    expect(updatesAfterRevoke).toBe(0)
    expect(stayer.closes).toHaveLength(0)
    // It does not come back: its token is refused, and the client stops retrying on 44xx.
    expect(leaver.provider.wsconnected).toBe(false)
    expect(leaver.closes.every((close) => close.code === 4401)).toBe(true)
  })
})
