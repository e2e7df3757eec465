import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as Y from 'yjs'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { USER } from '../../core/events/actor.js'
import { DocumentState } from '../../core/documents/documentState.js'
import { textHunks } from '../../core/documents/textDiff.js'
import { MIRROR_FRAGMENT } from '../../core/markdown/mirror.js'
import { fuzzParameters } from '../support/fuzz.js'
import { useTempHomes } from '../support/tempHome.js'

const newHome = useTempHomes()

afterEach(() => {
  vi.restoreAllMocks()
})

/**
 * What DocumentState keeps so a write does not walk the whole Y.Text (tombstones included) again: the content and
 * the snapshot, carried across its own changes. Each must always equal what a fresh walk would give.
 */
describe('document caches', () => {
  const line = fc.constantFrom('# Title\n', 'a line\n', 'another line\n', '\n', '- item\n', 'x', '😀 smile\n', 'tail')
  const text = fc.array(line, { maxLength: 12 }).map((lines) => lines.join(''))
  const step = fc.oneof(
    fc.record({ kind: fc.constant('local' as const), text }),
    fc.record({ kind: fc.constant('peer' as const), at: fc.nat(), remove: fc.nat({ max: 6 }), insert: fc.constantFrom('', 'p', 'peer\n') }),
    fc.record({ kind: fc.constant('read' as const) }),
  )

  it('the carried snapshot and content equal a fresh Y.snapshot and toString after local and peer changes', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 25 }), (steps) => {
        const state = new DocumentState('d-test')
        const peer = new Y.Doc()
        const sync = () => {
          Y.applyUpdate(peer, Y.encodeStateAsUpdate(state.ydoc, Y.encodeStateVector(peer)))
        }
        for (const one of steps) {
          if (one.kind === 'local') {
            state.transactLocal(textHunks(state.content, one.text))
            state.primeContent(one.text)
          } else if (one.kind === 'peer') {
            sync()
            const peerText = peer.getText('source')
            const at = peerText.length === 0 ? 0 : one.at % peerText.length
            const vector = Y.encodeStateVector(state.ydoc)
            peer.transact(() => {
              peerText.delete(at, Math.min(one.remove, peerText.length - at))
              if (one.insert) peerText.insert(at, one.insert)
            })
            state.applyRemote(Y.encodeStateAsUpdate(peer, vector))
          }
          // Asked after every step, so the cache is there for the next change to carry.
          expect(Y.equalSnapshots(state.snapshot(), Y.snapshot(state.ydoc))).toBe(true)
          expect(state.content).toBe(state.text.toString())
        }
        state.destroy()
        peer.destroy()
      }),
      fuzzParameters({ numRuns: 300 }),
    )
  })

  it('a tab\'s writes neither rebuild the text from its items nor create the WYSIWYG mirror', async () => {
    const engine = await openEmbeddedEngine(await newHome())
    try {
      const initial = Array.from({ length: 50 }, (_, i) => `line ${i}\n`).join('')
      const { docId, revision } = await engine.commands.documents.create({
        kind: 'markdown', content: initial, path: null, title: 'x', origin: 'untitled', actor: USER,
      })
      const state = (await engine.documents.get(docId))!
      const writer = { tabId: 't-1', windowLabel: 'main' }
      await engine.commands.documents.readAs(docId, { tabId: writer.tabId, actor: USER }, () => undefined)
      const walks = vi.spyOn(Y.Text.prototype as { toString(): string }, 'toString')
      const first = initial.replace('line 7\n', 'line seven\n')
      const written = await engine.commands.documents.write({ docId, content: first, expectedRevision: revision, writer, fromTabBase: true, actor: USER })
      const second = first.replace('line 30\n', 'line thirty\n')
      await engine.commands.documents.write({ docId, content: second, writer, fromTabBase: true, actor: USER })
      await engine.commands.documents.write({ docId, content: second.replace('line 2\n', ''), expectedRevision: (await engine.documents.get(docId))!.revision, writer, actor: USER })
      expect(state.content).toBe(second.replace('line 2\n', ''))
      expect(written.changed).toBe(true)
      expect(walks).not.toHaveBeenCalled()
      expect(state.ydoc.share.has(MIRROR_FRAGMENT)).toBe(false)
    } finally {
      await engine.close()
    }
  })
})
