import { randomBytes } from 'node:crypto'
import { resolve } from 'node:path'
import { isJSONRPCRequest, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js'
import type { Agent, AgentsState } from '../../../core/agents/agentsState.js'
import { USER } from '../../../core/events/actor.js'
import { DEFAULT_SETTINGS } from '../../../core/settings/events.js'
import type { FoldedStream } from '../../../core/streams/foldedStream.js'
import { openWorkspaceAsPerson } from '../../../core/workspace/commands.js'
import { startHttpServer } from '../../http/daemon.js'
import type { Quire } from '../../host/quire.js'
import { createMcpServer } from '../../mcp/server.js'
import { BoundedStdioServerTransport } from '../../mcp/stdioTransport.js'
import { answerOversized, BAD_TOKEN, stdinEnded, unauthorizedAnswer, untilClientGone, untilClosed } from './stdio.js'

/**
 * `quire mcp` with no daemon: the core runs in this process, which serves the MCP client on stdio and the same
 * loopback HTTP endpoints a daemon serves, so the person's CLI and other clients still reach it. Takes `quire`,
 * opened by the caller, and closes it. Answers the exit status.
 */
export async function serveEmbedded(
  home: string,
  quire: Quire,
  options: { readonly workspaces: readonly string[]; readonly agentToken: string | undefined },
  log: (line: string) => void,
): Promise<number> {
  const { agentToken } = options
  let refused = false
  let revoked = false
  try {
    const { services } = quire
    const agent = agentToken === undefined ? undefined : services.agents.authenticate(agentToken)
    // The data directory is let go first (the finally below), so the person's commands work while the client reads
    // the refusal.
    refused = agentToken !== undefined && !agent
    if (refused) return 1
    for (const folder of options.workspaces) await openWorkspaceAsPerson(services.engine.store, services.engine.views.workspace, resolve(folder), USER)
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
    // The client gone (stdin ended, a signal, the parent exited): the core closes in order and lets the data directory go.
    const client = untilClientGone()
    const closed = Promise.race([untilClosed(transport), client.gone, ...revocation])
    await server.connect(transport)
    log(`quire mcp: serving ${home} embedded (HTTP for other clients at ${http.url})`)
    await closed
    client.stop()
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

