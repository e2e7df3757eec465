import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { openQuire, type Quire } from '../../adapters/host/quire.js'
import { replayDocument } from '../../core/audit/replay.js'
import { verify } from '../../core/audit/verify.js'
import { USER } from '../../core/events/actor.js'
import { openWorkspaceAsPerson } from '../../core/workspace/commands.js'
import { fuzzParameters } from '../support/fuzz.js'
import { connectInProcess } from '../support/mcpHarness.js'
import { usePostgresDatabase } from '../support/postgresServer.js'
import { useTempHomes } from '../support/tempHome.js'

/**
 * DOC.WRITE.BASE as a property: one assistant, served by either of two nodes on one PostgreSQL log, reads and writes
 * (with and without `expected_revision`) while the person types on either node, some writes fail in the log (before
 * or after their journal entry), and nodes restart. Every acknowledged write replays, on every node, to exactly the
 * text it sent merged with only what others typed after its base: the person only inserts unique markers, so
 * removing the markers the assistant had not seen from the replayed text must give back exactly what it sent.
 */
const database = usePostgresDatabase()
const newHome = useTempHomes()

type Step =
  | { readonly kind: 'read'; readonly node: number }
  | { readonly kind: 'write'; readonly node: number; readonly edit: number; readonly line: number; readonly expected: boolean }
  | { readonly kind: 'fail'; readonly when: 'journal' | 'change'; readonly line: number }
  | { readonly kind: 'type'; readonly node: number; readonly at: number }
  | { readonly kind: 'restart'; readonly node: number }

const steps = fc.array(
  fc.oneof(
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('read' as const), node: fc.nat({ max: 1 }) }) },
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('write' as const), node: fc.nat({ max: 1 }), edit: fc.nat({ max: 2 }), line: fc.nat({ max: 20 }), expected: fc.boolean() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('fail' as const), when: fc.constantFrom('journal' as const, 'change' as const), line: fc.nat({ max: 20 }) }) },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('type' as const), node: fc.nat({ max: 1 }), at: fc.nat({ max: 10_000 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const), node: fc.nat({ max: 1 }) }) },
  ),
  { minLength: 3, maxLength: 14 },
)

interface Assistant {
  client: Client
  call(tool: string, args: Record<string, unknown>): Promise<{ isError: boolean; structured: Record<string, unknown> | undefined; text: string }>
}

