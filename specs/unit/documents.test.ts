import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { USER } from '../../core/events/actor.js'
import { isQuireError } from '../../core/errors.js'
import { useTempHomes } from '../support/tempHome.js'

const newHome = useTempHomes()

describe('documents', () => {
  it('creates, writes, and reopens with identical content and revision', async () => {
    const home = await newHome()
    const engine = await openEmbeddedEngine(home)
    const { docId, revision } = await engine.commands.documents.create({
      kind: 'markdown', content: 'hello\r\nworld', path: null, title: 'x', origin: 'untitled', actor: USER,
    })
    const state = (await engine.documents.get(docId))!
    expect(state.content).toBe('hello\nworld')
    expect(state.revision).toBe(revision)
    const written = await engine.commands.documents.write({ docId, content: 'hello there\nworld', expectedRevision: revision, actor: USER })
    expect(written.changed).toBe(true)
    expect(written.revision).not.toBe(revision)
    const same = await engine.commands.documents.write({ docId, content: 'hello there\nworld', actor: USER })
    expect(same).toEqual({ revision: written.revision, changed: false, durable: true })
    await expect(engine.commands.documents.write({ docId, content: 'x', expectedRevision: revision, actor: USER })).rejects.toSatisfy(
      (error) => isQuireError(error, 'STALE') && error.details.current_revision === written.revision,
    )
    await engine.close()
    const reopened = await openEmbeddedEngine(home)
    const again = (await reopened.documents.get(docId))!
    expect(again.content).toBe('hello there\nworld')
    expect(again.revision).toBe(written.revision)
    const rebuilt = (await reopened.documents.rebuild(docId))!
    expect(rebuilt.content).toBe(again.content)
    expect(rebuilt.revision).toBe(again.revision)
    await reopened.close()
  })

  it('records peer updates and ignores duplicates', async () => {
    const engine = await openEmbeddedEngine(await newHome())
    const { docId } = await engine.commands.documents.create({
      kind: 'markdown', content: '', path: null, title: 'p', origin: 'untitled', actor: USER,
    })
    const peer = new Y.Doc()
    const updates: Uint8Array[] = []
    peer.on('update', (u: Uint8Array) => updates.push(u))
    peer.getText('source').insert(0, 'abc')
    peer.getText('source').delete(1, 1)
    const first = await engine.commands.documents.applyPeerUpdates(docId, updates, { kind: 'peer', peer: 'p1' })
    await first.durable
    expect(first.recorded).toBe(2)
    const again = await engine.commands.documents.applyPeerUpdates(docId, updates, { kind: 'peer', peer: 'p1' })
    expect(again.recorded).toBe(0)
    expect(again.revision).toBe(first.revision)
    expect((await engine.documents.get(docId))!.content).toBe('ac')
    await engine.close()
  })
})

describe('dirty, lazy loading and write turns', () => {
  it('is dirty exactly when the content differs from what was last opened or saved', async () => {
    const engine = await openEmbeddedEngine(await newHome())
    const { docId } = await engine.commands.documents.create({
      kind: 'markdown', content: 'on disk', path: '/tmp/x.md', title: 'x', origin: 'file', actor: USER, matchesFile: true,
    })
    const state = (await engine.documents.get(docId))!
    expect(state.dirty).toBe(false)
    await engine.commands.documents.write({ docId, content: 'edited', actor: USER })
    expect(state.dirty).toBe(true)
    await engine.commands.documents.write({ docId, content: 'on disk', actor: USER })
    expect(state.dirty).toBe(false)
    await engine.commands.documents.write({ docId, content: 'saved text', actor: USER })
    await engine.commands.documents.markSaved(docId, '/tmp/x.md', 'save', USER)
    expect(state.dirty).toBe(false)
    const untitled = await engine.commands.documents.create({
      kind: 'markdown', content: '', path: null, title: 'u', origin: 'untitled', actor: USER,
    })
    expect((await engine.documents.get(untitled.docId))!.dirty).toBe(false)
    await engine.commands.documents.write({ docId: untitled.docId, content: 'text', actor: USER })
    expect((await engine.documents.get(untitled.docId))!.dirty).toBe(true)
    await engine.close()
  })

  it('loads documents one at a time, on first use', async () => {
    const home = await newHome()
    const first = await openEmbeddedEngine(home)
    const big = await first.commands.documents.create({ kind: 'markdown', content: 'x'.repeat(100_000), path: null, title: 'big', origin: 'untitled', actor: USER })
    const small = await first.commands.documents.create({ kind: 'markdown', content: 'small', path: null, title: 'small', origin: 'untitled', actor: USER })
    await first.close()
    const engine = await openEmbeddedEngine(home)
    expect(engine.documents.peek(big.docId)).toBeUndefined()
    expect((await engine.documents.get(small.docId))!.content).toBe('small')
    expect(engine.documents.peek(big.docId)).toBeUndefined()
    expect(await engine.documents.get('d-missing')).toBeUndefined()
    await engine.close()
  })

  it('refuses bad input before anything is recorded', async () => {
    const engine = await openEmbeddedEngine(await newHome())
    const { docId } = await engine.commands.documents.create({ kind: 'markdown', content: 'ok', path: null, title: 't', origin: 'untitled', actor: USER })
    const head = engine.store.headPosition
    await expect(engine.commands.documents.write({ docId, content: 'bad \uD800 surrogate', actor: USER })).rejects.toSatisfy((error) => isQuireError(error, 'INVALID_TEXT'))
    await expect(engine.commands.documents.applyPeerUpdates(docId, [Uint8Array.of(1, 2, 3, 200)], { kind: 'peer', peer: 'p' })).rejects.toSatisfy((error) => isQuireError(error, 'INVALID_UPDATE'))
    await expect(engine.commands.documents.write({ docId: 'd-nope', content: 'x', actor: USER })).rejects.toSatisfy((error) => isQuireError(error, 'NOT_FOUND'))
    await expect(engine.commands.documents.write({ docId, content: 'x', expectedRevision: 'garbage', actor: USER })).rejects.toSatisfy((error) => isQuireError(error, 'STALE'))
    expect(engine.store.headPosition).toBe(head)
    expect((await engine.documents.get(docId))!.content).toBe('ok')
    await engine.close()
  })

  it('serialises writes per document and answers WRITE_BUSY after waiting too long', async () => {
    const { DocumentTurns } = await import('../../core/documents/turns.js')
    const turns = new DocumentTurns(50)
    const order: string[] = []
    const hold = (label: string, ms: number) =>
      turns.run('d', () => new Promise<void>((resolve) => setTimeout(() => { order.push(label); resolve() }, ms)))
    const first = hold('first', 10)
    const second = turns.run('d', async () => void order.push('second'))
    await turns.run('e', async () => void order.push('other document'))
    await Promise.all([first, second])
    expect(order).toEqual(['other document', 'first', 'second'])
    const long = hold('long', 120)
    const busy = await turns.run('d', async () => order.push('never')).catch((error: unknown) => error)
    expect(isQuireError(busy, 'WRITE_BUSY')).toBe(true)
    await long
    await turns.run('d', async () => void order.push('after'))
    expect(order).toEqual(['other document', 'first', 'second', 'long', 'after'])
  })
})
