import { Agent, request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchDaemon, type Daemon } from '../support/mcpHarness.js'

/**
 * A client (or a load balancer in front of several nodes) keeps its connection to the daemon open between requests.
 * Node would close it after 5 s idle, and a request sent as it closes fails with "other side closed" without the
 * daemon ever seeing it (CI saw exactly that after a test's 5 s pause). The daemon holds idle connections longer
 * than the usual 60 s of proxies, so the client's side closes first.
 */
describe('the daemon\'s idle keep-alive connections', () => {
  let daemon: Daemon
  beforeAll(async () => {
    daemon = await launchDaemon()
  })
  afterAll(async () => {
    await daemon?.stop()
  })

  it('take the next request on the same connection after 6 s of quiet, and say how long they stay open', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const get = () =>
        new Promise<{ status: number; port: number; keepAlive: string }>((resolve, reject) => {
          const sent = request(`${daemon.url}/healthz`, { agent }, (response) => {
            response.resume()
            response.on('end', () => resolve({ status: response.statusCode!, port: sent.socket!.localPort!, keepAlive: String(response.headers['keep-alive']) }))
          })
          sent.on('error', reject)
          sent.end()
        })
      const first = await get()
      await new Promise((resolve) => setTimeout(resolve, 6_000))
      const second = await get()
      expect(second.status).toBe(first.status)
      expect(second.port).toBe(first.port)
      expect(first.keepAlive).toBe('timeout=65')
    } finally {
      agent.destroy()
    }
  })
})
