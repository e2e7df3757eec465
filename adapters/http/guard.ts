import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'

/**
 * DNS-rebinding and cross-origin protection: the Host header must name this server on a loopback address, or by one
 * of the names the operator allowed (`quire serve --allow-host`, for a node behind a load balancer), and an Origin,
 * when present, must be one of those too. Anything else gets 403 before any handler runs (MCP Streamable HTTP
 * security rules). An allowed name without a port is allowed on the server's port.
 */
export function loopbackOnly(port: () => number, allowed: readonly string[] = []): MiddlewareHandler {
  return async (c, next) => {
    const allowedHosts = new Set([`127.0.0.1:${port()}`, `localhost:${port()}`, `[::1]:${port()}`, ...allowed.map((name) => (/:\d+$/.test(name) ? name : `${name}:${port()}`).toLowerCase())])
    const host = c.req.header('host')
    if (!host || !allowedHosts.has(host.toLowerCase())) return c.json({ error: 'forbidden host' }, 403)
    const origin = c.req.header('origin')
    if (origin !== undefined && !allowedHosts.has(origin.replace(/^http:\/\//i, '').toLowerCase())) {
      return c.json({ error: 'forbidden origin' }, 403)
    }
    await next()
  }
}

/** The most the person's JSON APIs (`/admin`, `/console/api`) read of a request body: their bodies are small. */
export const MAX_API_BODY_BYTES = 1024 * 1024

/**
 * Refuses a body larger than `MAX_API_BODY_BYTES` with 413 and a JSON error before any handler parses it: at once
 * when Content-Length says so, else as soon as the streamed body passes the limit (issue 11, finding 11).
 */
export const apiBodyLimit = (): MiddlewareHandler =>
  bodyLimit({
    maxSize: MAX_API_BODY_BYTES,
    onError: (c) => c.json({ error: 'PAYLOAD_TOO_LARGE', message: `the request body is larger than ${MAX_API_BODY_BYTES / (1024 * 1024)} MiB` }, 413),
  })
