import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import { rename, writeFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { ClassicLevel } from 'classic-level'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { durableWrite, floorKey, floorWrite } from './floorWrite.js'

/**
 * `node dist/bench/mcpFloorServer.js --dir DIR stdio|http`: the protocol floor of issue 16, the least any MCP server
 * with the floor's durability can cost. The MCP SDK's own McpServer, over its own StdioServerTransport (as
 * `quire mcp` is reached) or its own Streamable HTTP transport on loopback (as `quire serve` is: it writes
 * `PORT:TOKEN` to DIR/port and wants that bearer token), with a tool `floor_write` whose zod-strict input is
 * `{ content: string }` (as Quire's schemas are strict) and whose work is exactly the raw floor's (floorWrite.ts):
 * one synced classic-level put of the content under a fresh key, then an atomic fsync'd replace of the session's
 * own file. A second tool, `durable_write`, same input, does Quire's durability sequence instead (floorWrite.ts's
 * durableWrite, the work of mcp-write's "durability alone": synced puts of the text and of 64 bytes, the atomic write
 * of the session's second file, a synced put of 200 bytes), so the least an MCP server that waits for what a saved
 * document.write waits for can cost is measured too. Each answers a small JSON object as text and as structured
 * content, as Quire's tools do.
 *
 * So what a benchmark measures against it is the JSON-RPC framing, the parse of the argument, the validated tool
 * dispatch and the answer, on top of the disk: nothing of an editor. DIR holds the LevelDB (DIR/db), one file per
 * MCP session and tool (DIR/session-N.md, DIR/session-N-durable.md) and, over HTTP, the port file; the benchmark
 * that made DIR removes it.
 */

const { values, positionals } = parseArgs({ options: { dir: { type: 'string' } }, allowPositionals: true })
function usage(): never {
  process.stderr.write('usage: node dist/bench/mcpFloorServer.js --dir DIR stdio|http\n')
  process.exit(2)
}
const dir = values.dir ?? usage()
const mode = positionals.length === 1 && (positionals[0] === 'stdio' || positionals[0] === 'http') ? positionals[0] : usage()

const db = new ClassicLevel<string, Uint8Array>(join(dir, 'db'), { valueEncoding: 'view' })
await db.open()
/** One counter for every session: keys never repeat, so each put is a fresh key, as a journal's appends are. */
let writes = 0
/** The durability sequence's keys, a range of their own (durableKey), never repeating either. */
const durableWrites = { n: 0 }
let sessions = 0

const FloorWriteArguments = z.object({ content: z.string() }).strict()

/** One MCP server (the SDK binds a server to one transport, so one per session), writing its session's own file. */
function floorServer(): McpServer {
  const session = sessions++
  const path = join(dir, `session-${session}.md`)
  const durablePath = join(dir, `session-${session}-durable.md`)
  const server = new McpServer({ name: 'quire-bench-protocol-floor', version: '1.0.0' })
  server.registerTool(
    'floor_write',
    {
      description: "Writes `content` durably: a synced LevelDB put, then an fsync'd atomic replace of this session's file.",
      inputSchema: FloorWriteArguments,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async ({ content }): Promise<CallToolResult> => {
      const bytes = Buffer.from(content, 'utf8')
      const key = floorKey(writes++)
      await floorWrite(db, key, path, bytes)
      const answer = { written: true, durable: true, key, bytes: bytes.byteLength, path }
      return { content: [{ type: 'text', text: JSON.stringify(answer, null, 2) }], structuredContent: answer }
    },
  )
  server.registerTool(
    'durable_write',
    {
      description:
        "Writes `content` as a saved document.write waits for: synced LevelDB puts of it and of 64 bytes, an fsync'd atomic " +
        "replace of this session's second file, a synced put of 200 bytes.",
      inputSchema: FloorWriteArguments,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async ({ content }): Promise<CallToolResult> => {
      const bytes = Buffer.from(content, 'utf8')
      await durableWrite(db, durableWrites, durablePath, bytes)
      const answer = { written: true, durable: true, bytes: bytes.byteLength, path: durablePath }
      return { content: [{ type: 'text', text: JSON.stringify(answer, null, 2) }], structuredContent: answer }
    },
  )
  return server
}

const open: McpServer[] = []
let stopping = false
const closers: (() => Promise<void>)[] = []

async function stop(): Promise<void> {
  if (stopping) return
  stopping = true
  for (const close of closers) await close().catch(() => {})
  await Promise.allSettled(open.map((server) => server.close()))
  await db.close()
  process.exit(0)
}
process.on('SIGTERM', () => void stop())
process.on('SIGINT', () => void stop())

if (mode === 'stdio') {
  const server = floorServer()
  open.push(server)
  // The client ends our stdin when it closes; the open LevelDB would otherwise keep this process alive.
  process.stdin.on('end', () => void stop())
  await server.connect(new StdioServerTransport())
} else {
  const token = randomBytes(32).toString('hex')
  const expected = Buffer.from(`Bearer ${token}`)
  const authorized = (request: IncomingMessage): boolean => {
    const presented = Buffer.from(request.headers.authorization ?? '')
    return presented.length === expected.length && timingSafeEqual(presented, expected)
  }
  const transports = new Map<string, StreamableHTTPServerTransport>()
  const refuse = (response: ServerResponse, status: number, message: string) => {
    response.writeHead(status, { 'content-type': 'application/json' })
    response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }))
  }
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (new URL(request.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp') return refuse(response, 404, 'no route')
    if (!authorized(request)) return refuse(response, 401, 'a bearer token is required')
    const sessionId = request.headers['mcp-session-id']
    if (typeof sessionId === 'string') {
      const transport = transports.get(sessionId)
      if (!transport) return refuse(response, 404, 'Session not found')
      return transport.handleRequest(request, response)
    }
    if (request.method !== 'POST') return refuse(response, 400, 'no MCP session; initialize first')
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        transports.set(id, transport)
      },
      onsessionclosed: (id) => {
        transports.delete(id)
      },
    })
    const server = floorServer()
    open.push(server)
    await server.connect(transport)
    await transport.handleRequest(request, response)
  }
  const http = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) refuse(response, 500, error instanceof Error ? error.message : String(error))
      else response.destroy()
    })
  })
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve())
        http.closeAllConnections()
      }),
  )
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const { port } = http.address() as AddressInfo
  // Written whole then renamed, so the benchmark polling for it never reads half a port file.
  const portFile = join(dir, 'port')
  await writeFile(`${portFile}.tmp`, `${port}:${token}\n`, { mode: 0o600 })
  await rename(`${portFile}.tmp`, portFile)
}
