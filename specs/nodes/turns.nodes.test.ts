import { afterEach, describe, expect, it } from 'vitest'
import { USER, type Actor } from '../../core/events/actor.js'
import { isQuireError } from '../../core/errors.js'
import { closeNodes, eventually, useNodes } from './support.js'

/** CONC.4 across nodes: a document's write turn is one among every node sharing the log. */
const cluster = useNodes()
afterEach(closeNodes)
const AI: Actor = { kind: 'mcp', principal: 'claude', connection: 'c-1' }

describe('write turns across nodes (CONC.4)', () => {
  it('a turn held on one node makes a write on another wait, and answer WRITE_BUSY once the wait is over', async () => {
    const [a, b] = await cluster(2)
    const { docId } = await a!.services.documents.create({ kind: 'markdown', content: 'x\n', path: null, title: 't', origin: 'untitled', actor: USER })
    await eventually(async () => (await b!.services.engine.documents.get(docId)) !== undefined)
    let letGo!: () => void
    const holding = new Promise<void>((resolve) => (letGo = resolve))
    let held!: () => void
    const taken = new Promise<void>((resolve) => (held = resolve))
    // What a long write does on node A: it holds the document's turn.
    const turnOnA = a!.services.documents.turns.run(docId, async () => {
      held()
      await holding
    })
    await taken
    const refused = await b!.services.documents.write({ docId, content: 'from b\n', actor: AI }).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(isQuireError(refused, 'WRITE_BUSY')).toBe(true)
    expect((refused as Error).message).toMatch(/on another node/)
    letGo()
    await turnOnA
    const written = await b!.services.documents.write({ docId, content: 'from b\n', actor: AI })
    expect(written.changed).toBe(true)
    await eventually(() => a!.services.engine.documents.peek(docId)?.content === 'from b\n')
  })

  it('a write on another node waits for the turn and runs once it is released within the wait', async () => {
    const [a, b] = await cluster(2)
    const { docId } = await a!.services.documents.create({ kind: 'markdown', content: 'x\n', path: null, title: 't', origin: 'untitled', actor: USER })
    await eventually(async () => (await b!.services.engine.documents.get(docId)) !== undefined)
    const order: string[] = []
    let held!: () => void
    const taken = new Promise<void>((resolve) => (held = resolve))
    const turnOnA = a!.services.documents.turns.run(docId, async () => {
      held()
      await new Promise((resolve) => setTimeout(resolve, 300))
      order.push('a released')
    })
    await taken
    const onB = b!.services.documents.write({ docId, content: 'b\n', actor: AI }).then(() => order.push('b wrote'))
    await Promise.all([turnOnA, onB])
    expect(order).toEqual(['a released', 'b wrote'])
  })
})
