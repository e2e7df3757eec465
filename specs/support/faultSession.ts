/**
 * Shared pieces of the scope/save/journal/fuzz/kill conformance specs: an in-process session with workspaces and
 * injected faults (a FaultyFileSystem, a log that can be stalled), result helpers that assert the wire shape of
 * TOOLS.md §12.1, and a file-tree snapshot to prove "nothing changed" outside (and inside) a workspace.
 */
import { createHash } from 'node:crypto'
import { lstat, readdir, readFile, readlink, realpath } from 'node:fs/promises'
import { join } from 'node:path'
import { expect } from 'vitest'
import { USER } from '../../core/events/actor.js'
import type { RecordedEvent } from '../../core/log/eventLog.js'
import { openWorkspaceAsPerson } from '../../core/workspace/commands.js'
import type { BatchOperation } from '../../core/log/groupCommit.js'
import { runCli, type CliResult } from './cli.js'
import { gate, type FaultyFileSystem, type Gate } from './faultFs.js'
import { launchInProcess, type Session, type ToolResult } from './mcpHarness.js'
import type { Quire } from '../../adapters/host/quire.js'

/** Every code TOOLS.md §13.1–13.2 lists as an envelope. */
export const DOCUMENTED_ENVELOPE_CODES = new Set([
  'STALE', 'INVALID_PATCH', 'INVALID_TAB', 'INVALID_PATH', 'APPROVAL_REQUIRED', 'BUSY', 'JOURNAL_BUSY', 'STALE_PARENT',
  'JOURNAL_DEGRADED', 'JOURNAL_UNAVAILABLE', 'INVALID_TEXT', 'REVIEW_BACKLOG_FULL', 'ABORTED', 'NOT_WORKFLOW', 'READ_ONLY',
  'NO_EDITOR', 'INTERNAL', 'INVALID_ADDRESSES', 'STALE_COMMENT', 'INVALID_COMMENT', 'COMMENT_NOT_ALLOWED', 'COMMENT_LIMIT',
])

/**
 * A log whose batch writes can be held: while engaged, every batch the group committer hands to LevelDB waits
 * (a disk that stops answering) until released. Pass `intercept` as the store's `interceptWrite`.
 */
export class LogStall {
  private held: ReturnType<typeof gate> | undefined
  /** Batches that waited on a stall so far. */
  batchesHeld = 0
  /** Every batch's operation count, in order (for "something was appended" checks). */
  readonly batches: number[] = []

  /** While true, every batch write fails with EIO (the log retries it with backoff). */
  failing = false
  failures = 0

  readonly intercept = async (write: () => Promise<void>, operations: readonly BatchOperation[]): Promise<void> => {
    this.batches.push(operations.length)
    if (this.failing) {
      this.failures++
      throw Object.assign(new Error('EIO: i/o error, write (injected)'), { code: 'EIO' })
    }
    const held = this.held
    if (held) {
      this.batchesHeld++
      await held.arrive()
    }
    await write()
  }

  /** From now on, batch writes wait until the returned gate is released (`reached`: the first one is waiting). */
  engage(): Gate {
    const held = gate()
    this.held = held
    const release = held.release
    return {
      reached: held.reached,
      get isReached() {
        return held.isReached
      },
      release: () => {
        if (this.held === held) this.held = undefined
        release()
      },
    }
  }
}

export interface FaultyLaunch {
  readonly workspaces?: readonly string[]
  readonly fs?: FaultyFileSystem
  readonly stall?: LogStall
  /** The person's "Auto-approve saves to new locations" setting (default off, WS.SAVE_AS.4). */
  readonly autoApproveSaves?: boolean
  /** The disk watcher; off by default here, since a fault port does not announce Quire's own writes to it. */
  readonly watchDisk?: boolean
  readonly now?: () => number
  readonly home?: string
}

export type FaultySession = Session & { quire: Quire }

