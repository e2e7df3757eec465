import { serve, type ServerType } from '@hono/node-server'
import { Hono } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { AddressInfo } from 'node:net'
import type { Services } from '../host/services.js'
import { createCollabEndpoint, type CollabOptions } from '../collab/endpoint.js'
import { keystrokePolicyFromEnvironment } from '../collab/keystrokes.js'
import type { Room } from '../collab/room.js'
import { adminRoutes } from './adminRoute.js'
import { consoleRoutes } from './console.js'
import { ConsoleSessions } from './consoleSessions.js'
import { bearerToken, sameSecret } from '../auth/credentials.js'
import { loopbackOnly } from './guard.js'
import { healthRoutes, NODE_ID_CLASH_REASON, type LogHealth } from './healthRoute.js'
import type { PresenceBus } from '../redis/presenceBus.js'
import { McpSessions, PERSON_OWNER, type McpSessionLimits } from './mcpRoute.js'
import { newAccessToken, removePortFile, writePortFile } from './portFile.js'

export interface HttpServer {
  readonly port: number
  readonly token: string
  readonly url: string
  /** A link that signs a browser into the console once (a one-time code; the token itself is never in a URL). */
  readonly consoleLink: string
  readonly sessions: McpSessions
  /** The collaboration endpoint's open rooms by document id (diagnostics and tests). */
  readonly collabRooms: ReadonlyMap<string, Room>
  close(): Promise<void>
}

/**
 * The daemon's HTTP side on 127.0.0.1: `/mcp` (Streamable HTTP), `/admin` (the person's CLI), `/collab` (y-websocket
 * peers, adapters/collab) and `/` (the console, adapters/http/console.ts). Every request for data needs a token: the
 * port file's access token, or an agent token (MCP, and read-only collaboration; its agent is the principal). The
 * port file is written once the server listens and removed when it closes.
 */
