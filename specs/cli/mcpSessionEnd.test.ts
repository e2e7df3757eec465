/**
 * `quire mcp` attached to a daemon ends its MCP session on the daemon when its AI client goes away (issue 24, item 4):
 * stdin at its end, SIGTERM, SIGHUP, its parent process killed, and — where it can run no code — SIGKILL of the bridge
 * itself (the daemon notices the bridge's connection close). One agent can therefore launch it any number of times.
 * Real `quire serve` and real `quire mcp` processes, driven by the MCP SDK's stdio client (spawns the compiled CLI).
 */
import { readFile } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'
import { CLI, inheritedEnv, launchDaemon, type Daemon } from '../support/mcpHarness.js'

/** The environment of an AI client's `quire mcp`: this process's, with the agent's token and no other data directory. */
const clientEnv = (token: string): Record<string, string> => ({ ...inheritedEnv(), QUIRE_TOKEN: token })

/**
 * A launcher between the AI client and `quire mcp` (as `npx` or a shell is): it passes its stdio on, says the bridge's
 * pid on stderr, and stays until killed. Killed, it leaves the bridge's stdin open (the client still holds the pipe).
 */
const LAUNCHER = `
const { spawn } = require('node:child_process')
const bridge = spawn(process.execPath, [process.argv[1], '--home', process.argv[2], 'mcp'], { stdio: 'inherit' })
process.stderr.write('bridge pid ' + bridge.pid + '\\n')
setInterval(() => {}, 60000)
`

interface Launched {
  readonly client: Client
  readonly transport: StdioClientTransport
  /** The `quire mcp` process's pid. */
  readonly bridgePid: number
  stderr(): string
}

async function launch(daemon: Daemon, token: string, via: 'direct' | 'launcher' = 'direct'): Promise<Launched> {
  const args = via === 'direct' ? [CLI, '--home', daemon.home, 'mcp'] : ['-e', LAUNCHER, CLI, daemon.home]
  const transport = new StdioClientTransport({ command: process.execPath, args, env: clientEnv(token), stderr: 'pipe' })
  let stderr = ''
  transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const client = new Client({ name: 'claude-code', version: '9.9.9' })
  await client.connect(transport)
  const bridgePid = via === 'direct' ? transport.pid! : Number(/bridge pid (\d+)/.exec(stderr)![1])
  return { client, transport, bridgePid, stderr: () => stderr }
}

/** Calls `session.get_state` through the client, as an assistant's first call is. */
async function callATool(client: Client): Promise<void> {
  const result = (await client.callTool({ name: 'session', arguments: { action: 'get_state' } })) as CallToolResult
  expect(result.isError ?? false).toBe(false)
}

/** Whether `pid` is gone (exited; a zombie waiting for its reaper counts as gone). */
async function gone(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0)
  } catch {
    return true
  }
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')
  return / Z /.test(stat)
}

async function until(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await sleep(50)
  }
}

interface ListedSession {
  readonly session: string
}

/** The daemon's open MCP sessions of agent `name`, as `GET /admin/agents` (what `quire agent list` shows) lists them. */
async function sessionsOf(daemon: Daemon, name: string): Promise<readonly ListedSession[]> {
  const response = await fetch(`${daemon.url}/admin/agents`, { headers: { authorization: `Bearer ${daemon.token}` } })
  const body = (await response.json()) as { agents: { name: string; sessions?: ListedSession[] }[] }
  const agent = body.agents.find((each) => each.name === name)
  if (!agent?.sessions) throw new Error(`GET /admin/agents lists no sessions for ${name}`)
  return agent.sessions
}

