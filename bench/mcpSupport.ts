import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { fmtMs, now, percentile, random } from './util.js'

/**
 * Shared helpers of the MCP benchmarks (mcpWrite, mcpThroughput, mcpFilesystem): MCP servers in child processes
 * reached through the real MCP SDK client (stdio, or the daemon over Streamable HTTP), a tool call that fails loudly,
 * CPU time of a child from /proc, and Markdown text of a given size.
 *
 * Deliberately independent of specs/support/mcpHarness.ts (same way of launching, see there) so the tests and the
 * benchmarks can change apart; unlike that harness it always drains the child's stderr, so a chatty server can
 * never block on a full pipe in the middle of a timed loop.
 */

/** The compiled CLI (dist/adapters/cli/main.js) next to this compiled file (dist/bench/). */
export const CLI = fileURLToPath(new URL('../adapters/cli/main.js', import.meta.url))

/** `@modelcontextprotocol/server-filesystem`'s entry point, started as its README says (`node …/dist/index.js DIR`). */
export const FILESYSTEM_SERVER = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', import.meta.url))

export function filesystemServerVersion(): string {
  const manifest = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/server-filesystem/package.json', import.meta.url))
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version
}

/** A connected MCP client. */
export interface McpConnection {
  readonly client: Client
  /** The server's pid (for CPU accounting), when it is a child of this process. */
  readonly pid: number | undefined
  /** Calls a tool; throws if the call fails or the tool answers `isError`. Returns the structured content (or {}). */
  call(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>>
  /** Like `call`, but returns the raw result (for byte counts). */
  callRaw(tool: string, args: Record<string, unknown>): Promise<CallToolResult>
  close(): Promise<void>
}

/** No request of these benchmarks should take this long; the SDK's default (60 s) would hide a hang for too long. */
const REQUEST_TIMEOUT_MS = 30_000

function connection(client: Client, pid: () => number | undefined, stderr: () => string, beforeClose: () => Promise<void> = async () => {}): McpConnection {
  const callRaw = async (tool: string, args: Record<string, unknown>): Promise<CallToolResult> => {
    const result = (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: REQUEST_TIMEOUT_MS })) as CallToolResult
    if (result.isError) {
      const first = result.content[0]
      const text = first?.type === 'text' ? first.text : JSON.stringify(result.content)
      throw new Error(`${tool} ${JSON.stringify(args).slice(0, 200)} failed: ${text.slice(0, 500)}\n${stderr().slice(-2000)}`)
    }
    return result
  }
  return {
    client,
    get pid() {
      return pid()
    },
    callRaw,
    async call(tool, args) {
      return ((await callRaw(tool, args)).structuredContent as Record<string, unknown> | undefined) ?? {}
    },
    async close() {
      await beforeClose().catch(() => {})
      await client.close().catch(() => {})
    },
  }
}

/** Keeps the last `limit` characters a stream produced, and keeps the stream flowing. */
function tail(stream: { on(event: 'data', listener: (chunk: Buffer) => void): unknown } | null | undefined, limit = 8_192): () => string {
  let text = ''
  stream?.on('data', (chunk: Buffer) => {
    text = (text + chunk.toString()).slice(-limit)
  })
  return () => text
}

/** The environment a child gets: this process's, minus anything that would point it at another data directory. */
function childEnv(): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && key !== 'QUIRE_HOME' && key !== 'QUIRE_TOKEN') env[key] = value
  return env
}

/** Any MCP server over stdio: `node script args…`, spawned by the SDK's stdio client transport. */
export async function launchStdio(script: string, args: readonly string[], name: string, nodeArgs: readonly string[] = []): Promise<McpConnection> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [...nodeArgs, script, ...args], env: childEnv(), stderr: 'pipe' })
  const stderr = tail(transport.stderr)
  const client = new Client({ name: `quire-bench-${name}`, version: '1.0.0' })
  await client.connect(transport)
  return connection(client, () => transport.pid ?? undefined, stderr)
}

