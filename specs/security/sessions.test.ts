/**
 * MCP sessions over Streamable HTTP are bounded per principal, expire when idle, and end when their agent's token is
 * revoked (issue 11, finding 3): one client leaking sessions locks out only itself, never the person or another
 * agent, and a revoked agent keeps nothing open.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterEach, describe, expect, it } from 'vitest'
import { USER } from '../../core/events/actor.js'
import { until } from '../support/collabPeers.js'
import { deleteSession, initialize, listTools, openStream, startSecurityServer, within, type SecurityServer } from './sessionsRig.js'

describe('MCP sessions per principal', () => {
  const servers: SecurityServer[] = []
  const start = async (options: Parameters<typeof startSecurityServer>[0] = {}) => {
    const server = await startSecurityServer(options)
    servers.push(server)
    return server
  }
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close()
  })

  it('an agent that floods sessions is refused with a clear error of its own; other agents and the person still initialize', async () => {
    const server = await start()
    const { agents } = server.quire.services
    const flooder = await agents.add('flooder', USER)
    const other = await agents.add('other', USER)

    const answers = []
    for (let attempt = 0; attempt < 130; attempt++) answers.push(await initialize(server.port, flooder))
    const opened = answers.filter((each) => each.status === 200)
    const refused = answers.filter((each) => each.status !== 200)
    expect(opened).toHaveLength(16)
    expect(refused).toHaveLength(114)
    for (const each of refused) {
      expect(each.status).toBe(429)
      expect(each.message?.error?.message).toMatch(/agent "flooder" already holds 16 open MCP sessions/)
    }

    const second = await initialize(server.port, other)
    expect(second.status).toBe(200)
    expect((await listTools(server.port, other, second.sessionId!)).status).toBe(200)
    const person = await initialize(server.port, server.token)
    expect(person.status).toBe(200)

    // Ending one of its own sessions gives the flooder its place back.
    expect(await deleteSession(server.port, flooder, opened[0]!.sessionId!)).toBe(200)
    expect((await initialize(server.port, flooder)).status).toBe(200)
    expect((await initialize(server.port, flooder)).status).toBe(429)
  })

  it("the person's token has its own cap", async () => {
    const server = await start({ mcpSessions: { perPerson: 3 } })
    const agent = await server.quire.services.agents.add('helper', USER)
    for (let index = 0; index < 3; index++) expect((await initialize(server.port, server.token)).status).toBe(200)
    const refused = await initialize(server.port, server.token)
    expect(refused.status).toBe(429)
    expect(refused.message?.error?.message).toMatch(/the person's token already holds 3 open MCP sessions/)
    expect((await initialize(server.port, agent)).status).toBe(200)
  })

  it('a session with nothing under way expires after the idle window; one holding an open stream does not', async () => {
    const server = await start({ mcpSessions: { idleMs: 1_500, perAgent: 2 } })
    const agent = await server.quire.services.agents.add('sleepy', USER)
    const listening = await initialize(server.port, agent)
    const stream = await openStream(server.port, agent, listening.sessionId!)
    expect(stream.status).toBe(200)
    const idle = await initialize(server.port, agent)
    expect(idle.status).toBe(200)
    // Both places are taken until the idle one expires.
    expect((await initialize(server.port, agent)).status).toBe(429)

    await until('the idle session to expire', () => server.http.sessions.openFor('sleepy') === 1)
    const gone = await listTools(server.port, agent, idle.sessionId!)
    expect(gone.status).toBe(404)
    expect(gone.message?.error?.message).toBe('Session not found')
    // The listening session went idle first, but its stream is a request under way.
    expect((await listTools(server.port, agent, listening.sessionId!)).status).toBe(200)
    const third = await initialize(server.port, agent)
    expect(third.status).toBe(200)
    expect(await deleteSession(server.port, agent, third.sessionId!)).toBe(200)

    await stream.cancel()
    await until('the listening session to expire once its stream ended', () => server.http.sessions.openFor('sleepy') === 0)
    expect((await listTools(server.port, agent, listening.sessionId!)).status).toBe(404)
  })

  it("an SDK client's session outlives the idle window: the stream it keeps open is a request under way", async () => {
    const server = await start({ mcpSessions: { idleMs: 1_000 } })
    const agent = await server.quire.services.agents.add('steady', USER)
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.port}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${agent}` } },
    })
    const client = new Client({ name: 'quire-security', version: '1.0.0' })
    await client.connect(transport)
    try {
      // A bare session opened after the client's, with no stream: once it has expired, the client's was idle longer.
      const bare = await initialize(server.port, agent)
      await until('the bare session to expire', () => server.http.sessions.openFor('steady') === 1)
      expect((await listTools(server.port, agent, bare.sessionId!)).status).toBe(404)
      expect((await client.listTools()).tools.length).toBeGreaterThan(0)
    } finally {
      await client.close()
    }
  })

  it("a `quire mcp` bridge's session ends soon after its last stream closes (the bridge was killed); a plain client's does not", async () => {
    // Kept in a variable: the grace is a limit of its own besides the three every server has.
    const limits = { idleMs: 60_000, bridgeGraceMs: 300 }
    const server = await start({ mcpSessions: limits })
    const agent = await server.quire.services.agents.add('bridged', USER)
    const bridge = { 'quire-bridge-pid': '4242' }
    const bridged = await initialize(server.port, agent, bridge)
    const plain = await initialize(server.port, agent)
    // Before its stream first opens, a bridge's session lives by the idle window (its client may be slow to start).
    await new Promise((resolve) => setTimeout(resolve, 900))
    expect(server.http.sessions.openFor('bridged')).toBe(2)
    const bridgedStream = await openStream(server.port, agent, bridged.sessionId!)
    const plainStream = await openStream(server.port, agent, plain.sessionId!)
    // While its stream is open, the bridge is alive: its session stays however long that lasts.
    await new Promise((resolve) => setTimeout(resolve, 900))
    expect((await listTools(server.port, agent, bridged.sessionId!, bridge)).status).toBe(200)

    // Both clients drop their streams, as a killed process's connections close.
    await bridgedStream.cancel()
    await plainStream.cancel()
    await until("the bridge's session to end", () => server.http.sessions.openFor('bridged') === 1)
    expect((await listTools(server.port, agent, bridged.sessionId!, bridge)).status).toBe(404)
    // The spec lets a client close its stream at any time: a plain client's session waits for the idle window.
    expect((await listTools(server.port, agent, plain.sessionId!)).status).toBe(200)
  })

  it('the person sees every agent\'s open sessions and ends one, through /admin and the console API', async () => {
    const server = await start()
    const { agents } = server.quire.services
    const claude = await agents.add('claude', USER)
    await agents.add('idle', USER)
    const first = await initialize(server.port, claude, { 'quire-bridge-pid': '4242' })
    const second = await initialize(server.port, claude)
    const person = { authorization: `Bearer ${server.token}` }
    type Listed = { name: string; sessions: { session: string; client: string | null; bridgePid: number | null; openedAt: number; lastRequestAt: number }[] }
    const listed = async (path: string) => ((await (await fetch(`http://127.0.0.1:${server.port}${path}`, { headers: person })).json()) as { agents: Listed[] }).agents

    for (const path of ['/admin/agents', '/console/api/panels/agents']) {
      const byName = Object.fromEntries((await listed(path)).map((agent) => [agent.name, agent.sessions]))
      expect(byName.idle, path).toEqual([])
      expect(byName.claude?.map(({ client, bridgePid }) => [client, bridgePid]), path).toEqual([['quire-security 1.0.0', 4242], ['quire-security 1.0.0', null]])
      for (const session of byName.claude ?? []) {
        expect(session.session).toMatch(/^mcp-[0-9a-f]{8}$/)
        expect(session.lastRequestAt).toBeGreaterThanOrEqual(session.openedAt)
      }
    }
    const [one, two] = (await listed('/console/api/panels/agents')).find((agent) => agent.name === 'claude')!.sessions
    // The console's End button: that session answers 404 from now on; the other goes on.
    const ended = await fetch(`http://127.0.0.1:${server.port}/console/api/panels/agents/claude/sessions/${one!.session}/end`, { method: 'POST', headers: person })
    expect(ended.status).toBe(200)
    expect(((await ended.json()) as { agents: Listed[] }).agents.find((agent) => agent.name === 'claude')!.sessions.map(({ session }) => session)).toEqual([two!.session])
    expect((await listTools(server.port, claude, first.sessionId!)).status).toBe(404)
    expect((await listTools(server.port, claude, second.sessionId!)).status).toBe(200)
    const again = await fetch(`http://127.0.0.1:${server.port}/console/api/panels/agents/claude/sessions/${one!.session}/end`, { method: 'POST', headers: person })
    expect(again.status).toBe(404)

    // `quire agent end-session claude`: every session of the agent's; an agent's token cannot reach it.
    const viaAdmin = await fetch(`http://127.0.0.1:${server.port}/admin/agents/claude/end-session`, { method: 'POST', headers: { ...person, 'content-type': 'application/json' }, body: '{}' })
    expect(await viaAdmin.json()).toEqual({ name: 'claude', ended: [two!.session] })
    expect((await listTools(server.port, claude, second.sessionId!)).status).toBe(404)
    const byAgent = await fetch(`http://127.0.0.1:${server.port}/admin/agents/claude/end-session`, { method: 'POST', headers: { authorization: `Bearer ${claude}` } })
    expect(byAgent.status).toBe(401)
  })

  it("revoking an agent ends its sessions at once: streams close, ids answer 404, the token 401; others' sessions stay", async () => {
    const server = await start()
    const { agents } = server.quire.services
    const token = await agents.add('leaver', USER)
    const stayer = await agents.add('stayer', USER)
    const first = await initialize(server.port, token)
    const second = await initialize(server.port, token)
    const kept = await initialize(server.port, stayer)
    const person = await initialize(server.port, server.token)
    const stream = await openStream(server.port, token, first.sessionId!)
    expect(stream.status).toBe(200)
    expect(server.http.sessions.size).toBe(4)

    await agents.revoke('leaver', USER)
    expect(server.http.sessions.size).toBe(2)
    await within(5_000, "the revoked agent's open stream to end", stream.ended)
    const refused = await listTools(server.port, token, second.sessionId!)
    expect(refused.status).toBe(401)

    // A new token under the same name is a new credential: it cannot pick up what the old one had open.
    const renewed = await agents.add('leaver', USER)
    expect((await listTools(server.port, renewed, first.sessionId!)).status).toBe(404)
    expect((await listTools(server.port, renewed, second.sessionId!)).status).toBe(404)
    expect((await initialize(server.port, renewed)).status).toBe(200)

    expect((await listTools(server.port, stayer, kept.sessionId!)).status).toBe(200)
    expect((await listTools(server.port, server.token, person.sessionId!)).status).toBe(200)
  })
})
