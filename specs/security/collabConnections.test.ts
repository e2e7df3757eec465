/**
 * Collaboration connections are bounded per principal (issue 11, finding 10): an agent may hold
 * maxConnectionsPerAgent (16) `/collab` connections over all documents, the person's token
 * maxConnectionsPerPerson (256). One more is closed with 4429 and a reason naming the principal; other principals are
 * unaffected, and a closed connection gives its place back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_LIMITS } from '../../adapters/collab/limits.js'
import { USER } from '../../core/events/actor.js'
import { startCollabServer, type CollabServer } from '../support/collabServer.js'
import { rawClient, until, type RawClient } from '../support/collabPeers.js'
import { within } from './sessionsRig.js'

describe('collaboration connections per principal', () => {
  let server: CollabServer
  const raws: RawClient[] = []
  const connect = (docId: string, token: string): RawClient => {
    const client = rawClient(server.port, `/collab/${docId}?token=${token}`)
    raws.push(client)
    return client
  }
  /** True once the server has taken the connection (it opens with a SyncStep1), false when it closes it instead. */
  const admitted = (client: RawClient): Promise<boolean> =>
    within(10_000, 'the server to take or refuse the connection', Promise.race([
      until('a first message', () => client.received.length > 0).then(() => true),
      client.closed.then(() => false),
    ]))

  beforeAll(async () => {
    server = await startCollabServer({ maxConnectionsPerAgent: 3, maxConnectionsPerPerson: 4 })
  })
  afterAll(async () => {
    for (const each of raws) each.ws.terminate()
    await server?.close()
  })

  it('the defaults are 16 per agent and 256 for the person', () => {
    expect(DEFAULT_LIMITS.maxConnectionsPerAgent).toBe(16)
    expect(DEFAULT_LIMITS.maxConnectionsPerPerson).toBe(256)
  })

  it('an agent over its cap is closed with 4429 naming it; another agent and the person still connect; closing one frees a place', async () => {
    const { agents } = server.quire.services
    const greedy = await agents.add('greedy', USER)
    const modest = await agents.add('modest', USER)
    const docs = [await server.createDocument('a\n'), await server.createDocument('b\n')]
    // Over all documents: three connections across two.
    const held = [connect(docs[0]!, greedy), connect(docs[1]!, greedy), connect(docs[1]!, greedy)]
    for (const client of held) expect(await admitted(client)).toBe(true)

    const extra = connect(docs[0]!, greedy)
    expect(await admitted(extra)).toBe(false)
    expect(await extra.closed).toEqual({ code: 4429, reason: 'agent greedy already holds 3 collaboration connections, the most one principal may' })

    expect(await admitted(connect(docs[0]!, modest))).toBe(true)
    expect(await admitted(connect(docs[0]!, server.token))).toBe(true)

    held[0]!.ws.close()
    await held[0]!.closed
    let again: RawClient | undefined
    await until('a place to be free again', async () => {
      again = connect(docs[0]!, greedy)
      return admitted(again)
    })
    expect(again!.ws.readyState).toBe(again!.ws.OPEN)
  })

  it("the person's token has its own cap", async () => {
    const docId = await server.createDocument('p\n')
    const before = raws.filter((client) => client.ws.readyState === client.ws.OPEN && client.ws.url.includes(server.token)).length
    const mine: RawClient[] = []
    for (let index = before; index < 4; index++) mine.push(connect(docId, server.token))
    for (const client of mine) expect(await admitted(client)).toBe(true)
    const extra = connect(docId, server.token)
    expect(await admitted(extra)).toBe(false)
    expect(await extra.closed).toEqual({ code: 4429, reason: "the person's token already holds 4 collaboration connections, the most one principal may" })
  })
})
