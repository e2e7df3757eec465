import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { isJSONRPCRequest, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js'
import { randomBytes } from 'node:crypto'
import { USER } from '../../../core/events/actor.js'
import { openWorkspaceAsPerson } from '../../../core/workspace/commands.js'
import { startHttpServer } from '../../http/daemon.js'
import { readPortFile } from '../../http/portFile.js'
import { openQuire } from '../../host/quire.js'
import { createMcpServer } from '../../mcp/server.js'
import { oversizedAnswer, oversizedMessageText, type OversizedMessage } from '../../mcp/messageLimit.js'
import { BoundedStdioServerTransport } from '../../mcp/stdioTransport.js'
import { DEFAULT_SETTINGS } from '../../../core/settings/events.js'
import { findOwner, type OwnerClient } from '../owner.js'
import { DataDirLockedError } from '../../../core/log/errors.js'
import type { Agent, AgentsState } from '../../../core/agents/agentsState.js'
import type { FoldedStream } from '../../../core/streams/foldedStream.js'

/**
 * `quire mcp`: what an AI client launches over stdio. When a daemon owns the data directory it attaches to it (a
 * transport-level bridge between stdio and the daemon's Streamable HTTP); otherwise it runs the core embedded and
 * serves the same loopback HTTP endpoints itself, so the person's CLI and other clients still reach it.
 * `QUIRE_TOKEN` (from the client's MCP configuration) names the agent; without it the connection is anonymous. A
 * token that is not live (unknown, or revoked) gets the client's `initialize` answered with an error saying so, and
 * the process exits with status 1. A message over the setting `mcpMessageLimitBytes` is answered with an error
 * naming the limit; the connection goes on. Nothing but protocol goes to stdout.
 */
export async function mcpCommand(home: string, args: string[], log: (line: string) => void): Promise<number> {
  const { values } = parseArgs({ args, options: { workspace: { type: 'string', multiple: true } } })
  const agentToken = process.env.QUIRE_TOKEN || undefined
  const attach = async (owner: OwnerClient) => {
    for (const folder of values.workspace ?? []) await owner.request('POST', '/admin/workspaces', { path: resolve(folder) })
    const portFile = await readPortFile(home)
    return bridge(new URL('/mcp', owner.url), agentToken ?? portFile!.token, owner, log)
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
  let refused = false
  let revoked = false
  try {
    const { services } = quire
    const agent = agentToken === undefined ? undefined : services.agents.authenticate(agentToken)
    // The data directory is let go first (the finally below), so the person's commands work while the client reads
    // the refusal.
    refused = agentToken !== undefined && !agent
    if (refused) return 1
    for (const folder of values.workspace ?? []) await openWorkspaceAsPerson(services.engine.store, services.engine.views.workspace, resolve(folder), USER)
    const http = await startHttpServer(services)
    const connection = `stdio-${randomBytes(4).toString('hex')}`
    const principal = agent?.name ?? null
    const server = createMcpServer({
      services,
      caller: { actor: { kind: 'mcp', principal: principal ?? 'anonymous', connection }, connection, principal },
    })
    const transport: BoundedStdioServerTransport = new BoundedStdioServerTransport({
      limit: () => services.settings.state.mcpMessageLimitBytes,
      onOversized: (message, limit) => void answerOversized(transport, message, limit, services.settings.state.mcpMessageLimitBytes, log),
    })
    const revocation = agent ? [untilRevoked(services.engine.views.agents, agent, log).then(() => (revoked = true))] : []
    const closed = Promise.race([untilClosed(transport), stdinEnded(), ...revocation])
    await server.connect(transport)
    log(`quire mcp: serving ${home} embedded (HTTP for other clients at ${http.url})`)
    await closed
    await server.close()
    await http.close()
  } finally {
    await quire.close()
    if (refused) {
      log(`quire mcp: ${BAD_TOKEN}`)
      await answerFirstRequest((id) => unauthorizedAnswer(id, BAD_TOKEN))
    }
  }
  // A token revoked while in use is a token failure too: the client's launcher sees it in the status.
  return revoked ? 1 : 0
}

const BAD_TOKEN =
  'QUIRE_TOKEN is not a live agent token (unknown, or revoked): the person creates one with `quire agent add NAME` ' +
  "(it prints the token once) and sets it as QUIRE_TOKEN in this client's MCP configuration"

/** JSON-RPC's implementation-defined server error: the request was refused for its credentials. */
const UNAUTHORIZED_CODE = -32000

function unauthorizedAnswer(id: RequestId, message: string): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code: UNAUTHORIZED_CODE, message, data: { error: 'UNAUTHORIZED' } } }
}

/**
 * Answers the client's first request (its `initialize`) with `answer`, so the client shows why instead of waiting,
 * then returns; also returns when the client closes stdin first.
 */
async function answerFirstRequest(answer: (id: RequestId) => JSONRPCMessage): Promise<void> {
  let answered: () => void = () => {}
  const done = new Promise<void>((resolve) => (answered = resolve))
  const transport = new BoundedStdioServerTransport({
    limit: () => DEFAULT_SETTINGS.mcpMessageLimitBytes,
    onOversized: (message) => {
      if (message.id !== undefined && message.method !== undefined) void transport.send(answer(message.id)).then(answered)
    },
  })
  transport.onmessage = (message) => {
    if (isJSONRPCRequest(message)) void transport.send(answer(message.id)).then(answered)
  }
  await transport.start()
  await Promise.race([done, stdinEnded()])
  await transport.close()
}

