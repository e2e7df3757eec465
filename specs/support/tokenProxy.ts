import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A loopback HTTP proxy standing in for a configured MCP client in front of the daemon: it adds the bearer token
 * and translates its own address in Host and Origin to the daemon's. Any other Host or Origin (a DNS-rebinding
 * attempt) is passed through untouched, so the daemon's own checks are what answers it.
 */
export async function startTokenProxy(targetPort: number, token: string): Promise<{ url: string; close(): Promise<void> }> {
  let ownPort = 0
  const server: Server = createServer((incoming, outgoing) => {
    const headers = { ...incoming.headers }
    const own = new Set([`127.0.0.1:${ownPort}`, `localhost:${ownPort}`])
    if (headers.host && own.has(headers.host)) headers.host = `127.0.0.1:${targetPort}`
    if (typeof headers.origin === 'string' && own.has(headers.origin.replace(/^http:\/\//, ''))) headers.origin = `http://127.0.0.1:${targetPort}`
    headers.authorization = `Bearer ${token}`
    const forward = request({ host: '127.0.0.1', port: targetPort, method: incoming.method, path: incoming.url, headers }, (response) => {
      outgoing.writeHead(response.statusCode ?? 502, response.headers)
      response.pipe(outgoing)
    })
    forward.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502)
      outgoing.end()
    })
    incoming.pipe(forward)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  ownPort = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${ownPort}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
