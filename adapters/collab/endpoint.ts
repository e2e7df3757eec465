import { upgradeWebSocket } from '@hono/node-server'
import { Hono, type Context } from 'hono'
import { WebSocketServer, type RawData, type WebSocket } from 'ws'
import type { Services } from '../host/services.js'
import { bearerToken, sameSecret } from '../auth/credentials.js'
import { decideAccess, isTrue, type AccessDecision } from './access.js'
import { CollabConnection, type Access } from './connection.js'
import { LogFanout } from './fanout.js'
import { CLOSE, DEFAULT_LIMITS, type CollabLimits } from './limits.js'
import { DURABLE_FAN_OUT, type KeystrokePolicy } from './keystrokes.js'
import { PeerSession, type SessionContext } from './peerSession.js'
import { Room, type AwarenessRelay } from './room.js'
import { tabsRoute } from './tabsRoute.js'

export interface CollabOptions {
  /** The port file's access token: the person. */
  readonly accessToken: string
  /** Whether the request carries the person's console session cookie (adapters/http/consoleSessions.ts): the person. */
  readonly isPerson?: (c: Context) => boolean
  readonly limits?: Partial<CollabLimits>
  /** When a peer's keystroke reaches the other peers (keystrokes.ts); durable fan-out unless given. */
  readonly keystrokes?: KeystrokePolicy
  /** Carries rooms' awareness to and from other nodes (adapters/redis/presenceBus.ts); none on a single node. */
  readonly awarenessRelay?: AwarenessRelay
  /**
   * This node's id, on a log several nodes share: connection labels become `console-1@<node>`, so a label names one
   * connection among every node's (rooms send a change to every peer but the one whose label made it, and the log
   * records who made it by that label).
   */
  readonly node?: string
}

/** The collaboration endpoint, to be mounted at `/collab` on a server created with its WebSocket server. */
export interface CollabEndpoint {
  readonly routes: Hono
  /** Hand to @hono/node-server's `serve({ websocket: { server } })`: it completes the upgrades the routes accept. */
  readonly websocketServer: WebSocketServer
  /** Open rooms by document id (diagnostics and tests). */
  readonly rooms: ReadonlyMap<string, Room>
  /** Closes every connection (1001) and stops the fan-out; edits already received are handed to the log first. */
  close(): Promise<void>
}

/** Document ids are `newId` output; anything else cannot name a document and is refused before touching the log. */
const DOC_ID = /^[A-Za-z0-9_-]{1,64}$/

/**
 * `GET /collab/:docId` upgrades to the y-websocket protocol, so a stock `WebsocketProvider(serverUrl + '/collab',
 * docId, ydoc, { params: { token } })` connects unmodified; `GET /collab` lists windows, tabs and their documents for
 * the person. Refusals happen after the upgrade, as close codes the client can see (4401, 4404): an HTTP error on the
 * upgrade only surfaces as an anonymous 1006.
 */
