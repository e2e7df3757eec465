import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { startTestPostgres, type TestPostgres } from '../specs/support/postgresServer.js'
import { BENCH_REVIEW_BACKLOG_LIMIT, CLI } from './mcpSupport.js'
import { now, tempDir } from './util.js'

/**
 * The nodes benchmark's processes: `quire serve` nodes sharing one PostgreSQL log (QUIRE_STORE), each with its own
 * data directory, reached over Streamable HTTP; and the CPU time of the PostgreSQL cluster's server processes.
 */

/** No call of this benchmark should take this long; the SDK's 60 s default would hide a hang. */
const REQUEST_TIMEOUT_MS = 30_000
/** Clock ticks per second of /proc/<pid>/stat (USER_HZ). */
const USER_HZ = 100

export interface Node {
  readonly label: string
  readonly pid: number
  readonly port: number
  readonly token: string
  connect(name: string): Promise<NodeClient>
  /** The document id of a tab, as GET /collab lists it. */
  docIdOf(tabId: string): Promise<string>
  stop(): Promise<void>
}

export interface NodeClient {
  /** Calls a tool; throws with the tool's answer when it is an error. Returns the structured content. */
  call(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>>
  close(): Promise<void>
}

/** The environment a node gets: this process's, minus what would point it elsewhere, plus its store. */
function nodeEnv(store: string): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && key !== 'QUIRE_HOME' && key !== 'QUIRE_TOKEN') env[key] = value
  env['QUIRE_STORE'] = store
  return env
}

/**
 * One node on `store`. Its review backlog limit is raised first (as the MCP benchmarks do, see BENCH_REVIEW_BACKLOG_LIMIT):
 * every client writes hundreds of times with no person reviewing.
 */
export async function startNode(store: string, label: string): Promise<Node> {
  const home = await tempDir(`nodes-${label}`)
  const env = nodeEnv(store)
  await promisify(execFile)(process.execPath, [CLI, '--home', home.path, 'settings', 'set', 'reviewBacklogLimit', String(BENCH_REVIEW_BACKLOG_LIMIT)], { env })
  await rm(join(home.path, 'port'), { force: true })
  const child: ChildProcess = spawn(process.execPath, [CLI, '--home', home.path, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8_192))
  child.stdout!.on('data', keep)
  child.stderr!.on('data', keep)
  const deadline = now() + 20_000
  let portFile: string | undefined
  while (now() < deadline) {
    portFile = await readFile(join(home.path, 'port'), 'utf8').catch(() => undefined)
    if (portFile) break
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`node ${label}: quire serve exited (${child.exitCode ?? child.signalCode}): ${output}`)
    await sleep(25)
  }
  if (!portFile) {
    child.kill('SIGKILL')
    throw new Error(`node ${label}: quire serve wrote no port file in 20 s: ${output}`)
  }
  const [port, token] = portFile.trim().split(':') as [string, string]
  const base = `http://127.0.0.1:${port}`
  const headers = { authorization: `Bearer ${token}` }
  return {
    label,
    pid: child.pid!,
    port: Number(port),
    token,
    async connect(name) {
      const transport = new StreamableHTTPClientTransport(new URL('/mcp', base), { requestInit: { headers } })
      const client = new Client({ name: `quire-bench-nodes-${name}`, version: '1.0.0' })
      await client.connect(transport)
      return {
        async call(tool, args) {
          const result = (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: REQUEST_TIMEOUT_MS })) as CallToolResult
          if (result.isError) {
            const first = result.content[0]
            throw new Error(`node ${label}: ${tool} failed: ${(first?.type === 'text' ? first.text : JSON.stringify(result.content)).slice(0, 500)}`)
          }
          return (result.structuredContent as Record<string, unknown> | undefined) ?? {}
        },
        async close() {
          await transport.terminateSession().catch(() => {})
          await client.close().catch(() => {})
        },
      }
    },
    async docIdOf(tabId) {
      const response = await fetch(`${base}/collab`, { headers })
      const listing = (await response.json()) as { windows: { tabs: { tabId: string; docId: string }[] }[] }
      const docId = listing.windows.flatMap((window) => window.tabs).find((tab) => tab.tabId === tabId)?.docId
      if (!docId) throw new Error(`node ${label}: GET /collab does not list tab ${tabId}`)
      return docId
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        await exited
      }
      await home.remove()
    },
  }
}

function statFields(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return undefined
  }
}

/**
 * The CPU time (ms) of a PostgreSQL cluster's server processes, for a cluster on a unix socket in a directory of this
 * machine (the throwaway one: the socket directory holds data/postmaster.pid); undefined for any other server.
 * Counted: the postmaster's own time, its children's that have exited (its cutime + cstime: backends of closed
 * connections), and every live child's (backends, WAL writer, checkpointer…).
 */
export function postgresCpuReader(connectionString: string): (() => number) | undefined {
  const host = new URL(connectionString).searchParams.get('host')
  if (!host) return undefined
  let postmaster: number
  try {
    postmaster = Number(readFileSync(join(host, 'data', 'postmaster.pid'), 'utf8').split('\n')[0])
  } catch {
    return undefined
  }
  if (!Number.isInteger(postmaster) || postmaster <= 0) return undefined
  return () => {
    const own = statFields(postmaster)
    if (!own) return Number.NaN
    // utime, stime, cutime, cstime are fields 14–17 overall (11–14 after the command name and state).
    let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14])
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue
      const fields = statFields(entry)
      if (fields && Number(fields[1]) === postmaster) ticks += Number(fields[11]) + Number(fields[12])
    }
    return (ticks / USER_HZ) * 1000
  }
}

/** A PostgreSQL server for a benchmark, or why there is none (the benchmark then says it was skipped). */
export async function startServer(): Promise<TestPostgres | string> {
  try {
    return await startTestPostgres()
  } catch (error) {
    const message = (error as Error).message
    if (message.startsWith('PostgreSQL is not installed')) return message
    throw error
  }
}
