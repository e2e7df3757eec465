import { rm } from 'node:fs/promises'
import type { CollabLimits } from '../../adapters/collab/limits.js'
import { startHttpServer, type HttpServer } from '../../adapters/http/daemon.js'
import type { McpSessionLimits } from '../../adapters/http/mcpRoute.js'
import { openQuire, type Quire } from '../../adapters/host/quire.js'
import { tempDir } from '../support/mcpHarness.js'

/**
 * The daemon's HTTP side in this process with its MCP-session and collaboration limits shrunk to test sizes, and a
 * bare Streamable HTTP client built on fetch, so a spec sees the exact status, headers and body of every answer.
 */
export interface SecurityServer {
  readonly quire: Quire
  readonly http: HttpServer
  readonly port: number
  /** The port file's token: the person. */
  readonly token: string
  close(): Promise<void>
}

export async function startSecurityServer(options: { mcpSessions?: Partial<McpSessionLimits>; collab?: Partial<CollabLimits> } = {}): Promise<SecurityServer> {
  const home = await tempDir('quire-security-')
  const quire = await openQuire(home, { watchDisk: false })
  const http = await startHttpServer(quire.services, { mcpSessions: options.mcpSessions, collab: { limits: options.collab ?? {} } })
  return {
    quire,
    http,
    port: http.port,
    token: http.token,
    async close() {
      await http.close()
      await quire.close()
      await rm(home, { recursive: true, force: true })
    },
  }
}

export interface McpAnswer {
  readonly status: number
  readonly sessionId: string | undefined
  /** The JSON-RPC message of the answer (from a JSON body or the first SSE `data:` line), if any. */
  readonly message: Record<string, any> | undefined
  readonly text: string
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'quire-security', version: '1.0.0' } },
}

function headers(token: string, sessionId?: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' }),
    ...extra,
  }
}

async function answer(response: Response): Promise<McpAnswer> {
  const text = await response.text()
  let message: Record<string, any> | undefined
  const data = /^data: (.*)$/m.exec(text)?.[1] ?? text
  try {
    message = JSON.parse(data) as Record<string, any>
  } catch {
    message = undefined
  }
  return { status: response.status, sessionId: response.headers.get('mcp-session-id') ?? undefined, message, text }
}

/** POSTs `body` (raw text, or JSON) to `/mcp`, on a session when `sessionId` is given, with any `extra` headers. */
export async function postMcp(port: number, token: string, body: unknown, sessionId?: string, extra: Record<string, string> = {}): Promise<McpAnswer> {
  const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: headers(token, sessionId, extra),
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  return answer(response)
}

/**
 * Opens an MCP session (initialize, then the initialized notification); its answer carries the session id. `extra`
 * headers go with every request of it (what `quire mcp` sends to say it is a bridge, say).
 */
export async function initialize(port: number, token: string, extra: Record<string, string> = {}): Promise<McpAnswer> {
  const opened = await postMcp(port, token, INITIALIZE, undefined, extra)
  if (opened.status === 200 && opened.sessionId) {
    await postMcp(port, token, { jsonrpc: '2.0', method: 'notifications/initialized' }, opened.sessionId, extra)
  }
  return opened
}

/** A request on a session: `tools/list`, which every session answers and which changes nothing. */
export function listTools(port: number, token: string, sessionId: string, extra: Record<string, string> = {}): Promise<McpAnswer> {
  return postMcp(port, token, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, sessionId, extra)
}

/** Ends a session the way a client does (HTTP DELETE). */
export async function deleteSession(port: number, token: string, sessionId: string): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'DELETE', headers: headers(token, sessionId) })
  await response.body?.cancel()
  return response.status
}

/** The standalone GET SSE stream of a session, as a client keeps it open for server messages. */
export interface ServerStream {
  readonly status: number
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>
  /** Ends it from the client's side. */
  cancel(): Promise<void>
}

export async function openStream(port: number, token: string, sessionId: string): Promise<ServerStream> {
  const controller = new AbortController()
  const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'GET',
    headers: { ...headers(token, sessionId), accept: 'text/event-stream' },
    signal: controller.signal,
  })
  const reader = response.body?.getReader()
  const ended = (async () => {
    if (!reader) return
    try {
      for (;;) if ((await reader.read()).done) return
    } catch {
      // Aborted by cancel(), or the connection was cut: either way the stream is over.
    }
  })()
  return {
    status: response.status,
    ended,
    async cancel() {
      controller.abort()
      await ended
    },
  }
}

/** Rejects with `what` unless `promise` settles within `ms` (a generous bound, never a measurement). */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}