export function createCollabEndpoint(services: Services, options: CollabOptions): CollabEndpoint {
  const limits: CollabLimits = { ...DEFAULT_LIMITS, ...options.limits }
  const { engine } = services
  const rooms = new Map<string, Room>()
  const sessions = new Map<CollabConnection, PeerSession>()
  let serial = 0
  let closed = false

  const fanout = new LogFanout(engine.store, (docId, update, event) => rooms.get(docId)?.broadcastUpdate(update, event))
  const context: SessionContext = {
    documents: engine.documents,
    commands: engine.commands.documents,
    fanout,
    awarenessBounds: { maxStateBytes: limits.maxAwarenessStateBytes, maxEntries: limits.maxAwarenessClientsPerConnection },
    keystrokes: options.keystrokes ?? DURABLE_FAN_OUT,
  }
  const websocketServer = new WebSocketServer({ noServer: true, maxPayload: limits.maxMessageBytes })

  // A revocation is folded into the agents view in the same step as its append: the revoked agent's sockets are
  // closed before the revoke returns, so not one more update reaches them (a closing socket is sent nothing).
  const stopWatchingAgents = engine.views.agents.onChange((agents) => {
    for (const connection of sessions.keys()) {
      const owner = connection.access.agent
      if (!owner) continue
      const agent = agents.get(owner.name)
      if (!agent || agent.revoked || agent.tokenSha256 !== owner.tokenSha256) {
        connection.close(CLOSE.unauthorized, `the token of agent ${owner.name} was revoked`)
      }
    }
  })

  const attach = (ws: WebSocket, docId: string, access: Access): void => {
    const connection = new CollabConnection(ws, docId, access, limits)
    if (closed) {
      connection.close(CLOSE.goingAway, 'the Quire daemon is shutting down')
      return
    }
    // Counted here, where the connection joins, in one synchronous step: concurrent upgrades cannot both pass.
    const cap = access.agent ? limits.maxConnectionsPerAgent : limits.maxConnectionsPerPerson
    if (openConnectionsOf(access) >= cap) {
      const who = access.agent ? `agent ${access.agent.name}` : "the person's token"
      connection.close(CLOSE.tooMany, `${who} already holds ${cap} collaboration connections, the most one principal may`)
      return
    }
    let room = rooms.get(docId)
    if (!room) {
      room = new Room(docId, services.presence, limits.maxAwarenessClientsPerConnection, options.awarenessRelay)
      rooms.set(docId, room)
    }
    room.join(connection)
    const session = new PeerSession(connection, room, context)
    sessions.set(connection, session)
    const joined = room
    ws.on('message', (data: RawData, isBinary: boolean) => {
      // Frames that arrive while the close handshake runs are not acted on: the connection is over.
      if (!connection.open) return
      if (!isBinary) connection.close(CLOSE.unsupportedData, 'the y-websocket protocol is binary; text frames are refused')
      else session.receive(bytesOf(data))
    })
    // `ws` reports protocol violations (an oversized message: 1009) as an error, then closes the socket itself.
    ws.on('error', () => {})
    ws.on('close', () => {
      sessions.delete(connection)
      if (joined.leave(connection) && rooms.get(docId) === joined) {
        rooms.delete(docId)
        joined.destroy()
      }
    })
    void session.start()
  }

  /** Connections of the same principal (by agent name, or the person) that are not already closing. */
  const openConnectionsOf = (access: Access): number => {
    let count = 0
    for (const connection of sessions.keys()) {
      if (connection.closedBecause === undefined && connection.access.agent?.name === access.agent?.name) count++
    }
    return count
  }

  const refuse = (ws: WebSocket, code: number, reason: string): void => {
    ws.on('error', () => {})
    ws.close(code, reason)
  }

  /** Decides before the upgrade completes (a document may need loading); refusals are sent once it has. */
  const upgrade = upgradeWebSocket(async (c: Context) => {
    if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') return {}
    const docId = c.req.param('docId') ?? ''
    const decision = await admit(c, docId)
    return {
      onOpen: (_event, socket) => {
        const ws = socket.raw as unknown as WebSocket | undefined
        if (!ws) return
        if (!decision.granted) refuse(ws, decision.code, decision.reason)
        else attach(ws, docId, decision.access)
      },
    }
  })

  const admit = async (c: Context, docId: string): Promise<AccessDecision> => {
    let decision = decideAccess(
      {
        // The console's session cookie stands for the person's token (the browser sends it with the handshake).
        token: c.req.query('token') ?? bearerToken(c.req.header('authorization')) ?? (options.isPerson?.(c) ? options.accessToken : undefined),
        name: c.req.query('name'),
        readOnly: c.req.query('readonly'),
      },
      options.accessToken,
      services.agents,
      () => ++serial,
    )
    if (!decision.granted) return decision
    if (options.node !== undefined) decision = { ...decision, access: { ...decision.access, label: `${decision.access.label}@${options.node}` } }
    if (closed) return { granted: false, code: CLOSE.goingAway, reason: 'the Quire daemon is shutting down' }
    const document = DOC_ID.test(docId) ? await engine.documents.get(docId).catch(() => undefined) : undefined
    if (!document) return { granted: false, code: CLOSE.notFound, reason: `no document ${docId.slice(0, 64)}` }
    // A WYSIWYG editor asks for the mirror (`mirror=1`) before it binds it: built from `source` first, so it never
    // binds an empty fragment (DESIGN §4). Source-only peers never pay for the bridge.
    if (isTrue(c.req.query('mirror')) && document.meta?.kind === 'markdown' && !decision.access.readOnly) {
      await engine.commands.documents.attachMirror(docId)
    }
    return isTrue(c.req.query('undo')) ? { ...decision, access: { ...decision.access, assistantEdits: true } } : decision
  }

  const routes = new Hono()
  routes.use('/', async (c, next) => {
    const token = bearerToken(c.req.header('authorization')) ?? c.req.query('token')
    if (!token || !sameSecret(token, options.accessToken)) return c.json({ error: 'the access token from the port file is required' }, 401)
    await next()
  })
  routes.route('/', tabsRoute(services))
  routes.get('/:docId', upgrade, (c) => c.json({ error: 'this is a WebSocket endpoint (y-websocket protocol)' }, 426))

  return {
    routes,
    websocketServer,
    rooms,
    async close() {
      if (closed) return
      closed = true
      stopWatchingAgents()
      const connections = [...sessions.keys()]
      await Promise.allSettled([...sessions.values()].map((session) => session.settled()))
      fanout.close()
      const ended = connections.map((connection) =>
        connection.ws.readyState === connection.ws.CLOSED ? Promise.resolve() : new Promise<void>((resolve) => connection.ws.once('close', () => resolve())),
      )
      for (const connection of connections) connection.close(CLOSE.goingAway, 'the Quire daemon is shutting down')
      const grace = setTimeout(() => {
        for (const connection of connections) connection.ws.terminate()
      }, limits.closeGraceMs)
      await Promise.all(ended)
      clearTimeout(grace)
      for (const room of rooms.values()) room.destroy()
      rooms.clear()
    },
  }
}

function bytesOf(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data)
  if (data instanceof ArrayBuffer) return new Uint8Array(data)
  return data
}