/** The core in this process behind the real MCP server, with the person's workspaces open and faults injected. */
export async function launchFaulty(options: FaultyLaunch = {}): Promise<FaultySession> {
  const session = await launchInProcess({
    ...(options.home ? { home: options.home } : {}),
    ...(options.fs ? { fileSystem: options.fs.port } : {}),
    ...(options.stall ? { interceptWrite: options.stall.intercept } : {}),
    ...(options.now ? { now: options.now } : {}),
    watchDisk: options.watchDisk ?? false,
  })
  const { engine, settings } = session.quire.services
  for (const folder of options.workspaces ?? []) await openWorkspaceAsPerson(engine.store, engine.views.workspace, folder, USER)
  if (options.autoApproveSaves) await settings.set('autoApproveSaves', true, USER)
  return session
}

/** Every event of a document's stream, from the log. */
export async function streamEvents(quire: Quire, docId: string): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = []
  for await (const event of quire.services.engine.store.readStream(`doc:${docId}`)) events.push(event)
  return events
}

/** The docId behind a tab. */
export function docOfTab(quire: Quire, tabId: string): string {
  const tab = quire.services.engine.views.workspace.state.tabs.get(tabId)
  if (!tab) throw new Error(`no tab ${tabId}`)
  return tab.docId
}

/** Asserts a success result and returns its structured content (which must equal the JSON text). */
export function ok(result: ToolResult): Record<string, any> {
  expect(result.isError, `expected success, got ${result.text}`).toBe(false)
  expect(result.structured).toBeDefined()
  expect(JSON.parse(result.text)).toEqual(result.structured)
  return result.structured as Record<string, any>
}

/** Asserts a domain-error envelope with `code` (text and structuredContent agree, ERR.1–2) and returns it. */
export function envelope(result: ToolResult, code: string): Record<string, any> {
  expect(result.isError, `expected ${code}, got success ${result.text}`).toBe(true)
  expect(result.structured, `expected an envelope ${code}, got the plain string ${JSON.stringify(result.text)}`).toBeDefined()
  const structured = result.structured as Record<string, any>
  expect(structured.error, `expected ${code}: ${result.text}`).toBe(code)
  expect(typeof structured.message).toBe('string')
  expect(JSON.parse(result.text)).toEqual(structured)
  return structured
}

/** Asserts a plain-string error (ERR.3): isError, text, no envelope. */
export function plainString(result: ToolResult): string {
  expect(result.isError).toBe(true)
  expect(result.structured?.error).toBeUndefined()
  let parsed: unknown
  try {
    parsed = JSON.parse(result.text)
  } catch {
    parsed = undefined
  }
  expect(typeof parsed === 'object' && parsed !== null && 'error' in parsed, `expected a plain string, got ${result.text}`).toBe(false)
  return result.text
}

/** Opens a file in a tab and returns its id. */
export async function openTab(session: Session, filePath: string): Promise<string> {
  return ok(await session.call('workspace', { action: 'open', filePath })).tabId as string
}

export async function readDoc(session: Session, tabId: string): Promise<{ content: string; revision: string; dirty: boolean }> {
  const read = ok(await session.call('document', { action: 'read', tabId }))
  return { content: read.content, revision: read.revision, dirty: read.dirty }
}

export async function tabCount(session: Session): Promise<number> {
  const state = ok(await session.call('session', { action: 'get_state' }))
  return (state.windows as Array<{ tabs: unknown[] }>).reduce((sum, window) => sum + window.tabs.length, 0)
}

/** Runs the CLI against a data directory; with a live owner, the person's commands go to it. */
export function quire(home: string, ...args: string[]): Promise<CliResult> {
  return runCli(args, { home, timeoutMs: 30_000 })
}

/** Approves a pending approval as the person would (`quire approvals approve ID`). */
export async function approve(home: string, approvalId: string): Promise<void> {
  const result = await quire(home, 'approvals', 'approve', approvalId)
  expect(result.code, result.stderr).toBe(0)
}

/** `save_as` the way an assistant must: the first call asks, the person approves, the retry saves. */
export async function saveAsApproved(session: Session, tabId: string, filePath: string): Promise<ToolResult> {
  const first = await session.call('workspace', { action: 'save_as', tabId, filePath })
  if (!first.isError || first.structured?.error !== 'APPROVAL_REQUIRED' || typeof first.structured.approvalId !== 'string') return first
  await approve(session.home, first.structured.approvalId)
  return session.call('workspace', { action: 'save_as', tabId, filePath })
}

