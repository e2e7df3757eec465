import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { isJSONRPCRequest, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js'
import { DEFAULT_SETTINGS } from '../../../core/settings/events.js'
import { BoundedStdioServerTransport } from '../../mcp/stdioTransport.js'
import type { OwnerClient } from '../owner.js'
import { answerOversized, BAD_TOKEN, stdinEnded, unauthorizedAnswer, untilClosed } from './stdio.js'

/**
 * Relays JSON-RPC messages both ways between this process's stdio and the daemon's `/mcp`, until either closes. A
 * request the daemon does not take is answered here, so the client never waits on it: over the daemon's message
 * limit (checked here first, against the limit the daemon last said, and by the daemon again), refused for its token
 * (the bridge then ends with status 1), or in a session the daemon ended.
 */
export async function bridge(url: URL, token: string, owner: OwnerClient, log: (line: string) => void): Promise<number> {
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

