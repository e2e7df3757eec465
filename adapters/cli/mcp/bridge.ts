import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { isJSONRPCRequest, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js'
import { DEFAULT_SETTINGS } from '../../../core/settings/events.js'
import { BoundedStdioServerTransport } from '../../mcp/stdioTransport.js'
import type { OwnerClient } from '../owner.js'
import { BRIDGE_PID_HEADER } from '../../http/bridgePid.js'
import { answerOversized, BAD_TOKEN, unauthorizedAnswer, untilClientGone, untilClosed } from './stdio.js'

/** How long the bridge waits for the daemon to end its session before it exits anyway. */
const END_SESSION_MS = 3_000

const SESSION_GONE =
  'the daemon no longer has this MCP session (the person ended it, it expired unused, or the daemon restarted): start `quire mcp` again'

/**
 * Relays JSON-RPC messages both ways between this process's stdio and the daemon's `/mcp`, until either closes. A
 * request the daemon does not take is answered here, so the client never waits on it: over the daemon's message
 * limit (checked here first, against the limit the daemon last said, and by the daemon again), refused for its token
 * (the bridge then ends with status 1), or in a session the daemon ended.
 *
 * The session is the AI client's: when the client goes away (stdin ends, a signal, the parent process exits), the
 * bridge ends it on the daemon (HTTP DELETE) before it exits, so one agent can launch `quire mcp` any number of times.
 * Every request carries this process's pid (BRIDGE_PID_HEADER): should the bridge die without a word (SIGKILL), the
 * daemon ends the session once the bridge's standing stream has closed with its connections.
 */
export async function bridge(url: URL, token: string, owner: OwnerClient, log: (line: string) => void): Promise<number> {
  let limit = await daemonMessageLimit(owner)
  const refreshLimit = async () => (limit = await daemonMessageLimit(owner))
  const stdio: BoundedStdioServerTransport = new BoundedStdioServerTransport({
    limit: () => limit,
    onOversized: (message, measured) => void refreshLimit().then((now) => answerOversized(stdio, message, measured, now, log)),
  })
  const http = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { authorization: `Bearer ${token}`, [BRIDGE_PID_HEADER]: String(process.pid) } },
  })
  let exitCode = 0
  let sessionEnded: () => void = () => {}
  const ended = new Promise<void>((resolve) => (sessionEnded = resolve))
  const client = untilClientGone()
  const closed = Promise.race([untilClosed(stdio), untilClosed(http), client.gone, ended])
  const answer = async (message: JSONRPCMessage, reply: (id: RequestId) => JSONRPCMessage) => {
    if (isJSONRPCRequest(message)) await stdio.send(reply(message.id))
  }
  // The daemon refused the token, or no longer has the session: nothing more can be answered, so the bridge answers
  // the request that found out with why, and ends; the AI client sees its server go away.
  const refused = async (message: JSONRPCMessage) => {
    exitCode = 1
    await answer(message, (id) => unauthorizedAnswer(id, BAD_TOKEN))
    sessionEnded()
  }
  const sessionGone = async (message: JSONRPCMessage) => {
    log(`quire mcp: ${SESSION_GONE}; exiting`)
    await answer(message, (id) => ({ jsonrpc: '2.0', id, error: { code: -32001, message: SESSION_GONE } }))
    sessionEnded()
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
        return refused(message)
      }
      if (status === 404 && (await tokenRefused(url, token))) {
        log(`quire mcp: the token was revoked while in use: ${BAD_TOKEN}; exiting`)
        return refused(message)
      }
      if (status === 404) return sessionGone(message)
      log(`quire mcp: the daemon did not take a message: ${(error as Error).message}`)
      await answer(message, (id) => ({ jsonrpc: '2.0', id, error: { code: -32603, message: `the Quire daemon did not take this request: ${(error as Error).message}` } }))
    })
  }
  http.onmessage = (message) => {
    void stdio.send(message)
  }
  // Closing the bridge aborts the daemon's standing SSE stream, and a daemon that stops ends it: neither is news. An
  // error is reported only while the daemon still answers; a daemon gone ends the bridge, so the AI client sees it.
  // The stream reopening into a refusal means the session ended on the daemon's side (the person ended it, or revoked
  // the token): the client's next request is answered with why (above), and the bridge ends then.
  let closing = false
  let streamRefused = false
  http.onerror = (error) => {
    if (closing || streamRefused) return
    const status = error instanceof StreamableHTTPError ? error.code : undefined
    if (status === 401 || status === 403 || status === 404) {
      streamRefused = true
      return
    }
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
  client.stop()
  closing = true
  await endDaemonSession(http)
  await Promise.allSettled([http.close(), stdio.close()])
  return exitCode
}

/**
 * Ends the bridge's session on the daemon as the Streamable HTTP spec has a client do (DELETE with its
 * Mcp-Session-Id), which frees its place among its agent's sessions at once. A session the daemon already ended, or
 * a daemon gone, fails here and changes nothing; a daemon that does not answer is not waited for (it ends the session
 * itself once this process's connections close).
 */
async function endDaemonSession(http: StreamableHTTPClientTransport): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, END_SESSION_MS)))
  await Promise.race([http.terminateSession().catch(() => {}), waited])
  clearTimeout(timer)
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

