import { parseArgs } from 'node:util'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { randomBytes } from 'node:crypto'
import { USER } from '../../../core/events/actor.js'
import { QuireError } from '../../../core/errors.js'
import { openWorkspaceAsPerson } from '../../../core/workspace/commands.js'
import { startHttpServer } from '../../http/daemon.js'
import { readPortFile } from '../../http/portFile.js'
import { openQuire } from '../../host/quire.js'
import { createMcpServer } from '../../mcp/server.js'
import { findOwner, type OwnerClient } from '../owner.js'
import { DataDirLockedError } from '../../../core/log/errors.js'
import type { Agent, AgentsState } from '../../../core/agents/agentsState.js'
import type { FoldedStream } from '../../../core/streams/foldedStream.js'

/**
 * `quire mcp`: what an AI client launches over stdio. When a daemon owns the data directory it attaches to it (a
 * transport-level bridge between stdio and the daemon's Streamable HTTP); otherwise it runs the core embedded and
 * serves the same loopback HTTP endpoints itself, so the person's CLI and other clients still reach it.
 * `QUIRE_TOKEN` (from the client's MCP configuration) names the agent; without it the connection is anonymous.
 * Nothing but protocol goes to stdout.
 */
export async function mcpCommand(home: string, args: string[], log: (line: string) => void): Promise<number> {
  const { values } = parseArgs({ args, options: { workspace: { type: 'string', multiple: true } } })
  const agentToken = process.env.QUIRE_TOKEN || undefined
  const attach = async (owner: OwnerClient) => {
    for (const folder of values.workspace ?? []) await owner.request('POST', '/admin/workspaces', { path: folder })
    const portFile = await readPortFile(home)
    return bridge(new URL('/mcp', owner.url), agentToken ?? portFile!.token, log)
  }
  const owner = await findOwner(home)
  if (owner) return attach(owner)
  let quire
  try {
    quire = await openQuire(home)
  } catch (error) {
    // Another `quire mcp` (an AI client starting two sessions at once) took the directory a moment ago and is still
    // starting its HTTP endpoint: attach to it once it answers.
    if (!(error instanceof DataDirLockedError)) throw error
    const late = await waitForOwner(home, 5_000)
    if (!late) throw error
    return attach(late)
  }
  try {
    const { services } = quire
    const agent = agentToken === undefined ? undefined : services.agents.authenticate(agentToken)
    if (agentToken !== undefined && !agent) {
      throw new QuireError('UNAUTHORIZED', 'QUIRE_TOKEN is not a live agent token (create one with `quire agent add NAME`)')
    }
    for (const folder of values.workspace ?? []) await openWorkspaceAsPerson(services.engine.store, services.engine.views.workspace, folder, USER)
    const http = await startHttpServer(services)
    const connection = `stdio-${randomBytes(4).toString('hex')}`
    const principal = agent?.name ?? null
    const server = createMcpServer({
      services,
      caller: { actor: { kind: 'mcp', principal: principal ?? 'anonymous', connection }, connection, principal },
    })
    const transport = new StdioServerTransport()
    const closed = Promise.race([untilClosed(transport), stdinEnded(), ...(agent ? [untilRevoked(services.engine.views.agents, agent, log)] : [])])
    await server.connect(transport)
    log(`quire mcp: serving ${home} embedded (HTTP for other clients at ${http.url})`)
    await closed
    await server.close()
    await http.close()
  } finally {
    await quire.close()
  }
  return 0
}

/** Relays JSON-RPC messages both ways between this process's stdio and the daemon's `/mcp`, until either closes. */
async function bridge(url: URL, token: string, log: (line: string) => void): Promise<number> {
  const stdio = new StdioServerTransport()
  const http = new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } })
  let sessionEnded: () => void = () => {}
  const ended = new Promise<void>((resolve) => (sessionEnded = resolve))
  const closed = Promise.race([untilClosed(stdio), untilClosed(http), stdinEnded(), ended])
  stdio.onmessage = (message) => {
    http.send(message).catch((error: unknown) => {
      // The daemon ended the session (its token was revoked, or it expired unused) or no longer takes the token:
      // nothing sent on it will be answered, so the bridge ends and the AI client sees its server go away.
      if (error instanceof StreamableHTTPError && (error.code === 401 || error.code === 403 || error.code === 404)) {
        log(`quire mcp: the daemon ended this MCP session (HTTP ${error.code}: revoked token or expired session); exiting`)
        sessionEnded()
        return
      }
      log(`quire mcp: the daemon did not take a message: ${(error as Error).message}`)
    })
  }
  http.onmessage = (message) => {
    void stdio.send(message)
  }
  http.onerror = (error) => log(`quire mcp: ${error.message}`)
  await http.start()
  await stdio.start()
  log(`quire mcp: attached to the daemon at ${url.origin}`)
  await closed
  await Promise.allSettled([http.close(), stdio.close()])
  return 0
}

/** Resolves when `agent`'s token stops being live (revoked, or replaced by a new token under its name). */
function untilRevoked(agents: FoldedStream<AgentsState>, agent: Agent, log: (line: string) => void): Promise<void> {
  return new Promise((resolve) => {
    const stop = agents.onChange((state) => {
      const live = state.get(agent.name)
      if (live && !live.revoked && live.tokenSha256 === agent.tokenSha256) return
      stop()
      log(`quire mcp: the token of agent ${agent.name} was revoked; ending the session`)
      resolve()
    })
  })
}

function untilClosed(transport: { onclose?: (() => void) | undefined }): Promise<void> {
  return new Promise((resolve) => {
    const previous = transport.onclose
    transport.onclose = () => {
      previous?.()
      resolve()
    }
  })
}

/** The AI client went away: stdin reached its end. The SDK's stdio transport does not notice this by itself. */
function stdinEnded(): Promise<void> {
  return new Promise((resolve) => {
    process.stdin.once('end', resolve)
    process.stdin.once('close', resolve)
  })
}

async function waitForOwner(home: string, ms: number): Promise<OwnerClient | undefined> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    const owner = await findOwner(home)
    if (owner) return owner
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return undefined
}