/** Answers a message that was over the limit (it was never read whole), and says so on stderr. */
async function answerOversized(
  transport: BoundedStdioServerTransport,
  message: OversizedMessage,
  limitWhenReceived: number,
  limitNow: number,
  log: (line: string) => void,
): Promise<void> {
  const what = message.method === undefined ? 'a message' : `a ${message.method} request${message.id === undefined ? '' : ` (id ${JSON.stringify(message.id)})`}`
  const answer = oversizedAnswer(message, oversizedMessageText(message.bytes, limitNow, limitWhenReceived))
  log(
    `quire mcp: ${what} of ${message.bytes} bytes is over the MCP message limit of ${limitWhenReceived} bytes; ` +
      (answer ? 'answered with an error' : 'dropped (no request id to answer)'),
  )
  if (answer) await transport.send(answer)
}

/**
 * Relays JSON-RPC messages both ways between this process's stdio and the daemon's `/mcp`, until either closes. A
 * request the daemon does not take is answered here, so the client never waits on it: over the daemon's message
 * limit (checked here first, against the limit the daemon last said, and by the daemon again), refused for its token
 * (the bridge then ends with status 1), or in a session the daemon ended.
 */
async function bridge(url: URL, token: string, owner: OwnerClient, log: (line: string) => void): Promise<number> {
  let limit = await daemonMessageLimit(owner)
  const refreshLimit = async () => (limit = await daemonMessageLimit(owner))
  const stdio: BoundedStdioServerTransport = new BoundedStdioServerTransport({
    limit: () => limit,
    onOversized: (message, measured) => void refreshLimit().then((now) => answerOversized(stdio, message, measured, now, log)),
  })
  const http = new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } })
  let exitCode = 0
  let sessionEnded: () => void = () => {}
  const ended = new Promise<void>((resolve) => (sessionEnded = resolve))
  const closed = Promise.race([untilClosed(stdio), untilClosed(http), stdinEnded(), ended])
  const answer = async (message: JSONRPCMessage, reply: (id: RequestId) => JSONRPCMessage) => {
    if (isJSONRPCRequest(message)) await stdio.send(reply(message.id))
  }
  stdio.onmessage = (message) => {
    http.send(message).catch(async (error: unknown) => {
      const status = error instanceof StreamableHTTPError ? error.code : undefined
      if (status === 413) {
        // The person lowered the limit since this bridge last read it.
        const now = await refreshLimit()
        const head = isJSONRPCRequest(message) ? { id: message.id, method: message.method } : { id: undefined, method: undefined }
        await answerOversized(stdio, { ...head, bytes: Buffer.byteLength(JSON.stringify(message)) }, now, now, log)
        return
      }
      if (status === 401 || status === 403) {
        log(`quire mcp: the daemon refused the token (HTTP ${status}): ${BAD_TOKEN}; exiting`)
        exitCode = 1
        await answer(message, (id) => unauthorizedAnswer(id, BAD_TOKEN))
        sessionEnded()
        return
      }
      if (status === 404 && (await tokenRefused(url, token))) {
        log(`quire mcp: the token was revoked while in use: ${BAD_TOKEN}; exiting`)
        exitCode = 1
        await answer(message, (id) => unauthorizedAnswer(id, BAD_TOKEN))
        sessionEnded()
        return
      }
      if (status === 404) {
        // The session expired unused, or the daemon restarted: nothing sent on it will be answered, so the bridge ends
        // and the AI client sees its server go away.
        const gone = 'the daemon no longer has this MCP session (it expired unused, or the daemon restarted): start `quire mcp` again'
        log(`quire mcp: ${gone}; exiting`)
        await answer(message, (id) => ({ jsonrpc: '2.0', id, error: { code: -32001, message: gone } }))
        sessionEnded()
        return
      }
      log(`quire mcp: the daemon did not take a message: ${(error as Error).message}`)
      await answer(message, (id) => ({ jsonrpc: '2.0', id, error: { code: -32603, message: `the Quire daemon did not take this request: ${(error as Error).message}` } }))
    })
  }
  http.onmessage = (message) => {
    void stdio.send(message)
  }
  // Closing the bridge aborts the daemon's standing SSE stream, and a daemon that stops ends it: neither is news. An
  // error is reported only while the daemon still answers; a daemon gone ends the bridge, so the AI client sees it.
  let closing = false
  http.onerror = (error) => {
    if (closing) return
    void owner.request('GET', '/admin/status').then(
      () => {
        if (!closing) log(`quire mcp: ${error.message}`)
      },
      () => {
        if (closing) return
        closing = true
        log('quire mcp: the daemon stopped; exiting')
        sessionEnded()
      },
    )
  }
  await http.start()
  await stdio.start()
  log(`quire mcp: attached to the daemon at ${url.origin}`)
  await closed
  closing = true
  await Promise.allSettled([http.close(), stdio.close()])
  return exitCode
}

/**
 * Whether the daemon refuses `token` now. A GET without a session changes nothing: the token is checked first (401),
 * then the daemon answers 400 (no session).
 */
async function tokenRefused(url: URL, token: string): Promise<boolean> {
  try {
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) })
    await response.body?.cancel()
    return response.status === 401 || response.status === 403
  } catch {
    return false
  }
}

/** The daemon's MCP message limit now; the default when it cannot say (an older daemon). */
async function daemonMessageLimit(owner: OwnerClient): Promise<number> {
  try {
    const { settings } = await owner.request<{ settings: Record<string, unknown> }>('GET', '/admin/settings')
    const value = settings.mcpMessageLimitBytes
    return typeof value === 'number' ? value : DEFAULT_SETTINGS.mcpMessageLimitBytes
  } catch {
    return DEFAULT_SETTINGS.mcpMessageLimitBytes
  }
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
