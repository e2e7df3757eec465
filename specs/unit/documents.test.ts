import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { openEngine } from '../../core/engine.js'
import { USER } from '../../core/events/actor.js'
import { isQuireError } from '../../core/errors.js'
import { useTempHomes } from '../support/tempHome.js'

const newHome = useTempHomes()

describe('documents', () => {
  it('creates, writes, and reopens with identical content and revision', async () => {
    const home = await newHome()
    const engine = await openEngine(home)
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
    const reopened = await openEngine(home)
    const again = (await reopened.documents.get(docId))!
    expect(again.content).toBe('hello there\nworld')
    expect(again.revision).toBe(written.revision)
    const rebuilt = (await reopened.documents.rebuild(docId))!
    expect(rebuilt.content).toBe(again.content)
    expect(rebuilt.revision).toBe(again.revision)
    await reopened.close()
  })

  it('records peer updates and ignores duplicates', async () => {
    const engine = await openEngine(await newHome())
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