/**
 * The review backlog limit of every data directory these benchmarks start Quire on, instead of the default 20
 * (the setting `reviewBacklogLimit`, DOC.WRITE.18): the benchmarks write hundreds of times per document with no
 * person reviewing in between, and at the default `document.write` would refuse with REVIEW_BACKLOG_FULL after 20.
 * 100,000 is the setting's maximum.
 */
export const BENCH_REVIEW_BACKLOG_LIMIT = 100_000

/** What the MCP benchmarks print about it, so a reader of the output knows the limit was raised. */
export const REVIEW_BACKLOG_NOTE =
  `review backlog: reviewBacklogLimit set to ${BENCH_REVIEW_BACKLOG_LIMIT.toLocaleString('en-US')} (the default is 20) ` +
  'in the data directory before the server starts, so no write is refused with REVIEW_BACKLOG_FULL'

/**
 * Sets the review backlog limit of the data directory `home` the way a person would, `quire settings set`, before
 * any server owns it (so the CLI writes the setting through the embedded core).
 */
async function raiseReviewBacklogLimit(home: string): Promise<void> {
  await promisify(execFile)(process.execPath, [CLI, '--home', home, 'settings', 'set', 'reviewBacklogLimit', String(BENCH_REVIEW_BACKLOG_LIMIT)], {
    env: childEnv(),
  })
}

/**
 * `quire mcp --workspace DIR` over stdio, with its own data directory `home` (embedded core, no daemon), its review
 * backlog limit raised first (BENCH_REVIEW_BACKLOG_LIMIT).
 * QUIRE_BENCH_MCP_NODE_ARGS adds Node flags to the server (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
export async function launchQuireStdio(home: string, workspace: string): Promise<McpConnection> {
  await raiseReviewBacklogLimit(home)
  return launchStdio(CLI, ['--home', home, 'mcp', '--workspace', workspace], 'quire-stdio', serverNodeArgs())
}

/** `@modelcontextprotocol/server-filesystem` over stdio, allowed `dir`. */
export function launchFilesystem(dir: string): Promise<McpConnection> {
  return launchStdio(FILESYSTEM_SERVER, [dir], 'server-filesystem', serverNodeArgs())
}

function serverNodeArgs(): string[] {
  return (process.env.QUIRE_BENCH_MCP_NODE_ARGS ?? '').split(' ').filter((arg) => arg.length > 0)
}

/** An MCP server in a child process, reached over Streamable HTTP. */
export interface Daemon {
  readonly pid: number
  connect(name: string): Promise<McpConnection>
  stop(): Promise<void>
}

/** `quire serve` in a child process, reached over Streamable HTTP, its review backlog limit raised first. */
export async function launchDaemon(home: string, workspace: string): Promise<Daemon> {
  await raiseReviewBacklogLimit(home)
  return launchHttp('quire serve', CLI, ['--home', home, 'serve', '--workspace', workspace], home)
}

/**
 * `node script args…` serving MCP over Streamable HTTP on loopback, reached once it has written `PORT:TOKEN` to
 * `portDir`/port (the way `quire serve` announces itself), every request with that bearer token.
 */
async function launchHttp(name: string, script: string, args: readonly string[], portDir: string): Promise<Daemon> {
  const child: ChildProcess = spawn(process.execPath, [...serverNodeArgs(), script, ...args], {
    env: childEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const stderr = tail(child.stderr)
  tail(child.stdout)
  const deadline = now() + 15_000
  let portFile: string | undefined
  while (now() < deadline) {
    portFile = await readFile(join(portDir, 'port'), 'utf8').catch(() => undefined)
    if (portFile) break
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: ${stderr()}`)
    await sleep(25)
  }
  if (!portFile) {
    child.kill('SIGKILL')
    throw new Error(`${name} wrote no port file in 15 s: ${stderr()}`)
  }
  const [port, token] = portFile.trim().split(':') as [string, string]
  const url = new URL('/mcp', `http://127.0.0.1:${port}`)
  return {
    pid: child.pid!,
    async connect(clientName) {
      const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } })
      const client = new Client({ name: `quire-bench-${clientName}`, version: '1.0.0' })
      await client.connect(transport)
      return connection(client, () => child.pid, stderr, () => transport.terminateSession())
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        await exited
      }
    },
  }
}

