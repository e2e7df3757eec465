import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { DocumentState } from '../../core/documents/documentState.js'
import { textHunks } from '../../core/documents/textDiff.js'
import { MIRROR_FRAGMENT } from '../../core/markdown/mirror.js'

/**
 * An idle document costs no more than a plain Y.Doc of its text (issue 16; the bytes are measured by
 * bench/scaling/idleMemory.ts): its state hears the end of each transaction without a listener of its own, and its
 * Y.Doc drops the handlers Yjs registers for providers. These tests hold what that must not change: every
 * transaction on the Y.Doc, whoever makes it, is folded as before.
 */
describe('idle document memory', () => {
  const restored = (content: string): DocumentState => {
    const made = new DocumentState('d-idle')
    made.transactLocal(textHunks('', content))
    const state = DocumentState.fromSnapshot('d-idle', made.encodeSnapshot())
    made.destroy()
    return state
  }

  it('a restored idle document holds no listener on its Y.Doc, whose guid is the document id', () => {
    const state = restored('# Idle\n\nSome text.\n')
    expect(state.ydoc._observers.size).toBe(0)
    expect(state.ydoc.guid).toBe('d-idle')
    state.transactLocal(textHunks(state.content, '# Idle\n\nMore text.\n'))
    // transactLocal's own capture of the update is gone once the change is made.
    expect(state.ydoc._observers.size).toBe(0)
    expect(state.content).toBe('# Idle\n\nMore text.\n')
    state.destroy()
  })

  it('a change made on the Y.Doc by someone other than the state moves the content, hash and snapshot caches', () => {
    const state = restored('one\ntwo\n')
    const peer = new Y.Doc()
    Y.applyUpdate(peer, Y.encodeStateAsUpdate(state.ydoc))
    // Cached before the changes below, so a change the state did not hear would leave them stale.
    expect(state.content).toBe('one\ntwo\n')
    const hashBefore = state.contentHash
    const snapshotBefore = state.snapshot()

    // A peer's update applied to the Y.Doc directly, not through applyRemote.
    const vector = Y.encodeStateVector(peer)
    peer.getText('source').insert(4, 'peer\n')
    Y.applyUpdate(state.ydoc, Y.encodeStateAsUpdate(peer, vector))
    expect(state.content).toBe('one\npeer\ntwo\n')
    expect(state.contentHash).not.toBe(hashBefore)
    expect(Y.equalSnapshots(state.snapshot(), snapshotBefore)).toBe(false)
    expect(Y.equalSnapshots(state.snapshot(), Y.snapshot(state.ydoc))).toBe(true)

    // An edit of the Y.Text in a transaction of its own, as an editor binding makes it.
    state.ydoc.transact(() => state.text.delete(0, 4))
    expect(state.content).toBe('peer\ntwo\n')
    expect(Y.equalSnapshots(state.snapshot(), Y.snapshot(state.ydoc))).toBe(true)
    peer.destroy()
    state.destroy()
  })

  it('applyRemote still tells a text change, a mirror-only change and a duplicate apart', () => {
    const state = restored('text\n')
    const peer = new Y.Doc()
    Y.applyUpdate(peer, Y.encodeStateAsUpdate(state.ydoc))
    const changeOnPeer = (change: () => void): Uint8Array => {
      const vector = Y.encodeStateVector(peer)
      peer.transact(change)
      return Y.encodeStateAsUpdate(peer, vector)
    }
    const textUpdate = changeOnPeer(() => peer.getText('source').insert(0, 'more '))
    expect(state.applyRemote(textUpdate)).toEqual({ stateChanged: true, textChanged: true, mirrorChanged: false })
    expect(state.applyRemote(textUpdate)).toEqual({ stateChanged: false, textChanged: false, mirrorChanged: false })
    state.ydoc.getXmlFragment(MIRROR_FRAGMENT)
    const mirrorUpdate = changeOnPeer(() => peer.getXmlFragment(MIRROR_FRAGMENT).insert(0, [new Y.XmlElement('paragraph')]))
    expect(state.applyRemote(mirrorUpdate)).toEqual({ stateChanged: true, textChanged: false, mirrorChanged: true })
    expect(state.content).toBe('more text\n')
    peer.destroy()
    state.destroy()
  })

  it('the state has folded a transaction before any other afterTransaction listener runs', () => {
    const state = restored('before\n')
    expect(state.content).toBe('before\n')
    const seen: string[] = []
    state.ydoc.on('afterTransaction', () => seen.push(state.content))
    state.ydoc.transact(() => state.text.insert(0, 'now '))
    expect(seen).toEqual(['now before\n'])
    state.destroy()
  })
})