describe('quire mcp ends its daemon session when its client goes away', () => {
  let daemon: Daemon
  /** The agent of the 50 launches, and the one of each way to end (a leak in one must not refuse the other). */
  let token: string
  let endingToken: string

  beforeAll(async () => {
    daemon = await launchDaemon()
    const add = async (name: string) => {
      const added = await runCli(['agent', 'add', name], { home: daemon.home })
      expect(added.code, added.stderr).toBe(0)
      return added.stdout.trim()
    }
    token = await add('claude')
    endingToken = await add('codex')
  })
  afterAll(async () => {
    await daemon?.stop()
  })

  it('50 launches in a row by one agent, each calling a tool and exiting, all succeed', async () => {
    for (let launchNumber = 1; launchNumber <= 50; launchNumber++) {
      const launched = await launch(daemon, token).catch((error: Error) => {
        throw new Error(`launch ${launchNumber}: ${error.message}`)
      })
      await callATool(launched.client)
      await launched.client.close()
      await until(`launch ${launchNumber}'s quire mcp to exit`, () => gone(launched.bridgePid))
    }
    expect(await sessionsOf(daemon, 'claude')).toEqual([])
  }, 600_000)

  const endings: ReadonlyArray<readonly [string, 'direct' | 'launcher', (launched: Launched) => Promise<void>]> = [
    ['its stdin reaches its end (the client closes)', 'direct', (launched) => launched.client.close()],
    ['SIGTERM', 'direct', async (launched) => void process.kill(launched.bridgePid, 'SIGTERM')],
    ['SIGHUP', 'direct', async (launched) => void process.kill(launched.bridgePid, 'SIGHUP')],
    ['its parent is killed (stdin stays open)', 'launcher', async (launched) => void process.kill(launched.transport.pid!, 'SIGKILL')],
  ]
  for (const [ending, via, end] of endings) {
    it(`${ending}: quire mcp ends its session before it exits`, async () => {
      const launched = await launch(daemon, endingToken, via)
      try {
        await callATool(launched.client)
        expect(await sessionsOf(daemon, 'codex')).toHaveLength(1)
        await end(launched)
        await until('quire mcp to exit', () => gone(launched.bridgePid))
        expect(await sessionsOf(daemon, 'codex')).toEqual([])
        expect(launched.stderr()).not.toMatch(/unexpected error|SSE stream/)
      } finally {
        await launched.client.close().catch(() => {})
        if (!(await gone(launched.bridgePid))) process.kill(launched.bridgePid, 'SIGKILL')
      }
    }, 60_000)
  }

  it('SIGKILL of quire mcp itself: the daemon notices its connection close and ends the session', async () => {
    const launched = await launch(daemon, endingToken)
    try {
      await callATool(launched.client)
      expect(await sessionsOf(daemon, 'codex')).toHaveLength(1)
      process.kill(launched.bridgePid, 'SIGKILL')
      await until('quire mcp to exit', () => gone(launched.bridgePid))
      await until('the daemon to end the killed bridge\u2019s session', async () => (await sessionsOf(daemon, 'codex')).length === 0, 30_000)
    } finally {
      await launched.client.close().catch(() => {})
    }
  }, 60_000)

  it('the person ends the session (quire agent end-session): the next call is answered with why, and quire mcp exits', async () => {
    const launched = await launch(daemon, endingToken)
    try {
      await callATool(launched.client)
      const [listed] = await sessionsOf(daemon, 'codex')
      const ended = await runCli(['agent', 'end-session', 'codex', listed!.session], { home: daemon.home })
      expect(ended.stdout).toBe(`codex: ended ${listed!.session}\n`)
      await expect(launched.client.callTool({ name: 'session', arguments: { action: 'get_state' } })).rejects.toThrow(/the person ended it/)
      await until('quire mcp to exit', () => gone(launched.bridgePid))
      // Said once, without the stream's own failures to reopen.
      expect(launched.stderr()).toBe(
        `quire mcp: attached to the daemon at ${daemon.url}\nquire mcp: the daemon no longer has this MCP session (the person ended it, ` +
          'it expired unused, or the daemon restarted): start `quire mcp` again; exiting\n',
      )
    } finally {
      await launched.client.close().catch(() => {})
    }
  }, 60_000)
})
