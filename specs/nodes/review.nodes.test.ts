import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import type { Quire } from '../../adapters/host/quire.js'
import { compareDocuments } from '../../core/audit/verify.js'
import { USER, type Actor } from '../../core/events/actor.js'
import { closeNodes, eventually, useNodes } from './support.js'
import { personTypes as typeAsPerson } from '../support/personTypes.js'

/**
 * Reviewing AI changes on two nodes of one PostgreSQL log (DESIGN §11): changes an assistant made through node A,
 * the person typing on node B inside one of them, the undo (and redo) made on B: both nodes hold the same text and the
 * same changes, each equal to a rebuild from the log.
 */
const cluster = useNodes()
const CLAUDE: Actor = { kind: 'mcp', principal: 'claude', connection: 'c-1' }
const WRITER = { tabId: 't-1', windowLabel: 'main' }
afterEach(closeNodes)

/** The person types (a peer's update, as the console sends it), and the keystroke is in the log. */
const personTypes = (node: Quire, docId: string, edit: (text: Y.Text) => void) => typeAsPerson(node.services.engine, docId, edit, 'console')

async function sameOnBoth(a: Quire, b: Quire, docId: string): Promise<string> {
  const head = async (node: Quire) => {
    await node.services.engine.commands.documents.caughtUp(docId)
    return (await node.services.engine.documents.get(docId))!
  }
  await eventually(async () => (await head(a)).revision === (await head(b)).revision)
  const [onA, onB] = [await head(a), await head(b)]
  expect(onA.content).toBe(onB.content)
  expect(onA.aiChanges()).toEqual(onB.aiChanges())
  const rebuilt = (await a.services.engine.documents.rebuild(docId))!
  try {
    expect(compareDocuments(onA, rebuilt)).toEqual([])
    expect(rebuilt.aiChanges()).toEqual(onA.aiChanges())
  } finally {
    rebuilt.destroy()
  }
  return onA.content
}

describe('reviewing AI changes across nodes', () => {
  it('changes made through node A, the person typing inside one on node B, undo and redo on node B: both nodes agree with the log', async () => {
    const [a, b] = (await cluster(2)) as [Quire, Quire]
    const { docId } = await a.services.documents.create({ kind: 'markdown', content: 'one\ntwo\nthree\n', path: null, title: 'shared', origin: 'untitled', actor: USER })
    const write = (content: string) => a.services.documents.write({ docId, content, actor: CLAUDE, writer: WRITER, fromTabBase: true })
    await write('ONE\ntwo\nthree\n')
    await write('ONE\nsecond, by the assistant\nthree\n')
    await write('ONE\nsecond, by the assistant\nTHREE\n')
    await eventually(async () => (await b.services.engine.documents.get(docId))?.content === 'ONE\nsecond, by the assistant\nTHREE\n')
    await personTypes(b, docId, (text) => text.insert(text.toString().indexOf('by the'), 'typed '))
    const changes = await b.services.review.list(docId)
    expect(changes).toHaveLength(3)

    await b.services.review.undo(docId, changes[1]!.id, undefined, USER)
    const undone = await sameOnBoth(a, b, docId)
    expect(undone).toBe('ONE\ntwotyped \nTHREE\n')
    expect((await a.services.review.list(docId)).map((change) => change.state)).toEqual(['pending', 'undone', 'pending'])

    await b.services.review.redo(docId, changes[1]!.id, undefined, USER)
    expect(await sameOnBoth(a, b, docId)).toBe('ONE\nsecond, typed by the assistant\nTHREE\n')
    // And undone again through node A.
    await a.services.review.undo(docId, changes[1]!.id, undefined, USER)
    expect(await sameOnBoth(a, b, docId)).toBe('ONE\ntwotyped \nTHREE\n')
  })
})
