import { randomUUID } from 'node:crypto'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { Context } from 'hono'
import type { AgentsState } from '../../core/agents/agentsState.js'
import type { Services } from '../host/services.js'
import { mcpActivity } from '../mcp/activity.js'
import { MESSAGE_LIMIT_CEILING, MESSAGE_TOO_LARGE_CODE, oversizedMessageText } from '../mcp/messageLimit.js'
import { createMcpServer } from '../mcp/server.js'
import type { McpSessionListing } from './mcpSessionListing.js'
import { BRIDGE_PID_HEADER, parseBridgePid } from './bridgePid.js'

/** Who a request authenticated as: the person (the port file's token), or an agent by the token it presented. */
export type SessionOwner =
  | { readonly kind: 'person' }
  | { readonly kind: 'agent'; readonly name: string; readonly tokenSha256: string }

export const PERSON_OWNER: SessionOwner = Object.freeze({ kind: 'person' })

/**
 * How many MCP sessions each principal may hold, and how long an unused one lives. Per principal, so one client
 * that leaks sessions (an agent opening hundreds and walking away) only ever locks itself out.
 */
export interface McpSessionLimits {
  /**
   * Open sessions per agent. An AI client needs one per conversation it runs at once; 16 is far past what one
   * client does at a time, so reaching it means sessions are being leaked, and the client is told so.
   */
  readonly perAgent: number
  /** Open sessions for the person's token (the CLI's `quire mcp` bridges and any tool the person runs). */
  readonly perPerson: number
  /**
   * A session that has had no request in flight for this long is closed (the client's next request gets 404 and, as
   * the MCP spec requires, it initializes a new session). 30 minutes outlasts any pause in a conversation a person
   * is still having, and frees what vanished clients left behind.
   */
  readonly idleMs: number
  /**
   * A session opened through `quire mcp` (its requests carry `Quire-Bridge-Pid`) ends this long after its last
   * request ended, once it has held a standing stream. A live bridge always holds its GET stream open, so this only
   * happens when the bridge is gone without ending its session (SIGKILL runs no code; the kernel closes its
   * connections, which ends the stream) or, for a moment, while the stream reconnects. Other clients keep the idle
   * window: the spec lets a client close its stream at any time and go on.
   */
  readonly bridgeGraceMs: number
}

export const DEFAULT_MCP_SESSION_LIMITS: McpSessionLimits = Object.freeze({
  perAgent: 16,
  perPerson: 64,
  idleMs: 30 * 60_000,
  bridgeGraceMs: 10_000,
})

interface Session {
  readonly id: string
  readonly transport: WebStandardStreamableHTTPServerTransport
  readonly server: McpServer
  /** The principal that opened the session; every later request on it must authenticate as the same one. */
  readonly owner: SessionOwner
  /** Requests whose response has not ended yet (an open SSE stream counts): a session with any is not idle. */
  inFlight: number
  idleTimer: NodeJS.Timeout | undefined
  readonly openedAt: number
  lastRequestAt: number
  /** The `quire mcp` process that opened it (BRIDGE_PID_HEADER), null for any other client. */
  readonly bridgePid: number | null
  /** Whether its client has opened its standing GET stream: a bridge's session is held by it from then on. */
  streamOpened: boolean
}

/**
 * Streamable HTTP at `/mcp`: one transport and one MCP server per MCP session (the SDK binds a server to one
 * transport). The session's connection id is what approvals bind to (WS.OPEN_WORKSPACE.6): a reconnecting client
 * gets a new session, hence needs a new approval. Sessions are bounded per principal, expire when idle, and end
 * the moment their agent's token is revoked (or replaced).
 */
export class McpSessions {
  private readonly sessions = new Map<string, Session>()
  /** Initialize requests under way, by principal: they hold a place until the SDK reports the session or fails. */
  private readonly opening = new Map<string, number>()
  private readonly limits: McpSessionLimits
  private readonly stopWatchingAgents: () => void

  constructor(
    private readonly services: Services,
    limits: Partial<McpSessionLimits> = {},
  ) {
    this.limits = { ...DEFAULT_MCP_SESSION_LIMITS, ...limits }
    // The agents view folds a revocation in the same step as its append: sessions end before the revoke returns.
    this.stopWatchingAgents = services.engine.views.agents.onChange((agents) => this.closeRevoked(agents))
  }

