import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Quire } from '../../adapters/host/quire.js'
import { replayDocument } from '../../core/audit/replay.js'
import { USER } from '../../core/events/actor.js'
import { openWorkspaceAsPerson } from '../../core/workspace/commands.js'
import { connectInProcess } from '../support/mcpHarness.js'
import { closeNodes, eventually, useNodesWith } from './support.js'
import { personTypes as typeAsPerson } from '../support/personTypes.js'

/**
 * DOC.WRITE.BASE across nodes: a `document.write` without `expected_revision` is an edit from the text its tab's
 * principal last read or wrote, and that base is a fact of the log (DESIGN §4), so one assistant served by two nodes
 * behind a load balancer writes exactly what it sends, and a person's typing since its base survives, whichever node
 * took each call. Every acknowledged write replays, on every node, to the text it answered.
 */
const cluster = useNodesWith()

const clients: Client[] = []
const folders: string[] = []
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()))
  await closeNodes()
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })))
})

interface Assistant {
  call(tool: string, args: Record<string, unknown>): Promise<{ isError: boolean; structured: Record<string, unknown> | undefined; text: string }>
}

/** The same assistant (principal `claude`) connected to `node`: what a load balancer gives it. */
async function claudeOn(node: Quire, connection: string): Promise<Assistant> {
  const { client } = await connectInProcess(node.services, connection, 'claude')
  clients.push(client)
  return {
    async call(tool, args) {
      const raw = (await client.callTool({ name: tool, arguments: args })) as { isError?: boolean; structuredContent?: Record<string, unknown>; content?: { text?: string }[] }
      return { isError: raw.isError === true, structured: raw.structuredContent, text: raw.content?.[0]?.text ?? '' }
    },
  }
}

/** A file opened by the assistant on the first node, its tab known to every node. */
async function openedFile(nodes: readonly Quire[], text: string): Promise<{ tabId: string; docId: string; on: Assistant[] }> {
  const folder = await mkdtemp(join(tmpdir(), 'quire-base-nodes-'))
  folders.push(folder)
  const file = join(folder, 'notes.md')
  await writeFile(file, text)
  const { engine } = nodes[0]!.services
  await openWorkspaceAsPerson(engine.store, engine.views.workspace, folder, USER)
  const on = await Promise.all(nodes.map((node, index) => claudeOn(node, `conn-${index}`)))
  const opened = await on[0]!.call('workspace', { action: 'open', filePath: file })
  expect(opened.isError, opened.text).toBe(false)
  const tabId = opened.structured!.tabId as string
  for (const node of nodes) await eventually(() => node.services.engine.views.workspace.state.tabs.has(tabId))
  return { tabId, docId: engine.views.workspace.state.tabs.get(tabId)!.docId, on }
}

async function write(assistant: Assistant, tabId: string, content: string): Promise<string> {
  const result = await assistant.call('document', { action: 'write', tabId, content, save: false })
  expect(result.isError, result.text).toBe(false)
  expect(result.structured).toMatchObject({ applied: true, durable: true })
  return result.structured!.revision as string
}

async function read(assistant: Assistant, tabId: string): Promise<{ content: string; revision: string }> {
  const result = await assistant.call('document', { action: 'read', tabId })
  expect(result.isError, result.text).toBe(false)
  return result.structured as { content: string; revision: string }
}

/** The person types (a peer's update, as the console sends it), and the keystroke is in the log. */
const personTypes = (node: Quire, docId: string, edit: (text: Y.Text) => void) => typeAsPerson(node.services.engine, docId, edit, 'console')

/** Every node replays `revision` to exactly `text` (once it has read what the log holds). */
async function replaysOnEveryNode(nodes: readonly Quire[], docId: string, revision: string, text: string): Promise<void> {
  for (const node of nodes) {
    await node.services.engine.store.caughtUp()
    expect(await replayDocument(node.services.engine, docId, revision)).toBe(text)
  }
}

