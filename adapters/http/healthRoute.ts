import { Hono } from 'hono'
import type { EventLog } from '../../core/log/eventLog.js'
import type { PresenceBusState, PresenceBusStatus } from '../redis/presenceBus.js'

/** What the log check found: `ok`, or why this node should not be sent requests. */
export type LogHealth = 'ok' | 'closed' | 'unreachable' | 'behind'

export interface HealthOptions {
  readonly store: EventLog
  /**
   * Replaces the generic log check (see {@link eventLogHealth}) with one that knows its store: a shared database can
   * say how far behind the cluster's head this node is.
   */
  readonly checkLog?: () => Promise<LogHealth>
  /** The Redis presence bus, when this node has one. */
  readonly presenceBus?: { readonly status: PresenceBusStatus }
  /** True once the server is shutting down: the load balancer should stop sending before the connections go. */
  readonly closing: () => boolean
}

/** The body of GET /readyz. */
export interface Readiness {
  readonly ready: boolean
  /** `closing` while the server shuts down. */
  readonly status: 'ready' | 'not-ready' | 'closing'
  readonly log: LogHealth
  /**
   * Only with a presence bus. `degraded` does not make the node unready: documents work without Redis. `clash` does:
   * another node serves under this node's id.
   */
  readonly presence?: PresenceBusState
  /** Why the node is unready when the log is not the reason (a `clash`); names no node, path or address. */
  readonly reason?: string
}

/** Said by /readyz of a node whose id another running node uses (the node's own output names both). */
export const NODE_ID_CLASH_REASON = "another running node uses this node's id (QUIRE_NODE_ID): this node takes no requests until it is restarted with an id of its own"

/**
 * Health and readiness for a load balancer, without a token and without data: `GET /healthz` answers 200 while the
 * process can answer at all; `GET /readyz` answers 200 when the node should take requests (the log answers and
 * this node has caught up with it, and the server is not shutting down), else 503, with what it found in the body.
 * Presence through Redis is reported, and is a reason to be unready only when another node serves under this node's
 * id (a node without Redis serves documents as ever).
 */
export function healthRoutes(options: HealthOptions): Hono {
  const checkLog = coalesced(options.checkLog ?? eventLogHealth(options.store))
  const app = new Hono()
  app.get('/healthz', (c) => c.json({ status: 'alive' }, 200, { 'cache-control': 'no-store' }))
  app.get('/readyz', async (c) => {
    const log = options.store.isClosed ? 'closed' : await checkLog()
    const closing = options.closing()
    const presence = options.presenceBus?.status.state
    const ready = !closing && log === 'ok' && presence !== 'clash'
    const body: Readiness = {
      ready,
      status: closing ? 'closing' : ready ? 'ready' : 'not-ready',
      log,
      ...(presence ? { presence } : {}),
      ...(presence === 'clash' ? { reason: NODE_ID_CLASH_REASON } : {}),
    }
    return c.json(body, ready ? 200 : 503, { 'cache-control': 'no-store' })
  })
  return app
}

export interface EventLogHealthOptions {
  /** How long the log may take to answer one read (default 2 s). */
  readonly readTimeoutMs?: number
  /** How long appends this node has seen may take to become durable before it counts as behind (default 2 s). */
  readonly catchUpMs?: number
}

/**
 * The check any EventLog allows: the log answers a read of its newest durable event in time (on a shared database,
 * a query), and what this node has seen of the log becomes durable here within `catchUpMs` (a log that stopped
 * taking writes, or a node still reading in what others committed, is behind).
 */
export function eventLogHealth(store: EventLog, options: EventLogHealthOptions = {}): () => Promise<LogHealth> {
  const readTimeoutMs = options.readTimeoutMs ?? 2_000
  const catchUpMs = options.catchUpMs ?? 2_000
  return async () => {
    if (store.isClosed) return 'closed'
    const seen = store.headPosition
    const newest = store.durableHeadPosition
    try {
      if (newest > 0 && (await withDeadline(store.readEvent(newest), readTimeoutMs)) === TIMED_OUT) return 'unreachable'
    } catch {
      return store.isClosed ? 'closed' : 'unreachable'
    }
    const deadline = Date.now() + catchUpMs
    while (store.durableHeadPosition < seen) {
      if (store.isClosed) return 'closed'
      if (Date.now() >= deadline) return 'behind'
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    return 'ok'
  }
}

const TIMED_OUT = Symbol('timed out')

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(() => resolve(TIMED_OUT), ms)))
  // A read that answers after the deadline, or fails then, is of no interest to anyone.
  promise.catch(() => undefined)
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer))
}

/** One check at a time however often the load balancer asks: concurrent requests share the one in flight. */
function coalesced(check: () => Promise<LogHealth>): () => Promise<LogHealth> {
  let running: Promise<LogHealth> | undefined
  return () => (running ??= check().finally(() => (running = undefined)))
}
