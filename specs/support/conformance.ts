/**
 * Helpers for the conformance specs (specs/conformance/{ses,ws,doc,ann,err,conc}*.test.ts): a "rig" that keeps one
 * MCP session per describe block and can add further connections to the same process, the result-shape assertions
 * of TOOLS.md §12.1 (envelope vs plain string), the person's side through the real `quire` CLI (approvals, history,
 * log), and snapshots of everything a "changes nothing" rule talks about (tabs, document text and revision, file
 * bytes, the log head).
 */
import { lstat, mkdir, readdir, readFile, readlink, realpath, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { expect } from 'vitest'
import { openQuire, type QuireOptions } from '../../adapters/host/quire.js'
import type { Services } from '../../adapters/host/services.js'
import { USER } from '../../core/events/actor.js'
import { appendToView } from '../../core/streams/foldedStream.js'
import { openWorkspaceAsPerson, type Caller } from '../../core/workspace/commands.js'
import { runCli, type CliResult } from './cli.js'
import { launchDaemon, launchInProcess, launchStdio, tempDir, type LaunchOptions, type Session, type ToolResult, type Transport } from './mcpHarness.js'
import { withTestStore } from './testStore.js'

export type { Session, ToolResult, Transport }
export const TRANSPORTS: Transport[] = ['stdio', 'http']

// ---------------------------------------------------------------------------------------------------------------
// Fixtures

/** A fresh folder (its real path: approvals and tabs name real paths) holding `files` (relative path → text). */
export async function folder(prefix: string, files: Record<string, string> = {}): Promise<string> {
  const root = await realpath(await tempDir(`quire-conf-${prefix}-`))
  for (const [relative, text] of Object.entries(files)) await put(join(root, relative), text)
  return root
}

export async function put(path: string, text: string | Buffer): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, text)
}

export async function bytes(path: string): Promise<string | null> {
  return readFile(path).then(
    (buffer) => buffer.toString('latin1'),
    () => null,
  )
}

export async function removeAll(...paths: string[]): Promise<void> {
  await Promise.all(paths.map((path) => rm(path, { recursive: true, force: true })))
}

// ---------------------------------------------------------------------------------------------------------------
// Sessions

/**
 * One Quire process (embedded `quire mcp` over stdio, or the `quire serve` daemon over HTTP) with a first MCP
 * session, and the means to open more connections to that same process: for stdio a second `quire mcp` on the same
 * data directory, which attaches to the first (it owns the directory); for HTTP a new Streamable HTTP session.
 */
export interface Rig {
  readonly transport: Transport
  readonly home: string
  /** The first connection. */
  readonly session: Session
  /** A further, distinct MCP connection to the same Quire process. */
  another(): Promise<Session>
  /** Ends every connection and the process (the data directory stays), then starts it again: a reconnecting client. */
  restart(): Promise<Session>
  /** Ends everything but keeps the data directory (for the CLI commands that open it themselves, e.g. `quire log`). */
  stop(): Promise<void>
  close(): Promise<void>
}

export async function rig(transport: Transport, options: Omit<LaunchOptions, 'home'> & { home?: string } = {}): Promise<Rig> {
  const home = options.home ?? (await tempDir('quire-conf-home-'))
  const launchOptions: LaunchOptions = { ...options, home }
  const extra: Session[] = []
  let stopProcess: () => Promise<void> = async () => {}
  let connect: () => Promise<Session>
  const start = async (): Promise<Session> => {
    if (transport === 'stdio') {
      const first = await launchStdio(launchOptions)
      // Closing the first session ends the process (the client closes its stdin and waits for it to exit).
      stopProcess = async () => {}
      connect = () => launchStdio({ home, env: options.env })
      return first
    }
    const daemon = await launchDaemon(launchOptions)
    stopProcess = () => daemon.stop()
    connect = () => daemon.connect()
    return daemon.connect()
  }
  let first = await start()
  const stop = async () => {
    for (const session of extra.splice(0)) await session.close()
    await first.close()
    await stopProcess()
  }
  const result: Rig = {
    transport,
    home,
    get session() {
      return first
    },
    async another() {
      const session = await connect()
      extra.push(session)
      return session
    },
    async restart() {
      await stop()
      first = await start()
      return first
    },
    stop,
    async close() {
      await stop()
      await rm(home, { recursive: true, force: true })
    },
  }
  return result
}

/**
 * A data directory prepared before any MCP client connects, with the core opened in this process: for state only
 * a person (or a later surface) can produce — settings, pinned tabs, a second document window. The directory is
 * released before this returns, so a rig can be started on it.
 */
export async function prepareHome(prepare: (services: Services) => Promise<void>, options: QuireOptions = {}): Promise<string> {
  const home = await tempDir('quire-conf-home-')
  const quire = await openQuire(home, withTestStore(home, options))
  try {
    await prepare(quire.services)
  } finally {
    await quire.close()
  }
  return home
}

/** The person, as a caller of core commands while preparing a data directory. */
export const PERSON: Caller = { actor: USER, connection: 'person', principal: null }