describe('DOC.WRITE.BASE property across nodes', () => {
  let store: string
  let homes: string[]
  let nodes: Quire[]
  let assistants: Assistant[]
  let folder: string
  // Write transactions on node 0 pass while `passing` lasts (Infinity: always); a used-up count fails each one.
  let passing = Infinity

  async function openNode(index: number): Promise<void> {
    const options = index === 0
      ? {
          interceptWrite: async (write: () => Promise<void>) => {
            if (passing <= 0) throw new Error('the database refused the write (injected)')
            passing -= 1
            return write()
          },
          writeRetryWindowMs: 100,
        }
      : {}
    nodes[index] = await openQuire(homes[index]!, { ...options, store, watchDisk: false })
    const { client } = await connectInProcess(nodes[index]!.services, `conn-${index}-${randomBytes(3).toString('hex')}`, 'claude')
    assistants[index] = {
      client,
      async call(tool, args) {
        const raw = (await client.callTool({ name: tool, arguments: args })) as { isError?: boolean; structuredContent?: Record<string, unknown>; content?: { text?: string }[] }
        return { isError: raw.isError === true, structured: raw.structuredContent, text: raw.content?.[0]?.text ?? '' }
      },
    }
  }

  beforeAll(async () => {
    store = `${database()}${database().includes('?') ? '&' : '?'}schema=baseprop_${randomBytes(6).toString('hex')}`
    homes = [await newHome(), await newHome()]
    nodes = []
    assistants = []
    for (const index of [0, 1]) await openNode(index)
    folder = await mkdtemp(join(tmpdir(), 'quire-base-property-'))
    await openWorkspaceAsPerson(nodes[0]!.services.engine.store, nodes[0]!.services.engine.views.workspace, folder, USER)
  })
  afterAll(async () => {
    await Promise.allSettled(assistants.map((assistant) => assistant.client.close()))
    await Promise.allSettled(nodes.map((node) => node.close()))
    await rm(folder, { recursive: true, force: true })
  })

  const lines = (text: string) => text.split('\n')

  /** The assistant's edit of the text it knows: change, insert or delete a line. */
  function edited(known: string, edit: number, line: number, serial: number): string {
    const all = lines(known)
    const at = line % all.length
    if (edit === 0) all[at] = `assistant line ${serial}`
    else if (edit === 1) all.splice(at, 0, `inserted ${serial}`)
    else if (all.length > 1) all.splice(at, 1)
    else all[at] = `only ${serial}`
    return all.join('\n')
  }

  async function personTypes(node: Quire, docId: string, at: number, marker: string): Promise<void> {
    const state = (await node.services.engine.documents.get(docId))!
    const typist = new Y.Doc()
    Y.applyUpdate(typist, Y.encodeStateAsUpdate(state.ydoc))
    const before = Y.encodeStateVector(typist)
    const text = typist.getText('source')
    text.insert(at % (text.length + 1), marker)
    const update = Y.encodeStateAsUpdate(typist, before)
    typist.destroy()
    await (await node.services.engine.commands.documents.applyPeerUpdates(docId, [update], { kind: 'peer', peer: 'console' })).durable
  }

  it('DOC.WRITE.BASE every acknowledged write replays to exactly what it sent plus what the person typed after its base', async () => {
    let run = 0
    await fc.assert(
      fc.asyncProperty(steps, async (sequence) => {
        run += 1
        const file = join(folder, `doc-${run}.md`)
        await writeFile(file, 'first line\nsecond line\nthird line\n')
        const opened = await assistants[0]!.call('workspace', { action: 'open', filePath: file })
        expect(opened.isError, opened.text).toBe(false)
        const tabId = opened.structured!.tabId as string
        const docId = nodes[0]!.services.engine.views.workspace.state.tabs.get(tabId)!.docId
        try {
        for (const node of nodes) await node.services.engine.store.caughtUp()
        // What the assistant knows: the text it last read or wrote, the revision it was told, and the markers typed
        // since its last read (it has not seen them).
        let known: string | undefined
        let knownRevision: string | undefined
        let unseen: string[] = []
        const acks: { revision: string; sent: string; unseen: string[] }[] = []
        let serial = 0
        for (const step of sequence) {
          serial += 1
          if (step.kind === 'read') {
            const answer = await assistants[step.node]!.call('document', { action: 'read', tabId })
            expect(answer.isError, answer.text).toBe(false)
            known = answer.structured!.content as string
            knownRevision = answer.structured!.revision as string
            unseen = []
          } else if (step.kind === 'type') {
            const marker = `⟦p${serial}⟧`
            await personTypes(nodes[step.node]!, docId, step.at, marker)
            unseen.push(marker)
          } else if (step.kind === 'restart') {
            await assistants[step.node]!.client.close()
            await nodes[step.node]!.close()
            await openNode(step.node)
          } else if (known !== undefined) {
            const sent = edited(known, step.kind === 'write' ? step.edit : 0, step.line, serial)
            const node = step.kind === 'fail' ? 0 : step.node
            const withRevision = step.kind === 'write' && step.expected && knownRevision !== undefined
            if (step.kind === 'fail') passing = step.when === 'journal' ? 0 : 1
            const answer = await assistants[node]!.call('document', { action: 'write', tabId, content: sent, save: false, ...(withRevision ? { expected_revision: knownRevision } : {}) })
            passing = Infinity
            if (step.kind === 'fail') {
              expect(answer.isError, answer.text).toBe(true)
              expect(answer.text).toContain('JOURNAL_UNAVAILABLE')
            } else if (answer.isError) {
              // Only an expected revision the person's typing made stale may refuse it.
              expect(withRevision, answer.text).toBe(true)
              expect(answer.text).toContain('STALE')
            } else {
              expect(answer.structured).toMatchObject({ applied: true, durable: true })
              acks.push({ revision: answer.structured!.revision as string, sent, unseen: withRevision ? [] : [...unseen] })
              known = sent
              knownRevision = answer.structured!.revision as string
              if (withRevision) unseen = []
            }
          }
        }
        for (const node of nodes) {
          await node.services.engine.store.caughtUp()
          for (const ack of acks) {
            let replayed = await replayDocument(node.services.engine, docId, ack.revision)
            // A marker typed later may split an earlier one: they come out newest first.
            for (const marker of [...ack.unseen].reverse()) {
              expect(replayed.split(marker).length, `${marker} once in ${JSON.stringify(replayed)}`).toBe(2)
              replayed = replayed.replace(marker, '')
            }
            expect(replayed).toBe(ack.sent)
          }
        }
        } finally {
          passing = Infinity
          await assistants[0]!.call('workspace', { action: 'close', tabId, force: true })
        }
      }),
      fuzzParameters({ numRuns: 12 }),
    )
    const heads = new Set<string>()
    for (const node of nodes) {
      await node.services.engine.store.caughtUp()
      const report = await verify(node.services.engine)
      expect(report.mismatches).toEqual([])
      // The hash chain holds through lease hand-overs, refused and rolled-back writes and restarts (issue 29 item 4).
      expect(report.integrity.chain?.broken).toBeUndefined()
      heads.add(`${report.integrity.chain?.head.position}:${report.integrity.chain?.head.hash}`)
    }
    expect(heads.size).toBe(1)
  }, 240_000)
})