export async function startHttpServer(
  services: Services,
  options: {
    port?: number
    /** The address to listen on (default 127.0.0.1); a node behind a load balancer listens on its network's. */
    host?: string
    /** Host names, besides loopback's, that requests may name this server by (`--allow-host`). */
    allowedHosts?: readonly string[]
    /** This node's id when several nodes share the log: it qualifies the collaboration connections' labels. */
    node?: string
    collab?: Omit<CollabOptions, 'accessToken' | 'isPerson'>
    mcpSessions?: Partial<McpSessionLimits>
    /** Presence and awareness across nodes (adapters/redis/presenceBus.ts): the rooms' relay, and /readyz reports it. */
    presenceBus?: PresenceBus
    /** /readyz's log check, when the store knows better than the generic one (healthRoute.ts). */
    checkLog?: () => Promise<LogHealth>
  } = {},
): Promise<HttpServer> {
  const token = newAccessToken()
  const sessions = new McpSessions(services, options.mcpSessions)
  const consoleSessions = new ConsoleSessions(token)
  let port = 0
  let closing = false
  const app = new Hono()
  // Before the Host guard: a load balancer names the node as it likes, and these answers hold no data to protect.
  app.route('/', healthRoutes({ store: services.engine.store, checkLog: options.checkLog, presenceBus: options.presenceBus, closing: () => closing }))
  app.use('*', loopbackOnly(() => port, options.allowedHosts))
  // Another node serves under this node's id: neither sees the other's editors, so this one takes no requests at all.
  const bus = options.presenceBus
  if (bus) app.use('*', async (c, next) => (bus.status.state === 'clash' ? c.json({ error: 'NODE_ID_CLASH', message: NODE_ID_CLASH_REASON }, 503) : next()))
  // Every answer is JSON with an `error`, an unknown route or method too (Hono's default is a text 404).
  app.notFound((c) => c.json({ error: 'NOT_FOUND', message: `no route for ${c.req.method} ${c.req.path.slice(0, 200)}` }, 404))
  // A failure no route expected is still JSON, and says nothing of the process's internals but its message.
  app.onError((error, c) =>
    error instanceof HTTPException
      ? error.getResponse()
      : c.json({ error: 'INTERNAL', message: `unexpected error: ${error instanceof Error ? error.message : String(error)}` }, 500),
  )
  app.all('/mcp', async (c) => {
    const presented = bearerToken(c.req.header('authorization'))
    if (!presented) return unauthorized(`a bearer token is required: ${HOW_TO_GET_AN_AGENT_TOKEN}`)
    if (sameSecret(presented, token)) return sessions.handle(c, PERSON_OWNER)
    const agent = services.agents.authenticate(presented)
    if (!agent) return unauthorized(`unknown or revoked token: ${HOW_TO_GET_AN_AGENT_TOKEN}`)
    return sessions.handle(c, { kind: 'agent', name: agent.name, tokenSha256: agent.tokenSha256 })
  })
  app.use('/admin/*', async (c, next) => {
    const presented = bearerToken(c.req.header('authorization'))
    if (!presented || !sameSecret(presented, token)) {
      return unauthorized("the access token from the port file is required (the TOKEN of PORT:TOKEN in the data directory's file port)")
    }
    await next()
  })
  // `quire status` asks for a console link of its own (a fresh one-time code, like the one `quire serve` printed).
  app.route('/admin', adminRoutes(services, { newConsoleLink: () => `http://127.0.0.1:${port}/?code=${consoleSessions.newLinkCode()}`, sessions }))
  // The y-websocket collaboration endpoint (its own token checks: the person read-write, agents read-only).
  const collab = createCollabEndpoint(services, {
    ...(options.presenceBus ? { awarenessRelay: options.presenceBus } : {}),
    ...(options.node !== undefined ? { node: options.node } : {}),
    // Relaying keystrokes ahead of the log is opt-in, for measuring it (QUIRE_COLLAB_FANOUT; see keystrokes.ts).
    keystrokes: keystrokePolicyFromEnvironment(process.env),
    ...options.collab,
    accessToken: token,
    isPerson: (c) => consoleSessions.isPerson(c),
  })
  app.route('/collab', collab.routes)
  // Editors already attached here would go on editing unseen by the other nodes: they are let go, to reconnect elsewhere.
  const stopWatchingClash = bus?.onStatus((status) => {
    if (status.state === 'clash') void collab.close()
  })
  app.route('/', consoleRoutes(services, token, consoleSessions, sessions))

  const server = await new Promise<ServerType>((resolve, reject) => {
    const listening = serve(
      { fetch: app.fetch, port: options.port ?? 0, hostname: options.host ?? '127.0.0.1', websocket: { server: collab.websocketServer } },
      () => resolve(listening),
    )
    listening.once('error', reject)
  }).catch(async (error: unknown) => {
    // The port is taken (a caller may try another): let go of what was set up for this server.
    stopWatchingClash?.()
    await collab.close()
    await sessions.closeAll()
    throw error
  })
  keepConnectionsPastProxies(server)
  port = (server.address() as AddressInfo).port
  // No assistant's tab loads the daemon itself, by any address or Host alias it answers to (core/browser/ownAddress.ts).
  services.browser.blockServer({ port, host: options.host ?? '127.0.0.1', allowedHosts: options.allowedHosts ?? [] })
  await writePortFile(services.engine.home, { port, token })
  return {
    port,
    token,
    url: `http://127.0.0.1:${port}`,
    consoleLink: `http://127.0.0.1:${port}/?code=${consoleSessions.newLinkCode()}`,
    sessions,
    collabRooms: collab.rooms,
    async close() {
      closing = true
      stopWatchingClash?.()
      await removePortFile(services.engine.home)
      await collab.close()
      await sessions.closeAll()
      const http = server as { closeIdleConnections?: () => void; closeAllConnections?: () => void }
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        // Idle keep-alive connections would hold close() open; a request still being answered (the person's revoke
        // that ends this very process, say) gets a moment to send its answer, then everything is cut.
        http.closeIdleConnections?.()
        setTimeout(() => http.closeAllConnections?.(), 1_000).unref()
      })
    },
  }
}

const HOW_TO_GET_AN_AGENT_TOKEN =
  'the person runs `quire agent add NAME`, which prints an agent token once, and the client sends it as Authorization: Bearer TOKEN'

/**
 * A 401 that says what is wrong and what to do, in the body and in `WWW-Authenticate` (RFC 6750 §3). `error=
 * "invalid_token"` with no authorization server named tells an MCP client there is no OAuth flow to start: tokens
 * come from the person (`quire agent add`), not from a sign-in. `description` must be ASCII without quotes or
 * backslashes (the header's quoted-string).
 */
function unauthorized(description: string): Response {
  return new Response(JSON.stringify({ error: 'UNAUTHORIZED', message: description }), {
    status: 401,
    headers: {
      'content-type': 'application/json',
      'www-authenticate': `Bearer realm="quire", error="invalid_token", error_description="${description}"`,
    },
  })
}

/**
 * Node closes an idle keep-alive connection after 5 s. A client or a load balancer in front of several nodes (60 s
 * idle is the usual default) that sends its next request on such a connection as it closes gets "other side closed"
 * for a request the daemon never saw. Holding idle connections longer than the proxies do lets them close first.
 */
const IDLE_CONNECTION_MS = 65_000

function keepConnectionsPastProxies(server: ServerType): void {
  const http = server as { keepAliveTimeout?: number; headersTimeout?: number }
  http.keepAliveTimeout = IDLE_CONNECTION_MS
  // Node wants a request's headers timeout above the idle timeout, or an idle connection's next request can be cut.
  http.headersTimeout = IDLE_CONNECTION_MS + 1_000
}