/** A second document window, as one opened from the command line would be (headless Quire has no command for it). */
export async function openSecondWindow(services: Services, label: string): Promise<void> {
  const { store, views } = services.engine
  await appendToView(store, views.workspace, [{ type: 'window.opened', actor: USER, data: { label } }])
}

/** The in-process harness (same MCP server, injected faults), with folders opened as workspaces by the person. */
export async function inProcess(
  workspaces: string[],
  options: Parameters<typeof launchInProcess>[0] = {},
): Promise<Awaited<ReturnType<typeof launchInProcess>>> {
  const session = await launchInProcess(options)
  const { engine } = session.quire.services
  for (const folderPath of workspaces) await openWorkspaceAsPerson(engine.store, engine.views.workspace, folderPath, USER)
  return session
}

// ---------------------------------------------------------------------------------------------------------------
// Result shapes (TOOLS.md §12.1, DESIGN §10)

/** A result object as the tests read it (shapes are what the assertions check). */
export type Json = any

/**
 * A successful result: not an error, the text is the JSON of the structured content, which the SDK client checked
 * against the tool's declared outputSchema (a mismatch would have thrown). Returns the object.
 */
export function ok(result: ToolResult): Json {
  expect(result.isError, `expected success, got ${result.text}`).toBe(false)
  expect(result.structured).toBeDefined()
  expect(result.validated, 'the tool declares an outputSchema, and the SDK client checked this answer against it').toBe(true)
  expect(JSON.parse(result.text)).toEqual(result.structured)
  return result.structured
}

/** A domain refusal: `isError`, text = the JSON envelope `{error, message, ...}`, the same object as structured content. */
export function envelope(result: ToolResult, code?: string): Json {
  expect(result.isError, `expected an envelope${code ? ` ${code}` : ''}, got success: ${result.text}`).toBe(true)
  let parsed: Json
  try {
    parsed = JSON.parse(result.text)
  } catch {
    throw new Error(`expected a JSON envelope${code ? ` ${code}` : ''}, got plain text: ${result.text}`)
  }
  expect(parsed).toBeTypeOf('object')
  expect(parsed.error).toBeTypeOf('string')
  expect(parsed.message).toBeTypeOf('string')
  expect((parsed.message as string).length).toBeGreaterThan(0)
  expect(result.structured).toEqual(parsed)
  if (code !== undefined) expect(parsed.error, result.text).toBe(code)
  return parsed
}

/** An argument-shape error (or a plain-string domain code): `isError` with a plain, non-JSON string. */
export function plain(result: ToolResult, pattern?: RegExp): string {
  expect(result.isError, `expected a plain-string error, got success: ${result.text}`).toBe(true)
  expect(result.text.length).toBeGreaterThan(0)
  let parsedObject = false
  try {
    const parsed: unknown = JSON.parse(result.text)
    parsedObject = typeof parsed === 'object' && parsed !== null
  } catch {
    // Not JSON: as it should be.
  }
  expect(parsedObject, `expected plain text, got a JSON object: ${result.text}`).toBe(false)
  expect(result.structured?.error, 'a plain-string error carries no envelope in structuredContent').toBeUndefined()
  if (pattern) expect(result.text).toMatch(pattern)
  return result.text
}

// ---------------------------------------------------------------------------------------------------------------
// Tool calls

export interface TabEntry {
  id: string
  filePath: string | null
  title: string
  dirty: boolean
  revision: string
  kind: string
  active: boolean
  visible: boolean
}
export interface WindowEntry {
  label: string
  focused: boolean
  activeWorkspaceInstanceId: string | null
  tabs: TabEntry[]
}

export async function getState(session: Session): Promise<{ windows: WindowEntry[]; capabilities: Json }> {
  return ok(await session.call('session', { action: 'get_state' }))
}

export async function tabsOf(session: Session): Promise<TabEntry[]> {
  return (await getState(session)).windows.flatMap((window) => window.tabs)
}

export async function windowOf(session: Session, label = 'main'): Promise<WindowEntry> {
  const window = (await getState(session)).windows.find((entry) => entry.label === label)
  if (!window) throw new Error(`no window ${label}`)
  return window
}

export async function read(session: Session, tabId?: string): Promise<{ content: string; revision: string; filePath: string | null; kind: string; dirty: boolean }> {
  return ok(await session.call('document', { action: 'read', ...(tabId === undefined ? {} : { tabId }) }))
}

export async function open(session: Session, filePath: string, windowLabel?: string): Promise<string> {
  return ok(await session.call('workspace', { action: 'open', filePath, ...(windowLabel ? { windowLabel } : {}) })).tabId
}

export async function newTab(session: Session, kind?: string): Promise<string> {
  return ok(await session.call('workspace', { action: 'new', ...(kind ? { kind } : {}) })).tabId
}

export async function write(session: Session, tabId: string, content: string, extra: Record<string, unknown> = {}): Promise<Json> {
  return ok(await session.call('document', { action: 'write', tabId, content, ...extra }))
}