/**
 * What a directory tree holds, without following symlinks: each entry's kind, and a file's bytes (hashed) and
 * mode, a link's target. Two equal snapshots mean nothing was created, removed, written, re-linked or chmod'ed.
 */
export async function snapshot(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  async function walk(dir: string, rel: string): Promise<void> {
    const stats = await lstat(dir)
    out[rel || '.'] = `dir ${(stats.mode & 0o7777).toString(8)}`
    for (const name of (await readdir(dir)).sort()) {
      const path = join(dir, name)
      const relative = rel ? `${rel}/${name}` : name
      const entry = await lstat(path)
      if (entry.isSymbolicLink()) out[relative] = `link -> ${await readlink(path)}`
      else if (entry.isDirectory()) await walk(path, relative)
      else if (entry.isFile()) {
        const bytes = await readFile(path)
        out[relative] = `file ${(entry.mode & 0o7777).toString(8)} ${bytes.length} ${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}`
      } else out[relative] = 'other'
    }
  }
  await walk(root, '')
  return out
}

/** The bytes of a file as text, or null if nothing is there. */
export async function fileText(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8')
  } catch {
    return null
  }
}

/** inode of whatever is at `path` (a rename-based write changes it), or null. */
export async function inode(path: string): Promise<number | null> {
  try {
    return (await lstat(path)).ino
  } catch {
    return null
  }
}

/** Real path of a freshly made temp dir (tmpdir may itself be a symlink). */
export async function real(path: string): Promise<string> {
  return realpath(path)
}

/** Resolves `promise`, or fails the test with `what` if it does not settle within `ms`. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** Polls `check` until it is true or `ms` pass. */
export async function eventually(check: () => Promise<boolean> | boolean, ms = 5_000): Promise<boolean> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await check()) return true
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return check()
}

/**
 * The tree the scope specs run against, under a real temp dir `T` (symlinks resolved):
 *
 *   T/ws/            the workspace root          T/ws_evil/     prefix sibling of the root (CVE-2025-53110)
 *     a.md, sub/b.md                               a.md, secret.md
 *     link-out-file -> T/out/secret.md           T/out/         outside every root: secret.md, b.md, a.md
 *     link-out-dir  -> T/out                     (CVE-2025-53109 targets)
 *     rel-up        -> ../out
 *     dangling-out  -> T/out/nope.md
 *     link-in-file  -> T/ws/a.md
 */
export interface Tree {
  readonly T: string
  readonly ws: string
  readonly wsEvil: string
  readonly out: string
}

export const SECRET = 'SECRET: outside the workspace\n'

export async function buildTree(T: string): Promise<Tree> {
  const { mkdir, symlink, writeFile } = await import('node:fs/promises')
  const ws = join(T, 'ws')
  const out = join(T, 'out')
  const wsEvil = join(T, 'ws_evil')
  await mkdir(join(ws, 'sub'), { recursive: true })
  await mkdir(out)
  await mkdir(wsEvil)
  await writeFile(join(ws, 'a.md'), 'inside a\n')
  await writeFile(join(ws, 'sub', 'b.md'), 'inside b\n')
  await writeFile(join(out, 'secret.md'), SECRET)
  await writeFile(join(out, 'a.md'), SECRET)
  await writeFile(join(out, 'b.md'), SECRET)
  await writeFile(join(wsEvil, 'a.md'), SECRET)
  await writeFile(join(wsEvil, 'secret.md'), SECRET)
  await symlink(join(out, 'secret.md'), join(ws, 'link-out-file'))
  await symlink(out, join(ws, 'link-out-dir'))
  await symlink('../out', join(ws, 'rel-up'))
  await symlink(join(out, 'nope.md'), join(ws, 'dangling-out'))
  await symlink(join(ws, 'a.md'), join(ws, 'link-in-file'))
  return { T, ws, wsEvil, out }
}
