import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocketServer } from 'ws'
import { setupWSConnection } from '@y/websocket-server/utils'

/**
 * The reference for the fan-out benchmark: @y/websocket-server 0.1.1 set up exactly as its own `server.js` does (a
 * `ws` server without its own HTTP server, `setupWSConnection` per connection, no persistence: documents live in
 * memory only), on 127.0.0.1 and a free port, which it sends to the parent. Runs until killed.
 */
const wss = new WebSocketServer({ noServer: true })
wss.on('connection', setupWSConnection)
const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'text/plain' })
  response.end('okay')
})
server.on('upgrade', (request, socket, head) => {
  wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request))
})
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port })
})
process.on('SIGTERM', () => process.exit(0))