/** The minimal MCP server of the protocol floor (mcpFloorServer.ts), compiled next to this file. */
const PROTOCOL_FLOOR_SERVER = fileURLToPath(new URL('./mcpFloorServer.js', import.meta.url))

/** The protocol floor's server over stdio, launched as Quire's is; `dir` (which must exist) holds its data. */
export function launchProtocolFloorStdio(dir: string): Promise<McpConnection> {
  return launchStdio(PROTOCOL_FLOOR_SERVER, ['--dir', dir, 'stdio'], 'protocol-floor', serverNodeArgs())
}

/** The protocol floor's server over Streamable HTTP, launched as `quire serve` is; `dir` (which must exist) holds its data. */
export function launchProtocolFloorHttp(dir: string): Promise<Daemon> {
  return launchHttp('the protocol floor server', PROTOCOL_FLOOR_SERVER, ['--dir', dir, 'http'], dir)
}

/** Re-exported so the benchmarks that only need the floor's file write keep importing it from here. */
export { atomicWriteFsync } from './floorWrite.js'

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on every Linux this runs on). */
const USER_HZ = 100

/** User + system CPU time of a process so far, in ms (from /proc; NaN where there is no /proc). */
export function processCpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name (which may contain spaces, hence the last ')'): utime is the 14th field overall.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(fields[11]) + Number(fields[12])) / USER_HZ) * 1000
  } catch {
    return Number.NaN
  }
}

