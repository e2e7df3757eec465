import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { USER, type Actor } from '../../core/events/actor.js'
import { isQuireError } from '../../core/errors.js'
import { closeNodes, eventually, useNodes } from './support.js'

/**
 * Several nodes on one PostgreSQL log: each folds what the others append, and an expected-version race across nodes
 * has exactly one winner, the loser answering as it would have on one node.
 */
const cluster = useNodes()
const AI: Actor = { kind: 'mcp', principal: 'claude', connection: 'c-1' }
afterEach(closeNodes)

describe('documents across nodes', () => {
  it('a document created and written on one node reads the same, content and revision, on another', async () => {
    const [a, b] = await cluster(2)
    const { docId, revision } = await a!.services.documents.create({ kind: 'markdown', content: 'one\n', path: null, title: 'shared', origin: 'untitled', actor: USER })
    // A node reads what it has heard of: A's commit reaches B by NOTIFY.
    await eventually(async () => (await b!.services.engine.documents.get(docId)) !== undefined)
    const onB = await b!.services.engine.documents.get(docId)
    expect(onB?.content).toBe('one\n')
    expect(onB?.revision).toBe(revision)
    const written = await a!.services.documents.write({ docId, content: 'one\ntwo\n', expectedRevision: revision, actor: AI })
    // B holds the document now: A's write reaches it through the log, not by B asking again.
    await eventually(() => b!.services.engine.documents.peek(docId)?.revision === written.revision)
    expect(b!.services.engine.documents.peek(docId)!.content).toBe('one\ntwo\n')
    const back = await b!.services.documents.write({ docId, content: 'one\ntwo\nthree\n', expectedRevision: written.revision, actor: AI })
    await eventually(() => a!.services.engine.documents.peek(docId)?.revision === back.revision)
    expect(a!.services.engine.documents.peek(docId)!.content).toBe('one\ntwo\nthree\n')
  })

  it('writes racing on one revision from two nodes: exactly one is applied, the other answers STALE', async () => {
    const [a, b] = await cluster(2)
    const { docId, revision } = await a!.services.documents.create({ kind: 'markdown', content: 'base\n', path: null, title: 'race', origin: 'untitled', actor: USER })
    await eventually(async () => (await b!.services.engine.documents.get(docId)) !== undefined)
    for (let round = 0; round < 10; round += 1) {
      const current = a!.services.engine.documents.peek(docId)!.revision
      await eventually(() => b!.services.engine.documents.peek(docId)?.revision === current)
      const outcomes = await Promise.allSettled([
        a!.services.documents.write({ docId, content: `a ${round}\n`, expectedRevision: current, actor: AI }),
        b!.services.documents.write({ docId, content: `b ${round}\n`, expectedRevision: current, actor: AI }),
      ])
      const applied = outcomes.filter((outcome) => outcome.status === 'fulfilled')
      const refused = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected')
      expect(applied).toHaveLength(1)
      expect(refused).toHaveLength(1)
      expect(isQuireError(refused[0]!.reason, 'STALE')).toBe(true)
      const winner = (applied[0] as PromiseFulfilledResult<{ revision: string }>).value.revision
      await eventually(() => a!.services.engine.documents.peek(docId)?.revision === winner && b!.services.engine.documents.peek(docId)?.revision === winner)
      expect(a!.services.engine.documents.peek(docId)!.content).toBe(b!.services.engine.documents.peek(docId)!.content)
    }
    expect(revision).not.toBe(a!.services.engine.documents.peek(docId)!.revision)
  })

  it('writes without an expected revision from three nodes at once are all applied, in one order every node sees', async () => {
    const nodes = await cluster(3)
    const { docId } = await nodes[0]!.services.documents.create({ kind: 'markdown', content: '', path: null, title: 'many', origin: 'untitled', actor: USER })
    for (const node of nodes) await eventually(async () => (await node.services.engine.documents.get(docId)) !== undefined)
    await Promise.all(
      nodes.flatMap((node, index) =>
        Array.from({ length: 5 }, (_, n) => node.services.documents.write({ docId, content: (text: string) => `${text}node ${index} line ${n}\n`, actor: AI })),
      ),
    )
    // Every write was acknowledged: every node comes to hold all fifteen lines, the same text in the same order.
    const lines = (node: (typeof nodes)[number]) => node.services.engine.documents.peek(docId)!.content.split('\n').filter(Boolean).length
    await eventually(() => nodes.every((node) => lines(node) === 15))
    const texts = nodes.map((node) => node.services.engine.documents.peek(docId)!.content)
    expect(new Set(texts).size).toBe(1)
    expect(texts[0]!.split('\n').filter(Boolean)).toHaveLength(15)
  })

  it('two people typing on two nodes at once: each keystroke lands, both nodes converge, and neither rebuilds the document on a conflict', async () => {
    const [a, b] = await cluster(2)
    const { docId } = await a!.services.documents.create({ kind: 'markdown', content: '', path: null, title: 'typing', origin: 'untitled', actor: USER })
    await eventually(async () => (await b!.services.engine.documents.get(docId)) !== undefined)
    const held = [a!, b!].map((node) => node.services.engine.documents.peek(docId)!)
    // Each person types into a Y.Doc of their own, as a peer does, and each keystroke is sent as it is made.
    const typed = await Promise.all(
      [a!, b!].map(async (node, person) => {
        const doc = new Y.Doc()
        doc.clientID = 1_000 + person
        Y.applyUpdate(doc, Y.encodeStateAsUpdate(node.services.engine.documents.peek(docId)!.ydoc))
        const sends: Promise<unknown>[] = []
        doc.on('update', (update: Uint8Array) => {
          sends.push(node.services.engine.commands.documents.applyPeerUpdates(docId, [update], USER).then((outcome) => outcome.durable))
        })
        for (let key = 0; key < 60; key += 1) {
          doc.getText('source').insert(0, person === 0 ? 'a' : 'b')
          if (key % 4 === 0) await new Promise((resolve) => setImmediate(resolve))
        }
        await Promise.all(sends)
        return sends.length
      }),
    )
    expect(typed).toEqual([60, 60])
    await eventually(() => [a!, b!].every((node) => node.services.engine.documents.peek(docId)?.content.length === 120), 30_000)
    const [onA, onB] = [a!, b!].map((node) => node.services.engine.documents.peek(docId)!)
    expect(onA!.content).toBe(onB!.content)
    expect([...onA!.content].filter((char) => char === 'a')).toHaveLength(60)
    // The state each node held from the start is the one it holds now: no conflict made it reload the document.
    expect(onA).toBe(held[0])
    expect(onB).toBe(held[1])
    const rebuilt = await b!.services.engine.documents.rebuild(docId)
    expect(rebuilt!.content).toBe(onB!.content)
    rebuilt!.destroy()
  })

  it('settings, agents and comments changed on one node hold on the others', async () => {
    const [a, b] = await cluster(2)
    await a!.services.settings.set('trackProvenance', true, USER)
    await eventually(() => b!.services.engine.views.settings.state.trackProvenance === true)
    const { docId } = await a!.services.documents.create({ kind: 'markdown', content: 'comment me\n', path: null, title: 'c', origin: 'untitled', actor: USER })
    await a!.services.comments.create(docId, { from: 0, to: 7 }, 'look', USER)
    await eventually(() => b!.services.engine.views.comments.of(docId).threads.size === 1)
  })

  it('an approval an assistant asked for on one node, decided by the person on another, is granted on the first', async () => {
    const [a, b] = await cluster(2)
    const asked = await a!.services.approvals.gate('open_workspace', '/srv/shared', 'c-1', 'claude', AI)
    expect(asked.status).toBe('requested')
    await eventually(() => b!.services.engine.views.approvals.state.has(asked.approval.approvalId))
    await b!.services.approvals.decide(asked.approval.approvalId, 'approved', USER)
    await eventually(async () => (await a!.services.approvals.gate('open_workspace', '/srv/shared', 'c-1', 'claude', AI)).status === 'granted')
  })
})
