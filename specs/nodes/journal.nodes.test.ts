import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { openQuire, type Quire, type QuireOptions } from '../../adapters/host/quire.js'
import { USER, type Actor } from '../../core/events/actor.js'
import { isQuireError } from '../../core/errors.js'
import { appendToView } from '../../core/streams/foldedStream.js'
import { openWorkspaceAsPerson } from '../../core/workspace/commands.js'
import { connectInProcess } from '../support/mcpHarness.js'
import { usePostgresDatabase } from '../support/postgresServer.js'
import { useTempHomes } from '../support/tempHome.js'
import { eventually } from './support.js'

/**
 * The journal's rules across nodes sharing one PostgreSQL log (JRNL.6, JRNL.8, JRNL.9): a write on one node is refused
 * on another for the same reasons it would be on one node, because what decides it (the last writer's window, an
 * earlier write still on its way to the log) is read from the log and the database, not from the node's own calls.
 */
const database = usePostgresDatabase()
const newHome = useTempHomes()
const AI: Actor = { kind: 'mcp', principal: 'claude', connection: 'c-1' }

const opened: Quire[] = []
const clients: Client[] = []
const folders: string[] = []
const holds: WriteHold[] = []
afterEach(async () => {
  // A node closes only once its held writes went through (or failed as closed).
  for (const hold of holds.splice(0)) hold.release()
  await Promise.allSettled(clients.splice(0).map((client) => client.close()))
  await Promise.allSettled(opened.splice(0).map((node) => node.close()))
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })))
})

/** Nodes on one log in a fresh schema, each with options of its own (a log whose writes can be held, say). */
async function cluster(...options: QuireOptions[]): Promise<Quire[]> {
  const store = `${database()}${database().includes('?') ? '&' : '?'}schema=journal_${randomBytes(6).toString('hex')}`
  const nodes: Quire[] = []
  // One after another: the first creates the schema, the rest find it.
  for (const each of options) {
    const node = await openQuire(await newHome(), { ...each, store, watchDisk: false })
    opened.push(node)
    nodes.push(node)
  }
  return nodes
}

/**
 * A log's writes, held on demand: once `holdAfter(n)` is called, the next n write transactions go through and every
 * later one waits (a log the database stopped answering) until `release`.
 */
class WriteHold {
  private passing = Infinity
  private released: Promise<void> = Promise.resolve()
  private letGo: () => void = () => {}
  held = 0

  constructor() {
    holds.push(this)
  }

  readonly intercept = async (write: () => Promise<void>): Promise<void> => {
    if (this.passing > 0) {
      this.passing -= 1
      return write()
    }
    this.held += 1
    await this.released
    return write()
  }

  holdAfter(passing: number): void {
    this.passing = passing
    this.released = new Promise<void>((resolve) => (this.letGo = resolve))
  }

  release(): void {
    this.passing = Infinity
    this.letGo()
  }
}

interface Tool {
  call(tool: string, args: Record<string, unknown>): Promise<{ isError: boolean; structured: Record<string, unknown> | undefined }>
}

/** A real MCP client of `node`'s own server (in-memory transport), as an assistant connected to that node. */
async function assistantOn(node: Quire, connection: string): Promise<Tool> {
  const { client } = await connectInProcess(node.services, connection, 'claude')
  clients.push(client)
  return {
    async call(tool, args) {
      const raw = (await client.callTool({ name: tool, arguments: args })) as { isError?: boolean; structuredContent?: Record<string, unknown> }
      return { isError: raw.isError === true, structured: raw.structuredContent }
    },
  }
}

/**
 * A file open in two windows of the person's (`main` and `second`), one tab in each, every node knowing both tabs.
 * The tabs are opened on the first node; the workspace is every node's, from the log.
 */
async function fileInTwoWindows(nodes: readonly Quire[]): Promise<{ docId: string; inMain: string; inSecond: string; on: Tool[] }> {
  const folder = await mkdtemp(join(tmpdir(), 'quire-parent-nodes-'))
  folders.push(folder)
  const file = join(folder, 'shared.md')
  await writeFile(file, 'base\n')
  const { engine } = nodes[0]!.services
  await appendToView(engine.store, engine.views.workspace, [{ type: 'window.opened', actor: USER, data: { label: 'second' } }])
  await openWorkspaceAsPerson(engine.store, engine.views.workspace, folder, USER)
  const on = await Promise.all(nodes.map((node, index) => assistantOn(node, `conn-${index}`)))
  const inMain = (await on[0]!.call('workspace', { action: 'open', filePath: file, windowLabel: 'main' })).structured!.tabId as string
  const inSecond = (await on[0]!.call('workspace', { action: 'open', filePath: file, windowLabel: 'second' })).structured!.tabId as string
  expect(inMain).not.toBe(inSecond)
  for (const node of nodes) await eventually(() => node.services.engine.views.workspace.state.tabs.has(inMain) && node.services.engine.views.workspace.state.tabs.has(inSecond))
  const docId = engine.views.workspace.state.tabs.get(inMain)!.docId
  return { docId, inMain, inSecond, on }
}

