import { fork } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { launchDaemon, type Daemon, type McpConnection } from './mcpSupport.js'

/**
 * The two servers of the fan-out benchmark behind one shape: each runs in its own child process (so its CPU time
 * and RSS are its own), and names documents its way — Quire's are created through MCP and addressed by id, the
 * reference creates a room on first connection.
 */
export interface FanoutServer {
  readonly name: string
  readonly pid: number
  /** The WebsocketProvider's serverUrl. */
  readonly url: string
  /** URL parameters every peer passes (Quire: the port file's token). */
  readonly params: Record<string, string>
  /** A fresh document holding `content`; its room name. */
  newDocument(content: string): Promise<string>
  stop(): Promise<void>
}

/**
 * `quire serve`: every peer update is an event, fsync'd before any other peer gets it; with `relay`, keystrokes go to
 * the other peers at once and are appended within `relay.windowMs` (adapters/collab/keystrokes.ts).
 */
export async function startQuire(home: string, workspace: string, relay?: { readonly windowMs: number }): Promise<FanoutServer & { restart(): Promise<FanoutServer> }> {
  const daemon: Daemon = await withEnvironment(
    relay ? { QUIRE_COLLAB_FANOUT: 'relay', QUIRE_COLLAB_APPEND_WINDOW_MS: String(relay.windowMs) } : { QUIRE_COLLAB_FANOUT: undefined },
    () => launchDaemon(home, workspace),
  )
  const [port, token] = (await readFile(join(home, 'port'), 'utf8')).trim().split(':') as [string, string]
  let mcp: McpConnection | undefined
  const server = {
    name: relay ? 'quire relay' : 'quire',
    pid: daemon.pid,
    url: `ws://127.0.0.1:${port}/collab`,
    params: { token },
    async newDocument(content: string) {
      mcp ??= await daemon.connect('fanout')
      const { tabId } = (await mcp.call('workspace', { action: 'new' })) as { tabId: string }
      if (content) await mcp.call('document', { action: 'write', tabId, content, save: false })
      const response = await fetch(`http://127.0.0.1:${port}/collab`, { headers: { authorization: `Bearer ${token}` } })
      const listing = (await response.json()) as { windows: { tabs: { tabId: string; docId: string }[] }[] }
      const docId = listing.windows.flatMap((window) => window.tabs).find((tab) => tab.tabId === tabId)?.docId
      if (!docId) throw new Error(`GET /collab does not list tab ${tabId}`)
      return docId
    },
    async stop() {
      await mcp?.close()
      mcp = undefined
      await daemon.stop()
    },
    /** Stops and starts the daemon on the same data directory: its documents are then on disk only, not loaded. */
    async restart() {
      await server.stop()
      return startQuire(home, workspace, relay)
    },
  }
  return server
}

/** Runs `body` with `variables` set in this process's environment (which the daemon's spawn copies), then restores them. */
async function withEnvironment<T>(variables: Record<string, string | undefined>, body: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(variables).map((key) => [key, process.env[key]]))
  const assign = (values: Record<string, string | undefined>) => {
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[key]
      else process.env[key] = value
    }
  }
  assign(variables)
  try {
    return await body()
  } finally {
    assign(saved)
  }
}

/** @y/websocket-server 0.1.1 (see fanoutReference.ts). */
export async function startReference(): Promise<FanoutServer> {
  const child = fork(fileURLToPath(new URL('fanoutReference.js', import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port))
    child.once('exit', (code) => reject(new Error(`the reference server exited with ${code}`)))
  })
  let rooms = 0
  return {
    name: 'y-websocket-server',
    pid: child.pid!,
    url: `ws://127.0.0.1:${port}`,
    params: {},
    // The reference holds only what peers bring: the first peer of a room uploads `content` (see the benchmark).
    newDocument: async () => `room-${++rooms}`,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    },
  }
}

/** Resident set size of a process now, in KiB (/proc/<pid>/status VmRSS). */
export function rssKiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return match ? Number(match[1]) : Number.NaN
}

/** CPU time (user + system, ms) of a process's threads: its main thread (the JavaScript) and all the others (libuv's pool: LevelDB's writes and fsyncs; LevelDB's compaction; V8's GC helpers). */
export interface ThreadCpu {
  readonly mainMs: number
  readonly otherMs: number
}

/** Clock ticks per second of /proc/<pid>/task/<tid>/stat (USER_HZ: 100 on every Linux this runs on). */
const USER_HZ = 100

/**
 * The split of {@link ThreadCpu} now, from /proc/<pid>/task. A thread that ended since an earlier reading takes its
 * time with it, so the split is read at both ends of a phase while the server runs steadily (its pool threads stay).
 */
export function threadCpuMs(pid: number): ThreadCpu {
  let mainMs = 0
  let otherMs = 0
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
    } catch {
      continue
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const ms = ((Number(fields[11]) + Number(fields[12])) / USER_HZ) * 1000
    if (Number(tid) === pid) mainMs += ms
    else otherMs += ms
  }
  return { mainMs, otherMs }
}