describe('DOC.WRITE.BASE one assistant served by two nodes', () => {
  it('DOC.WRITE.BASE alpha through A, beta through B, gamma through A: each write replays on every node to exactly the text it sent', async () => {
    const nodes = await cluster({}, {})
    const [a, b] = nodes as [Quire, Quire]
    const { tabId, docId, on } = await openedFile(nodes, 'start\n')
    const [onA, onB] = on as [Assistant, Assistant]
    const alpha = await write(onA, tabId, 'alpha\n')
    const beta = await write(onB, tabId, 'beta written via node B\n')
    const gamma = await write(onA, tabId, 'gamma\n')
    await eventually(async () => (await b.services.engine.documents.get(docId))?.revision === gamma)
    await replaysOnEveryNode(nodes, docId, alpha, 'alpha\n')
    await replaysOnEveryNode(nodes, docId, beta, 'beta written via node B\n')
    await replaysOnEveryNode(nodes, docId, gamma, 'gamma\n')
    expect(a.services.engine.documents.peek(docId)!.content).toBe('gamma\n')
  })

  it('DOC.WRITE.BASE a read through A is the base of a write through B: what the person typed after the read survives, what the assistant removed stays removed', async () => {
    const nodes = await cluster({}, {})
    const [a, b] = nodes as [Quire, Quire]
    const { tabId, docId, on } = await openedFile(nodes, 'intro\nold line\n')
    const [onA, onB] = on as [Assistant, Assistant]
    const seen = await read(onA, tabId)
    expect(seen.content).toBe('intro\nold line\n')
    // After the read, the person adds a line on node A; the assistant, not knowing it, rewrites the old line via B.
    await personTypes(a, docId, (text) => text.insert(text.length, 'the person\'s line\n'))
    await eventually(async () => (await b.services.engine.documents.get(docId))?.content.includes('the person') === true)
    const written = await write(onB, tabId, 'intro\nnew line\n')
    await replaysOnEveryNode(nodes, docId, written, 'intro\nnew line\nthe person\'s line\n')
  })

  it('DOC.WRITE.BASE a write through A is the base of the next write through B, with the person typing between them on B', async () => {
    const nodes = await cluster({}, {})
    const [, b] = nodes as [Quire, Quire]
    const { tabId, docId, on } = await openedFile(nodes, 'one\n')
    const [onA, onB] = on as [Assistant, Assistant]
    await read(onA, tabId)
    const first = await write(onA, tabId, 'one\ntwo\n')
    await eventually(async () => (await b.services.engine.documents.get(docId))?.revision === first)
    await personTypes(b, docId, (text) => text.insert(0, 'Title\n'))
    // The assistant knows only what it wrote: it adds a third line to that.
    const second = await write(onB, tabId, 'one\ntwo\nthree\n')
    await replaysOnEveryNode(nodes, docId, second, 'Title\none\ntwo\nthree\n')
  })

  it('DOC.WRITE.BASE a write whose change the log refused on A (its journal entry landed, the change rolled back) moves no base: the next writes through B and A apply exactly and replay to what they answered', async () => {
    // Write transactions pass while `passing` lasts; once it is used up, each one fails (a database that refuses).
    let passing = Infinity
    const intercept = async (write: () => Promise<void>) => {
      if (passing <= 0) throw new Error('the database refused the write (injected)')
      passing -= 1
      return write()
    }
    const nodes = await cluster({ interceptWrite: intercept, journalDeadlineMs: 2_000, writeRetryWindowMs: 100 }, {})
    const [a] = nodes as [Quire, Quire]
    const { tabId, docId, on } = await openedFile(nodes, 'kept\n')
    const [onA, onB] = on as [Assistant, Assistant]
    await read(onA, tabId)
    // The journal entry goes through; the change after it is refused and rolled back.
    passing = 1
    const refused = await onA.call('document', { action: 'write', tabId, content: 'lost\n', save: false })
    passing = Infinity
    expect(refused.isError, refused.text).toBe(true)
    expect(refused.text).toContain('JOURNAL_UNAVAILABLE')
    await personTypes(a, docId, (text) => text.insert(0, '# heading\n'))
    // The assistant's base is still its read ("kept"): its write keeps the heading the person typed since.
    const next = await write(onB, tabId, 'kept\nmore\n')
    await replaysOnEveryNode(nodes, docId, next, '# heading\nkept\nmore\n')
    const last = await write(onA, tabId, 'kept\nmore\nlast\n')
    await replaysOnEveryNode(nodes, docId, last, '# heading\nkept\nmore\nlast\n')
  })

  it('DOC.WRITE.BASE read through A, the person types at the very start on A, the assistant rewrites the first line through B: the person\'s text survives', async () => {
    const nodes = await cluster({}, {})
    const [a] = nodes as [Quire, Quire]
    const { tabId, docId, on } = await openedFile(nodes, 'first line\nsecond line\nthird line\n')
    const [onA, onB] = on as [Assistant, Assistant]
    await read(onA, tabId)
    await personTypes(a, docId, (text) => text.insert(0, '⟦p2⟧'))
    const written = await write(onB, tabId, 'assistant line 3\nsecond line\nthird line\n')
    for (const node of nodes) {
      await node.services.engine.store.caughtUp()
      const replayed = await replayDocument(node.services.engine, docId, written)
      expect(replayed.replace('⟦p2⟧', '')).toBe('assistant line 3\nsecond line\nthird line\n')
      expect(replayed).toContain('⟦p2⟧')
    }
  })
})