  async handle(c: Context, owner: SessionOwner): Promise<Response> {
    const principal = owner.kind === 'agent' ? owner.name : null
    const limit = this.services.settings.state.mcpMessageLimitBytes
    const request = await withinLimit(c.req.raw, limit)
    if (!request.taken) return jsonRpcError(413, MESSAGE_TOO_LARGE_CODE, oversizedMessageText(request.bytes, limit))
    const sessionId = c.req.header('mcp-session-id')
    if (sessionId !== undefined) {
      const session = this.sessions.get(sessionId)
      if (!session) return jsonRpcError(404, -32001, 'Session not found')
      if (!sameOwner(session.owner, owner)) return jsonRpcError(403, -32000, 'this MCP session belongs to another principal')
      if (c.req.method === 'GET') session.streamOpened = true
      return this.track(session, () => session.transport.handleRequest(request.request))
    }
    if (c.req.method !== 'POST') return jsonRpcError(400, -32000, 'Bad Request: no MCP session; initialize first')
    const key = ownerKey(owner)
    const cap = owner.kind === 'agent' ? this.limits.perAgent : this.limits.perPerson
    if (this.countOf(key) + (this.opening.get(key) ?? 0) >= cap) {
      const who = owner.kind === 'agent' ? `agent ${JSON.stringify(owner.name)}` : "the person's token"
      return jsonRpcError(
        429,
        -32000,
        `${who} already holds ${cap} open MCP sessions, the most one principal may; end one (HTTP DELETE /mcp with its ` +
          `Mcp-Session-Id${owner.kind === 'agent' ? `, or the person runs \`quire agent end-session ${owner.name}\`` : ''}) ` +
          `or let an unused one expire (after ${Math.round(this.limits.idleMs / 1000)} s without requests)`,
      )
    }
    const id = randomUUID()
    const connection = connectionOf(id)
    const server = createMcpServer({
      services: this.services,
      caller: { actor: { kind: 'mcp', principal: principal ?? 'anonymous', connection }, connection, principal },
    })
    const now = Date.now()
    const session: Session = {
      id, transport: undefined as never, server, owner, inFlight: 0, idleTimer: undefined,
      openedAt: now, lastRequestAt: now, bridgePid: parseBridgePid(c.req.header(BRIDGE_PID_HEADER)), streamOpened: false,
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      // The person's limit (mcpMessageLimitBytes) was applied above, as it is now; the SDK's own default is 4 MiB.
      maxRequestBodySize: MESSAGE_LIMIT_CEILING,
      sessionIdGenerator: () => id,
      onsessioninitialized: () => {
        this.sessions.set(id, session)
        mcpActivity.opened(connection, principal)
      },
      onsessionclosed: () => {
        this.forget(id)
      },
    })
    ;(session as { transport: WebStandardStreamableHTTPServerTransport }).transport = transport
    transport.onclose = () => {
      this.forget(id)
    }
    this.opening.set(key, (this.opening.get(key) ?? 0) + 1)
    try {
      await server.connect(transport)
      return await this.track(session, () => transport.handleRequest(request.request))
    } finally {
      const left = (this.opening.get(key) ?? 1) - 1
      if (left > 0) this.opening.set(key, left)
      else this.opening.delete(key)
      // A POST that was not a valid initialize leaves no session behind.
      if (!this.sessions.has(id)) void server.close()
    }
  }

  get size(): number {
    return this.sessions.size
  }

  /** Open sessions of one principal: an agent's name, or null for the person. */
  openFor(principal: string | null): number {
    return this.countOf(principal === null ? ownerKey(PERSON_OWNER) : `agent:${principal}`)
  }

  /** The open sessions of agent `name`, oldest first. */
  listFor(name: string): McpSessionListing[] {
    return this.agentSessions(name).map((session) => {
      const client = session.server.server.getClientVersion()
      return {
        session: connectionOf(session.id),
        openedAt: session.openedAt,
        lastRequestAt: session.lastRequestAt,
        client: client ? `${client.name} ${client.version}`.trim() : null,
        bridgePid: session.bridgePid,
      }
    })
  }

  /**
   * The person ends agent `name`'s session `connection` (as listed), or every one of its sessions: each answers 404
   * from now on, its streams close, and a `quire mcp` holding one exits. Answers the sessions ended.
   */
  endFor(name: string, connection?: string): string[] {
    const ending = this.agentSessions(name).filter((session) => connection === undefined || connectionOf(session.id) === connection)
    for (const session of ending) this.end(session)
    return ending.map((session) => connectionOf(session.id))
  }

  async closeAll(): Promise<void> {
    this.stopWatchingAgents()
    const open = [...this.sessions.values()]
    for (const session of open) this.forget(session.id)
    await Promise.allSettled(open.map((session) => session.server.close()))
  }

  /**
   * Runs one request on a session and keeps count of it until its response body ends (an SSE response ends when the
   * stream does), so a session is idle only when nothing of it is under way.
   */
  private async track(session: Session, run: () => Promise<Response>): Promise<Response> {
    session.inFlight++
    session.lastRequestAt = Date.now()
    clearTimeout(session.idleTimer)
    session.idleTimer = undefined
    let ended = false
    const end = () => {
      if (ended) return
      ended = true
      session.inFlight--
      if (session.inFlight === 0 && this.sessions.get(session.id) === session) {
        const heldByBridge = session.bridgePid !== null && session.streamOpened
        session.idleTimer = setTimeout(() => this.expire(session), heldByBridge ? this.limits.bridgeGraceMs : this.limits.idleMs)
        session.idleTimer.unref()
      }
    }
    try {
      return whenBodyEnds(await run(), end)
    } catch (error) {
      end()
      throw error
    }
  }

  private expire(session: Session): void {
    if (session.inFlight > 0 || this.sessions.get(session.id) !== session) return
    this.end(session)
  }

  /** Ends every session whose agent is no longer live with the token that opened it. */
  private closeRevoked(agents: AgentsState): void {
    for (const session of [...this.sessions.values()]) {
      const { owner } = session
      if (owner.kind !== 'agent') continue
      const agent = agents.get(owner.name)
      if (!agent || agent.revoked || agent.tokenSha256 !== owner.tokenSha256) this.end(session)
    }
  }

  /** Removes the session at once (its id answers 404 from now on) and closes it, which ends its open streams. */
  private end(session: Session): void {
    this.forget(session.id)
    void session.server.close().catch(() => {})
  }

  private forget(id: string): void {
    const session = this.sessions.get(id)
    if (!session) return
    clearTimeout(session.idleTimer)
    this.sessions.delete(id)
    mcpActivity.closed(connectionOf(id))
  }

  private agentSessions(name: string): Session[] {
    return [...this.sessions.values()]
      .filter(({ owner }) => owner.kind === 'agent' && owner.name === name)
      .sort((a, b) => a.openedAt - b.openedAt)
  }

  private countOf(key: string): number {
    let count = 0
    for (const session of this.sessions.values()) if (ownerKey(session.owner) === key) count++
    return count
  }
}

/** A session's connection id, as approvals and the log name it. */
const connectionOf = (sessionId: string): string => `mcp-${sessionId.slice(0, 8)}`

const ownerKey = (owner: SessionOwner): string => (owner.kind === 'agent' ? `agent:${owner.name}` : 'person')

const sameOwner = (a: SessionOwner, b: SessionOwner): boolean =>
  a.kind === 'person' ? b.kind === 'person' : b.kind === 'agent' && a.name === b.name && a.tokenSha256 === b.tokenSha256

/** `response` with `ended` called once its body has been read to the end, cancelled or failed (or at once if none). */
function whenBodyEnds(response: Response, ended: () => void): Response {
  const source = response.body
  if (!source) {
    ended()
    return response
  }
  const reader = source.getReader()
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read()
        if (done) {
          ended()
          controller.close()
        } else {
          controller.enqueue(value)
        }
      } catch (error) {
        ended()
        controller.error(error)
      }
    },
    cancel(reason) {
      ended()
      return reader.cancel(reason)
    },
  })
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
}

/**
 * The request with its body read, when the body is at most `limit` bytes: refused at once when Content-Length says it
 * is larger, else as soon as the streamed body passes the limit (what was read of it is let go).
 */
async function withinLimit(
  request: Request,
  limit: number,
): Promise<{ taken: true; request: Request } | { taken: false; bytes: number | undefined }> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > limit) return { taken: false, bytes: Number(declared) }
  if (!request.body) return { taken: true, request }
  const reader = request.body.getReader()
  const pieces: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => {})
      return { taken: false, bytes: undefined }
    }
    pieces.push(value)
  }
  return { taken: true, request: new Request(request, { body: Buffer.concat(pieces) }) }
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  })
}
