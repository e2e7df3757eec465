import { randomUUID } from 'node:crypto'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { Context } from 'hono'
import type { Services } from '../host/services.js'
import { createMcpServer } from '../mcp/server.js'

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport
  readonly server: McpServer
  /** The principal that opened the session; every later request on it must authenticate as the same one. */
  readonly principal: string | null
}

/** Most MCP sessions one daemon keeps open at once; more is a misbehaving client, not a person's tools. */
const MAX_SESSIONS = 128

/**
 * Streamable HTTP at `/mcp`: one transport and one MCP server per MCP session (the SDK binds a server to one
 * transport). The session's connection id is what approvals bind to (WS.OPEN_WORKSPACE.6): a reconnecting client
 * gets a new session, hence needs a new approval.
 */
export class McpSessions {
  private readonly sessions = new Map<string, Session>()

  constructor(private readonly services: Services) {}

  async handle(c: Context, principal: string | null): Promise<Response> {
    const sessionId = c.req.header('mcp-session-id')
    if (sessionId !== undefined) {
      const session = this.sessions.get(sessionId)
      if (!session) return jsonRpcError(404, -32001, 'Session not found')
      if (session.principal !== principal) return jsonRpcError(403, -32000, 'this MCP session belongs to another principal')
      return session.transport.handleRequest(c.req.raw)
    }
    if (c.req.method !== 'POST') return jsonRpcError(400, -32000, 'Bad Request: no MCP session; initialize first')
    if (this.sessions.size >= MAX_SESSIONS) return jsonRpcError(503, -32000, 'too many MCP sessions are open')
    const id = randomUUID()
    const connection = `mcp-${id.slice(0, 8)}`
    const server = createMcpServer({
      services: this.services,
      caller: { actor: { kind: 'mcp', principal: principal ?? 'anonymous', connection }, connection, principal },
    })
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: (initialized) => {
        this.sessions.set(initialized, { transport, server, principal })
      },
      onsessionclosed: (closed) => {
        this.sessions.delete(closed)
      },
    })
    transport.onclose = () => {
      this.sessions.delete(id)
    }
    await server.connect(transport)
    return transport.handleRequest(c.req.raw)
  }

  get size(): number {
    return this.sessions.size
  }

  async closeAll(): Promise<void> {
    const open = [...this.sessions.values()]
    this.sessions.clear()
    await Promise.allSettled(open.map((session) => session.server.close()))
  }
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  })
}