// ---------------------------------------------------------------------------------------------------------------
// The person's side and the log

export async function cli(home: string, ...args: string[]): Promise<CliResult> {
  return runCli(args, { home, timeoutMs: 20_000 })
}

/** `quire approvals approve|deny ID [--scope S]`, through the process that owns the data directory. */
export async function decide(home: string, decision: 'approve' | 'deny', approvalId: string, scope?: 'once' | 'site' | 'navigation'): Promise<void> {
  const result = await cli(home, 'approvals', decision, approvalId, ...(scope === undefined ? [] : ['--scope', scope]))
  expect(result.code, `quire approvals ${decision} ${approvalId}: ${result.stderr}`).toBe(0)
}

export interface ApprovalLine {
  id: string
  status: string
  kind: string
  subject: string
  connection: string
}

/**
 * Every approval request the person sees, newest first: what `quire approvals list` prints, read from the owning
 * process's admin API (the list the CLI formats) because a CLI process per look costs ~0.4 s.
 */
export async function approvals(home: string): Promise<ApprovalLine[]> {
  const list = (await admin(home, '/admin/approvals')) as { approvals: Array<Record<string, string>> }
  return list.approvals.map((entry) => ({
    id: entry.approvalId!, status: entry.status!, kind: entry.kind!, subject: entry.subject!, connection: entry.connection!,
  }))
}

/** A request to the owning process's admin API, with the port file's access token (what the person's CLI uses). */
async function admin(home: string, path: string, body?: unknown): Promise<unknown> {
  const response = await adminResponse(home, path, body)
  expect(response.ok, `${path}: HTTP ${response.status}`).toBe(true)
  return response.json()
}

async function adminResponse(home: string, path: string, body?: unknown): Promise<Response> {
  const [port, token] = (await readFile(join(home, 'port'), 'utf8')).trim().split(':') as [string, string]
  return fetch(`http://127.0.0.1:${port}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
}

/**
 * The person keeps the tab's version of a file that changed on disk under unsaved changes (`quire divergence keep
 * PATH`, through the owning process), as soon as the disk watcher has noticed the change (at most 5 s).
 */
export async function keepTabVersion(home: string, path: string): Promise<void> {
  const deadline = Date.now() + 5_000
  for (;;) {
    const response = await adminResponse(home, '/admin/divergence', { doc: path, choice: 'keep' })
    if (response.ok) return
    if (Date.now() > deadline) throw new Error(`the divergence of ${path} was never noticed: ${await response.text()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

export interface HistoryLine {
  reason: string
  mcp: boolean
  revision: string
  length: number
  path: string
}

/** `quire history PATH`, parsed: every save and open of the document. */
export async function history(home: string, path: string): Promise<HistoryLine[]> {
  const result = await cli(home, 'history', path)
  expect(result.code, result.stderr).toBe(0)
  return result.stdout
    .split('\n')
    .map((line) => /^\s*\d+\s+\S+\s+(open|save|reload)\s+(\(mcp\))?\s+(rev-\S+)\s+(\d+) chars\s+\S+\s+(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ reason: match[1]!, mcp: match[2] !== undefined, revision: match[3]!, length: Number(match[4]), path: match[5]! }))
}

/** The log's head position, from the owning process (`/admin/status`): unchanged means nothing was appended. */
export async function logHead(home: string): Promise<number> {
  return ((await admin(home, '/admin/status')) as { head: number }).head
}

export interface LogRecord {
  position: number
  type: string
  stream: string
  actor: Json
  data: Json
}

/** `quire log --json` (the data directory must not be owned by a running process). */
export async function logRecords(home: string): Promise<LogRecord[]> {
  const result = await cli(home, 'log', '--json')
  expect(result.code, result.stderr).toBe(0)
  return result.stdout
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as LogRecord)
}

// ---------------------------------------------------------------------------------------------------------------
// "Changes nothing"

/** Every file under `roots` (relative path → bytes, symlinks as their target). */
export async function files(...roots: string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  const walk = async (root: string, directory: string): Promise<void> => {
    for (const entry of await readdir(directory)) {
      const path = join(directory, entry)
      const stats = await lstat(path)
      const key = `${root}|${path.slice(root.length)}`
      if (stats.isSymbolicLink()) out[key] = `-> ${await readlink(path)}`
      else if (stats.isDirectory()) {
        out[key] = '<directory>'
        await walk(root, path)
      }
      else out[key] = (await readFile(path)).toString('latin1')
    }
  }
  for (const root of roots) await walk(root, root)
  return out
}

/** What a rejection must leave alone: windows and tabs, each tab's text and revision, and the files on disk. */
export async function world(session: Session, ...roots: string[]): Promise<Json> {
  const state = await getState(session)
  const documents: Record<string, unknown> = {}
  for (const tab of state.windows.flatMap((window) => window.tabs)) {
    const { content, revision, dirty } = await read(session, tab.id)
    documents[tab.id] = { content, revision, dirty }
  }
  return { windows: state.windows, documents, files: await files(...roots) }
}