async function read(tool: Tool, tabId: string): Promise<{ content: string; revision: string }> {
  const result = await tool.call('document', { action: 'read', tabId })
  expect(result.isError).toBe(false)
  return result.structured as { content: string; revision: string }
}

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  )
}

describe('STALE_PARENT across nodes (JRNL.9)', () => {
  it('JRNL.9 a tab on node B whose document a tab of another window wrote on node A since B last read it is refused with STALE_PARENT, changing nothing; and the other way round', async () => {
    const [a, b] = await cluster({}, {})
    const { docId, inMain, inSecond, on } = await fileInTwoWindows([a!, b!])
    const [onA, onB] = on as [Tool, Tool]
    await read(onB, inSecond)
    await read(onA, inMain)
    const fromMain = await onA.call('document', { action: 'write', tabId: inMain, content: 'main window\n', save: false })
    expect(fromMain.isError).toBe(false)
    const written = (fromMain.structured as { revision: string }).revision
    await eventually(() => b!.services.engine.documents.peek(docId)?.revision === written)

    const fromSecond = await onB.call('document', { action: 'write', tabId: inSecond, content: 'second window\n', save: false })
    expect(fromSecond.isError).toBe(true)
    expect(fromSecond.structured).toMatchObject({ error: 'STALE_PARENT' })
    expect(await read(onB, inMain)).toMatchObject({ content: 'main window\n', revision: written })
    expect(a!.services.engine.documents.peek(docId)).toMatchObject({ content: 'main window\n', revision: written })

    // Re-read on B (just done above, through its own tab this time), B's tab writes on top of what it has seen.
    await read(onB, inSecond)
    const again = await onB.call('document', { action: 'write', tabId: inSecond, content: 'second window\n', save: false })
    expect(again.isError).toBe(false)
    const secondRevision = (again.structured as { revision: string }).revision
    await eventually(() => a!.services.engine.documents.peek(docId)?.revision === secondRevision)

    // Node A's tab in `main` last wrote before node B's `second` wrote: A refuses it, from B's write in the log.
    const backOnA = await onA.call('document', { action: 'write', tabId: inMain, content: 'main again\n', save: false })
    expect(backOnA.structured).toMatchObject({ error: 'STALE_PARENT' })
    expect(a!.services.engine.documents.peek(docId)!.content).toBe('second window\n')
    // The same window's own later writes are never refused, wherever they are made.
    expect((await onB.call('document', { action: 'write', tabId: inSecond, content: 'second again\n', save: false })).isError).toBe(false)
  })

  it.each(['its events', 'a snapshot taken after the write'])('JRNL.9 the last writer comes from the log when node B loads the document again (from %s): a write from its stale tab is still STALE_PARENT', async (from) => {
    const [a, b] = await cluster({}, {})
    const { docId, inMain, inSecond, on } = await fileInTwoWindows([a!, b!])
    const [onA, onB] = on as [Tool, Tool]
    await read(onB, inSecond)
    // Node B lets the document go (as after a failed append): it no longer follows it, and loads it from the log.
    b!.services.engine.documents.evict(docId)
    await read(onA, inMain)
    const fromMain = await onA.call('document', { action: 'write', tabId: inMain, content: 'main window\n', save: false })
    expect(fromMain.structured).toMatchObject({ durable: true })
    expect(b!.services.engine.documents.peek(docId)).toBeUndefined()
    if (from !== 'its events') {
      // The snapshot covers every event of the document: loading it reads no event of the stream.
      const onNodeA = a!.services.engine.documents.peek(docId)!
      await a!.services.engine.documents.snapshot(onNodeA)
      expect((await a!.services.engine.store.loadSnapshot('documents', docId))?.position).toBe(onNodeA.position)
    }

    const fromSecond = await onB.call('document', { action: 'write', tabId: inSecond, content: 'second window\n', save: false })
    expect(fromSecond.structured).toMatchObject({ error: 'STALE_PARENT' })
    expect(b!.services.engine.documents.peek(docId)?.content).toBe('main window\n')
  })
})

