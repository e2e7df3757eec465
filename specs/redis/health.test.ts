import { request } from 'node:http'
import { rm } from 'node:fs/promises'
import { afterAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { healthRoutes } from '../../adapters/http/healthRoute.js'
import { startHttpServer } from '../../adapters/http/daemon.js'
import { openQuire } from '../../adapters/host/quire.js'
import { PostgresEventLog } from '../../adapters/postgres/postgresEventLog.js'
import { PresenceBus } from '../../adapters/redis/presenceBus.js'
import { defineEvent, EventRegistry } from '../../core/events/schema.js'
import { launchDaemon, tempDir } from '../support/mcpHarness.js'
import { until } from '../support/collabPeers.js'
import { startRestartablePostgres, type RestartablePostgres } from '../support/postgresServer.js'
import { startTestRedis, type TestRedis } from '../support/redisServer.js'

/**
 * GET /healthz and GET /readyz for a load balancer (issue 17, item 4): no token, any Host header, JSON bodies that
 * say what was found and nothing of the data; /readyz is 503 when the log cannot be read or the node is shutting
 * down, and reports presence through Redis without ever being unready for it.
 */

interface Answer {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly body: unknown
}

/** A GET with the Host header a load balancer might send (fetch refuses to set Host). */
function get(port: number, path: string, host = `127.0.0.1:${port}`): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port, path, method: 'GET', headers: { host } }, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (text += chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(text) as unknown }))
    })
    sent.on('error', reject)
    sent.end()
  })
}

const cleanups: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

describe('health and readiness on the daemon (quire serve)', () => {
  it('answers /healthz and /readyz without a token, under any Host, with JSON holding no data', async () => {
    const daemon = await launchDaemon()
    cleanups.push(() => daemon.stop())
    const alive = await get(daemon.port, '/healthz')
    expect(alive).toMatchObject({ status: 200, body: { status: 'alive' } })
    expect(alive.headers['content-type']).toMatch(/^application\/json/)
    expect(alive.headers['cache-control']).toBe('no-store')
    const ready = await get(daemon.port, '/readyz')
    expect(ready).toMatchObject({ status: 200 })
    // Exactly these fields: no positions, paths, names or tokens.
    expect(ready.body).toEqual({ ready: true, status: 'ready', log: 'ok' })

    // A load balancer's name for the node is fine here, and only here: the Host guard still holds everywhere else.
    expect(await get(daemon.port, '/readyz', 'quire-node-1:4100')).toMatchObject({ status: 200, body: { ready: true } })
    expect(await get(daemon.port, '/healthz', 'quire-node-1:4100')).toMatchObject({ status: 200 })
    expect(await get(daemon.port, '/mcp', 'quire-node-1:4100')).toMatchObject({ status: 403, body: { error: 'forbidden host' } })
    // And everything else still wants a token.
    expect((await get(daemon.port, '/admin/status')).status).toBe(401)
  })
})

describe('readiness with presence through Redis', () => {
  let redis: TestRedis
  it('reports the presence bus, connected then degraded, and stays ready while Redis is down', async () => {
    redis = await startTestRedis()
    cleanups.push(() => redis.stop())
    const home = await tempDir('quire-health-')
    const quire = await openQuire(home, { watchDisk: false })
    const bus = new PresenceBus({ redis: redis.url, presence: quire.services.presence, nodeId: 'node-health', reconnectMaxMs: 200 })
    const http = await startHttpServer(quire.services, { presenceBus: bus })
    cleanups.push(async () => {
      await http.close()
      await bus.close()
      await quire.close()
      await rm(home, { recursive: true, force: true })
    })
    await bus.connected()
    expect(await get(http.port, '/readyz')).toMatchObject({ status: 200, body: { ready: true, status: 'ready', log: 'ok', presence: 'connected' } })

    await redis.kill()
    await until('the bus to degrade', () => bus.status.state === 'degraded')
    const degraded = await get(http.port, '/readyz')
    expect(degraded).toMatchObject({ status: 200, body: { ready: true, log: 'ok', presence: 'degraded' } })
    // The reason names where Redis is: the operator reads it in the daemon's output, not from an open endpoint.
    expect(JSON.stringify(degraded.body)).not.toContain('redis.sock')

    await redis.restart()
    await bus.connected(20_000)
    expect(await get(http.port, '/readyz')).toMatchObject({ status: 200, body: { presence: 'connected' } })
  })
})

describe('readiness of the log', () => {
  const Noted = defineEvent({ type: 'noted', version: 1, schema: z.object({ id: z.string() }) })
  let postgres: RestartablePostgres

  it('is 503 "unreachable" while PostgreSQL is down, and ready again once it is back', async () => {
    postgres = await startRestartablePostgres()
    cleanups.push(() => postgres.stop())
    const log = await PostgresEventLog.open(await postgres.createDatabase(), { registry: new EventRegistry([Noted]), writeRetryWindowMs: 500, closeTimeoutMs: 2_000, connectTimeoutMs: 1_000 })
    cleanups.push(() => log.close())
    await (await log.append([{ stream: 'notes', events: [{ type: 'noted', data: { id: 'one' }, actor: { kind: 'system' } }] }])).durable
    const app = healthRoutes({ store: log, closing: () => false })
    const readyz = async () => {
      const response = await app.request('/readyz')
      return { status: response.status, body: (await response.json()) as unknown }
    }
    expect(await readyz()).toEqual({ status: 200, body: { ready: true, status: 'ready', log: 'ok' } })

    postgres.stopServer()
    expect(await readyz()).toEqual({ status: 503, body: { ready: false, status: 'not-ready', log: 'unreachable' } })

    postgres.startServer()
    let answer = await readyz()
    // The pool reconnects on the next query: readiness follows without a restart of anything.
    for (let attempt = 0; answer.status !== 200 && attempt < 100; attempt++) answer = await readyz()
    expect(answer).toEqual({ status: 200, body: { ready: true, status: 'ready', log: 'ok' } })
  })

  it('is 503 "closing" while the server shuts down, and "closed" once the log is', async () => {
    const home = await tempDir('quire-health-')
    const quire = await openQuire(home, { watchDisk: false })
    let closing = false
    const app = healthRoutes({ store: quire.services.engine.store, closing: () => closing })
    expect((await app.request('/readyz')).status).toBe(200)
    closing = true
    const shuttingDown = await app.request('/readyz')
    expect({ status: shuttingDown.status, body: await shuttingDown.json() }).toEqual({ status: 503, body: { ready: false, status: 'closing', log: 'ok' } })
    await quire.close()
    closing = false
    const closed = await app.request('/readyz')
    expect({ status: closed.status, body: await closed.json() }).toEqual({ status: 503, body: { ready: false, status: 'not-ready', log: 'closed' } })
    // The process is still alive: /healthz says so whatever the log does.
    expect((await app.request('/healthz')).status).toBe(200)
    await rm(home, { recursive: true, force: true })
  })
})
