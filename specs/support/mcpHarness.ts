import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import { openQuire, type Quire, type QuireOptions } from '../../adapters/host/quire.js'
import { createMcpServer } from '../../adapters/mcp/server.js'
import { testStoreEnv, withTestStore } from './testStore.js'

/** The repository root and the compiled CLI the end-to-end harnesses run (`npm test` builds first). */
export const REPO_ROOT = new URL('../../', import.meta.url).pathname.replace(/\/dist\/$/, '/')
export const CLI = join(REPO_ROOT, 'dist/adapters/cli/main.js')

export type Transport = 'stdio' | 'http'

/** A connected MCP client and everything to tear down after it. */
export interface Session {
  readonly client: Client
  readonly home: string
  /** Calls a tool and returns the result with its text and structured content at hand. */
  call(tool: string, args: Record<string, unknown>): Promise<ToolResult>
  close(): Promise<void>
}

export interface ToolResult {
  readonly isError: boolean
  readonly text: string
  readonly structured: Record<string, unknown> | undefined
  readonly raw: CallToolResult
  /**
   * Whether the SDK client checked `structured` against the tool's declared outputSchema (it does for every result of
   * a tool that declares one, once it has read tools/list; a result that does not match makes the call throw).
   */
  readonly validated: boolean
}

export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix))
}

/**
 * Calls a tool the way the harness does: with the SDK client, which validates each result's structuredContent against
 * the outputSchemas it last read from tools/list. The listing is read before the first call, so every call made
 * through here is checked; a listing that fails is asked for again next time.
 */
export function toolCaller(client: Client): (tool: string, args: Record<string, unknown>) => Promise<ToolResult> {
  let listing: Promise<ReadonlyMap<string, Tool> | undefined> | undefined
  const listed = async () => {
    listing ??= client.listTools().then(({ tools }) => new Map(tools.map((tool) => [tool.name, tool])), () => undefined)
    const tools = await listing
    if (tools === undefined) listing = undefined
    return tools
  }
  return async (tool, args) => {
    const tools = await listed()
    const raw = (await client.callTool({ name: tool, arguments: args })) as CallToolResult
    const first = raw.content[0]
    return {
      isError: raw.isError === true,
      text: first?.type === 'text' ? first.text : '',
      structured: raw.structuredContent as Record<string, unknown> | undefined,
      raw,
      validated: tools?.get(tool)?.outputSchema !== undefined,
    }
  }
}

function session(client: Client, home: string, cleanup: () => Promise<void>): Session {
  return {
    client,
    home,
    call: toolCaller(client),
    async close() {
      await client.close().catch(() => {})
      await cleanup()
    },
  }
}

export interface LaunchOptions {
  /** Folders opened as workspaces by the person (`--workspace`). */
  readonly workspaces?: readonly string[]
  /** An existing data directory (default: a fresh one, removed on close). */
  readonly home?: string
  readonly env?: Record<string, string>
}

/** `quire mcp` over stdio, spawned as an AI client would (embedded core: no daemon runs). */
export async function launchStdio(options: LaunchOptions = {}): Promise<Session> {
  const home = options.home ?? (await tempDir('quire-mcp-'))
  const args = [CLI, '--home', home, 'mcp', ...(options.workspaces ?? []).flatMap((folder) => ['--workspace', folder])]
  const transport = new StdioClientTransport({ command: process.execPath, args, env: { ...inheritedEnv(), ...testStoreEnv(home), ...options.env }, stderr: 'pipe' })
  const client = new Client({ name: 'quire-conformance', version: '1.0.0' })
  await client.connect(transport)
  return session(client, home, async () => {
    if (!options.home) await rm(home, { recursive: true, force: true })
  })
}

/** The daemon (`quire serve`) in a child process, reached over Streamable HTTP with a bearer token. */
export interface Daemon {
  readonly home: string
  readonly port: number
  /** The port file's access token. */
  readonly token: string
  readonly url: string
  readonly process: ChildProcess
  connect(token?: string): Promise<Session>
  stop(): Promise<void>
}

/** An MCP client over Streamable HTTP to a Quire server on `port` (a daemon, or one started in this process). */
export async function connectHttp(port: number, token: string, home = ''): Promise<Session> {
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  })
  const client = new Client({ name: 'quire-conformance', version: '1.0.0' })
  await client.connect(transport)
  return session(client, home, async () => {})
}

export async function launchDaemon(options: LaunchOptions = {}): Promise<Daemon> {
  const home = options.home ?? (await tempDir('quire-serve-'))
  // A port file left by a daemon that was killed would be mistaken for the new one's.
  await rm(join(home, 'port'), { force: true })
  const child = spawn(process.execPath, [CLI, '--home', home, 'serve', ...(options.workspaces ?? []).flatMap((folder) => ['--workspace', folder])], {
    env: { ...inheritedEnv(), ...testStoreEnv(home), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const deadline = Date.now() + 15_000
  let portFile: string | undefined
  while (Date.now() < deadline) {
    portFile = await readFile(join(home, 'port'), 'utf8').catch(() => undefined)
    if (portFile) break
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`quire serve exited (${child.exitCode ?? child.signalCode}): ${stderr}`)
    await sleep(25)
  }
  if (!portFile) throw new Error(`quire serve wrote no port file in 15 s: ${stderr}`)
  const [port, token] = portFile.trim().split(':') as [string, string]
  const url = `http://127.0.0.1:${port}`
  return {
    home,
    port: Number(port),
    token,
    url,
    process: child,
    connect: (presented = token) => connectHttp(Number(port), presented, home),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM')
        await new Promise((resolve) => child.once('exit', resolve))
      }
      if (!options.home) await rm(home, { recursive: true, force: true })
    },
  }
}

/** A session over the given transport, with the daemon (for HTTP) stopped on close. */
export async function launch(transport: Transport, options: LaunchOptions = {}): Promise<Session> {
  if (transport === 'stdio') return launchStdio(options)
  const daemon = await launchDaemon(options)
  const connected = await daemon.connect()
  return { ...connected, close: async () => { await connected.close(); await daemon.stop() } }
}

/**
 * The core in this process behind an in-memory MCP transport, for rules that need an injected fault (a failing or
 * slow disk, a slow log, a save paused at a given step). Same server code as the real transports.
 */
export async function launchInProcess(options: QuireOptions & { home?: string; connection?: string; principal?: string | null } = {}): Promise<Session & { quire: Quire }> {
  const home = options.home ?? (await tempDir('quire-inproc-'))
  const quire = await openQuire(home, withTestStore(home, options))
  const { client, server } = await connectInProcess(quire.services, options.connection ?? 'inproc-1', options.principal ?? null)
  const connected = session(client, home, async () => {
    await server.close()
    await quire.close()
    if (!options.home) await rm(home, { recursive: true, force: true })
  })
  return { ...connected, quire }
}

/** A real MCP client connected over an in-memory transport to a server on `services`, as `connection` of `principal`. */
export async function connectInProcess(services: Quire['services'], connection: string, principal: string | null): Promise<{ client: Client; server: ReturnType<typeof createMcpServer> }> {
  const server = createMcpServer({
    services,
    caller: { actor: { kind: 'mcp', principal: principal ?? 'anonymous', connection }, connection, principal },
  })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: 'quire-conformance', version: '1.0.0' })
  await client.connect(clientSide)
  return { client, server }
}

/** The environment a child gets: this process's, minus anything that would point it at another data directory. */
export function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && key !== 'QUIRE_HOME' && key !== 'QUIRE_TOKEN') env[key] = value
  return env
}