/** This process's user + system CPU time so far, in ms. */
export function selfCpuMs(): number {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

/** Latency statistics of one series, in ms. */
export interface Series {
  readonly label: string
  readonly latencies: number[]
  readonly milliseconds: number
  /** CPU time (ms) spent meanwhile by the server process, when known. */
  readonly serverCpuMs?: number
  /** CPU time (ms) spent meanwhile by this (client) process. */
  readonly clientCpuMs?: number
}

export const p50 = (series: Series): number => percentile(series.latencies, 50)
export const p99 = (series: Series): number => percentile(series.latencies, 99)
export const mean = (values: readonly number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length

export function pooled(label: string, parts: readonly Series[]): Series {
  const sum = (pick: (series: Series) => number | undefined) => parts.reduce((total, series) => total + (pick(series) ?? Number.NaN), 0)
  return {
    label,
    latencies: parts.flatMap((series) => series.latencies),
    milliseconds: sum((series) => series.milliseconds),
    serverCpuMs: sum((series) => series.serverCpuMs),
    clientCpuMs: sum((series) => series.clientCpuMs),
  }
}

/** CPU per operation as text, or '-' when unknown. */
export const cpuPerOp = (cpuMs: number | undefined, count: number): string =>
  cpuMs === undefined || Number.isNaN(cpuMs) ? '-' : fmtMs(cpuMs / count)

/**
 * Runs `operation` back to back for `ms` (at least `minCount` times), timing each call. `serverPid` is sampled
 * before and after for its CPU time.
 */
export async function timeLoop(label: string, ms: number, minCount: number, serverPid: number | undefined, operation: (index: number) => Promise<void>): Promise<Series> {
  const latencies: number[] = []
  const serverCpu = processCpuMs(serverPid)
  const clientCpu = selfCpuMs()
  const started = now()
  const deadline = started + ms
  for (let index = 0, t = started; t < deadline || index < minCount; index++) {
    await operation(index)
    const end = now()
    latencies.push(end - t)
    t = end
  }
  return {
    label,
    latencies,
    milliseconds: now() - started,
    serverCpuMs: processCpuMs(serverPid) - serverCpu,
    clientCpuMs: selfCpuMs() - clientCpu,
  }
}

// --- Markdown text of a given size -----------------------------------------------------------------------------


const WORDS = (
  'the a of to and in is it that for on with as was by this be are from at an or which have not but had his they ' +
  'you were their one all we can her has there been if more when will would who so no event log revision document ' +
  'journal editor markdown peer cursor snapshot stream replay durable commit write save file tab window workspace ' +
  'selection paragraph heading section change update merge diff conflict version history audit store index query ' +
  'schema projection fold apply encode decode buffer latency throughput benchmark ratio target reference measure'
).split(' ')

/** One Markdown block (a paragraph, a heading, a list or a quote) of exactly `length` ASCII characters plus "\n\n". */
function block(next: () => number, length: number): string {
  const pick = () => WORDS[Math.floor(next() * WORDS.length)]!
  const kind = next()
  const prefix = kind < 0.1 ? '## ' : kind < 0.2 ? '- ' : kind < 0.25 ? '> ' : ''
  let text = prefix
  while (text.length < length) {
    let word = pick()
    if (text === prefix || text.endsWith('. ')) word = word[0]!.toUpperCase() + word.slice(1)
    text += word + (next() < 0.08 ? '. ' : ' ')
  }
  text = text.slice(0, length - 1)
  return `${text.trimEnd().padEnd(length - 1, 'x')}.\n\n`
}

/** How each `document.write` of a benchmark changes the text it writes, relative to the text before it. */
export type EditKind = 'edit' | 'paragraph' | 'new-text'

export const EDIT_KINDS: readonly EditKind[] = ['edit', 'paragraph', 'new-text']

export const describeEdit: Record<EditKind, string> = {
  edit: 'an 8-character word-sized edit at a random place',
  paragraph: 'one ~500-byte paragraph rewritten with new words',
  'new-text': 'a whole new text (fresh paragraphs throughout)',
}

/**
 * A Markdown document (ASCII, so bytes = characters) of blocks of about 500 bytes: paragraphs, headings, list items
 * and quotes. `next(kind)` changes it and returns the new full text, always exactly `bytes` long, so every write of a
 * benchmark sends the same number of bytes whatever it changed. Deterministic: the same seed gives the same texts.
 */
export class MarkdownText {
  private blocks: string[]
  private readonly next: () => number
  private generation = 0

  constructor(
    readonly bytes: number,
    private readonly seed = 1,
  ) {
    this.next = random(seed)
    this.blocks = MarkdownText.blocksOf(bytes, this.next)
  }

  private static blocksOf(bytes: number, next: () => number): string[] {
    const count = Math.max(1, Math.round(bytes / 500))
    const lengths = Array.from({ length: count }, (_, index) => Math.floor(bytes / count) + (index < bytes % count ? 1 : 0))
    return lengths.map((length) => block(next, length - 2))
  }

  get text(): string {
    return this.blocks.join('')
  }

  /** Changes the text as `kind` says and returns the new text. */
  change(kind: EditKind): string {
    this.generation++
    if (kind === 'new-text') {
      this.blocks = MarkdownText.blocksOf(this.bytes, random(this.seed * 1_000_003 + this.generation))
    } else {
      const at = Math.floor(this.next() * this.blocks.length)
      const old = this.blocks[at]!
      if (kind === 'paragraph') {
        this.blocks[at] = block(this.next, old.length - 2)
      } else {
        // The lowercase letters of eight characters inside the block shifted to other letters (the rest kept).
        const body = old.length - 3
        const start = Math.floor(this.next() * Math.max(1, body - 8))
        const shift = 1 + Math.floor(this.next() * 25)
        const edited = [...old.slice(start, start + 8)]
          .map((char) => (char >= 'a' && char <= 'z' ? String.fromCharCode(97 + ((char.charCodeAt(0) - 97 + shift) % 26)) : char))
          .join('')
        this.blocks[at] = old.slice(0, start) + edited + old.slice(start + 8)
      }
    }
    return this.text
  }
}
