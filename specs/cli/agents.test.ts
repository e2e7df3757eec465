import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { runCli, type CliResult } from '../support/cli.js'
import { launchDaemon } from '../support/mcpHarness.js'
import { useTempHomes } from '../support/tempHome.js'

/** `quire agent add | list | revoke`: the person's agent tokens from a shell, with or without a daemon running. */

const newHome = useTempHomes()

function ok(result: CliResult): string {
  expect({ code: result.code, stderr: result.stderr, timedOut: result.timedOut }).toEqual({ code: 0, stderr: '', timedOut: false })
  return result.stdout
}

const lines = (text: string): string[] => text.split('\n').filter((line) => line.length > 0)
const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex')

interface Listed {
  readonly name: string
  readonly addedAt: string
  readonly state: string
}

/** The agents of `quire agent list`, one line each; their open MCP sessions follow on indented lines, not parsed here. */
function parseList(text: string): Listed[] {
  return lines(text).filter((line) => !line.startsWith(' ')).map((line) => {
    const match = /^(\S+)\s+added (\S+)\s+(live|revoked)(?:\s+\d+ open MCP sessions?)?$/.exec(line)
    expect(match, line).not.toBeNull()
    return { name: match![1]!, addedAt: match![2]!, state: match![3]! }
  })
}

interface ListedSession {
  readonly agent: string
  readonly session: string
  readonly client: string
}

/** The open MCP sessions `quire agent list` shows under each agent: `  mcp-… opened … last request … CLIENT`. */
function parseSessions(text: string): ListedSession[] {
  const sessions: ListedSession[] = []
  let agent = ''
  for (const line of lines(text)) {
    if (!line.startsWith(' ')) {
      agent = line.split(/\s+/)[0]!
      continue
    }
    const match = /^ {2}(mcp-[0-9a-f]{8})\s+opened (\S+)\s+last request (\S+)\s+(.+)$/.exec(line)
    expect(match, line).not.toBeNull()
    sessions.push({ agent, session: match![1]!, client: match![4]! })
  }
  return sessions
}

describe('quire agent list and revoke, no daemon running', () => {
  it('lists names, when added and whether live, never a token; revoke turns one revoked and is recorded', async () => {
    const home = await newHome()
    expect(ok(await runCli(['agent', 'list'], { home }))).toBe('no agents (add one with `quire agent add NAME`)\n')
    const claude = ok(await runCli(['agent', 'add', 'claude'], { home })).trim()
    const codex = ok(await runCli(['agent', 'add', 'codex'], { home })).trim()

    const listed = ok(await runCli(['agent', 'list'], { home }))
    expect(parseList(listed).map(({ name, state }) => [name, state])).toEqual([['claude', 'live'], ['codex', 'live']])
    for (const { addedAt } of parseList(listed)) expect(new Date(addedAt).toISOString()).toBe(addedAt)
    for (const secret of [claude, codex, sha256(claude), sha256(codex)]) expect(listed).not.toContain(secret)

    expect(ok(await runCli(['agent', 'revoke', 'claude'], { home }))).toBe('claude: revoked\n')
    expect(parseList(ok(await runCli(['agent', 'list'], { home }))).map(({ name, state }) => [name, state])).toEqual([['claude', 'revoked'], ['codex', 'live']])
    const events = lines(ok(await runCli(['log', '--stream', 'agents', '--json'], { home }))).map((line) => JSON.parse(line) as { type: string; actor: { kind: string } })
    expect(events.map((event) => [event.type, event.actor.kind])).toEqual([['agent.added', 'user'], ['agent.added', 'user'], ['agent.revoked', 'user']])
  })

  it('refuses to revoke an unknown or already revoked agent (status 1, named), and a call without a name (usage, status 2)', async () => {
    const home = await newHome()
    ok(await runCli(['agent', 'add', 'claude'], { home }))
    ok(await runCli(['agent', 'revoke', 'claude'], { home }))
    for (const name of ['claude', 'nobody']) {
      const refused = await runCli(['agent', 'revoke', name], { home })
      expect({ code: refused.code, stdout: refused.stdout, stderr: refused.stderr }).toEqual({ code: 1, stdout: '', stderr: `quire: no agent named ${name}\n` })
    }
    for (const args of [['agent', 'revoke'], ['agent', 'list', 'extra'], ['agent', 'remove', 'claude'], ['agent', 'end-session']]) {
      const usage = await runCli(args, { home })
      expect(usage.code).toBe(2)
      expect(usage.stderr).toContain('agent add NAME | list | revoke NAME | end-session NAME [SESSION]')
    }
  })
})

