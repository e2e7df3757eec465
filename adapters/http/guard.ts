import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'

/**
 * DNS-rebinding and cross-origin protection for a loopback server: the Host header must name this server on a
 * loopback address, and an Origin, when present, must be this server's own origin. Anything else gets 403 before
 * any handler runs (MCP Streamable HTTP security rules).
 */
export function loopbackOnly(port: () => number): MiddlewareHandler {
  return async (c, next) => {
    const allowedHosts = new Set([`127.0.0.1:${port()}`, `localhost:${port()}`, `[::1]:${port()}`])
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