describe('journal marks across nodes (JRNL.8, JRNL.6)', () => {
  async function documentOnBoth(a: Quire, b: Quire): Promise<string> {
    const { docId } = await a.services.documents.create({ kind: 'markdown', content: 'x\n', path: null, title: 't', origin: 'untitled', actor: USER })
    await eventually(async () => (await b.services.engine.documents.get(docId)) !== undefined)
    return docId
  }

  /** Writes on `node` until it is no longer refused for `code`; the last outcome. */
  async function writeOnceFree(node: Quire, docId: string, content: string, code: string): Promise<unknown> {
    let outcome: unknown
    await eventually(async () => {
      outcome = await node.services.documents.write({ docId, content, actor: AI }).catch((error: unknown) => error)
      return !isQuireError(outcome, code)
    })
    return outcome
  }

  it('JRNL.8 while node A is still recording a write its log has not stored, a write on node B fails with JOURNAL_BUSY and changes nothing; once it lands, B writes', async () => {
    const hold = new WriteHold()
    const [a, b] = await cluster({ interceptWrite: hold.intercept, journalDeadlineMs: 500 }, {})
    const docId = await documentOnBoth(a!, b!)
    hold.holdAfter(0)
    const onA = await refusal(a!.services.documents.write({ docId, content: 'from a\n', actor: AI }))
    expect(isQuireError(onA, 'JOURNAL_UNAVAILABLE')).toBe(true)
    expect(hold.held).toBeGreaterThan(0)

    const onB = await refusal(b!.services.documents.write({ docId, content: 'from b\n', actor: AI }))
    expect(isQuireError(onB, 'JOURNAL_BUSY'), String(onB)).toBe(true)
    expect((onB as Error).message).toMatch(/on another node/)
    expect(b!.services.engine.documents.peek(docId)!.content).toBe('x\n')

    hold.release()
    expect(await writeOnceFree(b!, docId, 'from b\n', 'JOURNAL_BUSY')).toMatchObject({ changed: true })
    await eventually(() => a!.services.engine.documents.peek(docId)?.content === 'from b\n')
  })

  it('JRNL.6 while a change node A applied is not yet in the log (durable: false), a write on node B fails with JOURNAL_DEGRADED and changes nothing; once it lands, B writes', async () => {
    const hold = new WriteHold()
    const [a, b] = await cluster({ interceptWrite: hold.intercept, journalDeadlineMs: 500 }, {})
    const docId = await documentOnBoth(a!, b!)
    // The journal entry's transaction goes through; the change's waits.
    hold.holdAfter(1)
    expect(await a!.services.documents.write({ docId, content: 'from a\n', actor: AI })).toMatchObject({ changed: true, durable: false })

    const onB = await refusal(b!.services.documents.write({ docId, content: 'from b\n', actor: AI }))
    expect(isQuireError(onB, 'JOURNAL_DEGRADED'), String(onB)).toBe(true)
    expect((onB as Error).message).toMatch(/on another node/)
    expect(b!.services.engine.documents.peek(docId)!.content).toBe('x\n')

    hold.release()
    expect(await writeOnceFree(b!, docId, 'from b\n', 'JOURNAL_DEGRADED')).toMatchObject({ changed: true })
    await eventually(() => a!.services.engine.documents.peek(docId)?.content === 'from b\n')
  })

  it('JRNL.8 a mark outlives the connection that showed it: node A, cut off from the database and back, shows it again before B asks', async () => {
    const hold = new WriteHold()
    const [a, b] = await cluster({ interceptWrite: hold.intercept, journalDeadlineMs: 500 }, {})
    const docId = await documentOnBoth(a!, b!)
    hold.holdAfter(0)
    expect(isQuireError(await refusal(a!.services.documents.write({ docId, content: 'from a\n', actor: AI })), 'JOURNAL_UNAVAILABLE')).toBe(true)
    const admin = new pg.Client({ connectionString: database() })
    await admin.connect()
    try {
      const markHolders = async () =>
        (await admin.query<{ pid: number }>(`SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND mode = 'ShareLock' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`)).rows.map((row) => row.pid)
      const [holder] = await markHolders()
      expect(holder).toBeDefined()
      await admin.query('SELECT pg_terminate_backend($1)', [holder])
      await eventually(async () => {
        const now = await markHolders()
        return now.length === 1 && now[0] !== holder
      })
    } finally {
      await admin.end()
    }
    const onB = await refusal(b!.services.documents.write({ docId, content: 'from b\n', actor: AI }))
    expect(isQuireError(onB, 'JOURNAL_BUSY'), String(onB)).toBe(true)
    hold.release()
    expect(await writeOnceFree(b!, docId, 'from b\n', 'JOURNAL_BUSY')).toMatchObject({ changed: true })
  })
})