describe('quire agent list and revoke through the running daemon', () => {
  it('revoke goes through the daemon: its MCP sessions on that token end at once, and list shows it revoked', async () => {
    const home = await newHome()
    const daemon = await launchDaemon({ home })
    try {
      const token = ok(await runCli(['agent', 'add', 'claude'], { home })).trim()
      const session = await daemon.connect(token)
      try {
        expect((await session.client.listTools()).tools.length).toBeGreaterThan(0)
        expect(parseList(ok(await runCli(['agent', 'list'], { home })))).toMatchObject([{ name: 'claude', state: 'live' }])

        expect(ok(await runCli(['agent', 'revoke', 'claude'], { home }))).toBe('claude: revoked\n')
        expect(parseList(ok(await runCli(['agent', 'list'], { home })))).toMatchObject([{ name: 'claude', state: 'revoked' }])
        // The daemon folded the revocation itself (the CLI could not have opened its locked directory): the token
        // no longer opens anything.
        await expect(session.client.listTools()).rejects.toThrow()
        const refused = await fetch(`${daemon.url}/mcp`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
        })
        expect(refused.status).toBe(401)
      } finally {
        await session.close()
      }
    } finally {
      await daemon.stop()
    }
  })
})

describe('quire agent list and end-session: the live MCP sessions of each agent (issue 24, item 4)', () => {
  it('list shows each agent\'s open sessions; end-session ends one by its id, or every one of the agent\'s', async () => {
    const home = await newHome()
    const daemon = await launchDaemon({ home })
    const opened: Awaited<ReturnType<typeof daemon.connect>>[] = []
    try {
      const claude = ok(await runCli(['agent', 'add', 'claude'], { home })).trim()
      const codex = ok(await runCli(['agent', 'add', 'codex'], { home })).trim()
      for (const token of [claude, claude, codex]) {
        const session = await daemon.connect(token)
        opened.push(session)
        expect((await session.client.listTools()).tools.length).toBeGreaterThan(0)
      }
      const listed = ok(await runCli(['agent', 'list'], { home }))
      expect(lines(listed).filter((line) => !line.startsWith(' ')).map((line) => line.split(/\s+added \S+\s+/))).toEqual([
        ['claude', 'live  2 open MCP sessions'],
        ['codex', 'live  1 open MCP session'],
      ])
      const sessions = parseSessions(listed)
      expect(sessions.map(({ agent, client }) => [agent, client])).toEqual([
        ['claude', 'quire-conformance 1.0.0'],
        ['claude', 'quire-conformance 1.0.0'],
        ['codex', 'quire-conformance 1.0.0'],
      ])

      // One session of claude's, by the id the list shows: that client is cut off, the others go on.
      const [first, second] = sessions
      expect(ok(await runCli(['agent', 'end-session', 'claude', first!.session], { home }))).toBe(`claude: ended ${first!.session}\n`)
      await expect(opened[0]!.client.listTools()).rejects.toThrow()
      expect((await opened[1]!.client.listTools()).tools.length).toBeGreaterThan(0)
      expect(parseSessions(ok(await runCli(['agent', 'list'], { home }))).map(({ session }) => session)).toEqual([second!.session, sessions[2]!.session])

      // A session that is not the agent's (or no longer open) is refused by name; so is an unknown agent.
      for (const [args, message] of [
        [['agent', 'end-session', 'claude', first!.session], `quire: agent claude has no open MCP session ${first!.session}\n`],
        [['agent', 'end-session', 'claude', sessions[2]!.session], `quire: agent claude has no open MCP session ${sessions[2]!.session}\n`],
        [['agent', 'end-session', 'nobody'], 'quire: no agent named nobody\n'],
      ] as const) {
        const refused = await runCli(args, { home })
        expect({ code: refused.code, stderr: refused.stderr }).toEqual({ code: 1, stderr: message })
      }

      // Without a session id: every session of the agent's.
      expect(ok(await runCli(['agent', 'end-session', 'claude'], { home }))).toBe(`claude: ended ${second!.session}\n`)
      expect(ok(await runCli(['agent', 'end-session', 'claude'], { home }))).toBe('claude: no open MCP sessions\n')
      expect(parseSessions(ok(await runCli(['agent', 'list'], { home }))).map(({ agent }) => agent)).toEqual(['codex'])
    } finally {
      for (const session of opened) await session.close()
      await daemon.stop()
    }
  }, 60_000)

  it('with no daemon running there are no sessions to list or end', async () => {
    const home = await newHome()
    ok(await runCli(['agent', 'add', 'claude'], { home }))
    expect(parseSessions(ok(await runCli(['agent', 'list'], { home })))).toEqual([])
    expect(ok(await runCli(['agent', 'end-session', 'claude'], { home }))).toBe('claude: no open MCP sessions\n')
  })
})
