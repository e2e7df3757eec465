import * as Y from 'yjs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { syncMirrorFromSource, syncSourceFromMirror } from '../../core/documents/bridge.js'
import { readMirror } from '../../core/markdown/mirror.js'
import { parseMarkdown, parseMarkdownWithSpans } from '../../core/markdown/parse.js'
import { serializeMarkdown } from '../../core/markdown/serialize.js'
import { fuzzParameters } from '../support/fuzz.js'
import { mirrorTexts } from '../support/mirrorTexts.js'

const canonical = (text: string) => serializeMarkdown(parseMarkdown(text))
const send = (from: Y.Doc, to: Y.Doc) => Y.applyUpdate(to, Y.encodeStateAsUpdate(from, Y.encodeStateVector(to)))

const snippet = fc.string({ minLength: 1, maxLength: 6, unit: fc.constantFrom('a', 'b', ' ', '*', '_', '`', '#', '-', '>', '[', ']', '(', ')', '1', '.', '\\', '~', '<', '\n') })
const plain = fc.string({ minLength: 1, maxLength: 5, unit: fc.constantFrom('x', 'y', ' ', '*', '#', '-', '[', '_', '1', '.') })
const start = fc.constantFrom(
  '',
  'one\n',
  '# T\n\n* a\n* b\n\npara _em_\n',
  'Title\n===\n\n+ x\n+ y\n\n| a |\n|---|\n| 1 |\n\ntext\n',
  '> quote\n\n```js\ncode\n```\n\n1) one\n2) two\n',
)

type Step =
  | { kind: 'source'; at: number; remove: number; insert: string }
  | { kind: 'type'; pick: number; at: number; insert: string }
  | { kind: 'erase'; pick: number; at: number; remove: number }
  | { kind: 'block'; at: number; insert: string }
  | { kind: 'drop'; at: number }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('source' as const), at: fc.nat(), remove: fc.nat({ max: 4 }), insert: snippet }),
  fc.record({ kind: fc.constant('type' as const), pick: fc.nat(), at: fc.nat(), insert: plain }),
  fc.record({ kind: fc.constant('erase' as const), pick: fc.nat(), at: fc.nat(), remove: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant('block' as const), at: fc.nat(), insert: plain }),
  fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }),
)

/** A WYSIWYG peer's edit, made directly on its bound fragment as y-prosemirror would. */
function peerEdit(peer: Y.Doc, edit: Step): void {
  const fragment = peer.getXmlFragment('prosemirror')
  if (edit.kind === 'type' || edit.kind === 'erase') {
    const all = mirrorTexts(fragment)
    if (all.length === 0) return
    const text = all[edit.pick % all.length]!
    const at = edit.at % (text.length + 1)
    if (edit.kind === 'type') text.insert(at, edit.insert)
    else if (text.length > at) text.delete(at, Math.min(edit.remove, text.length - at))
  } else if (edit.kind === 'block') {
    const paragraph = new Y.XmlElement('paragraph')
    paragraph.insert(0, [new Y.XmlText(edit.insert)])
    fragment.insert(edit.at % (fragment.length + 1), [paragraph])
  } else if (edit.kind === 'drop' && fragment.length > 1) {
    fragment.delete(edit.at % fragment.length, 1)
  }
}

describe('bridge properties', () => {
  it('converges: after each bridge run, source and mirror serialize alike, and peers agree', () => {
    fc.assert(
      fc.property(start, fc.array(step, { maxLength: 12 }), (initial, steps) => {
        const server = new Y.Doc()
        server.getText('source').insert(0, initial)
        syncMirrorFromSource(server)
        const peer = new Y.Doc()
        send(server, peer)
        for (const edit of steps) {
          if (edit.kind === 'source') {
            const text = server.getText('source')
            const at = edit.at % (text.length + 1)
            text.delete(at, Math.min(edit.remove, text.length - at))
            text.insert(at, edit.insert)
            syncMirrorFromSource(server)
          } else {
            peerEdit(peer, edit)
            send(peer, server)
            syncSourceFromMirror(server)
          }
          send(server, peer)
          const source = server.getText('source').toString()
          const mirror = serializeMarkdown(readMirror(server.getXmlFragment('prosemirror')).doc)
          expect(canonical(source), JSON.stringify({ source, mirror })).toBe(canonical(mirror))
          expect(peer.getXmlFragment('prosemirror').toString()).toBe(server.getXmlFragment('prosemirror').toString())
          expect(peer.getText('source').toString()).toBe(source)
        }
      }),
      fuzzParameters({ numRuns: 150 }),
    )
  })

  it('a WYSIWYG edit of one paragraph leaves every other line of a non-canonical source byte-identical', () => {
    const source = 'Title\n=====\n\n* star\n* list\n\n\nFirst _para_\nline two  \n\n| t |\n|---|\n\nSecond __para__\n\n+ plus\n'
    fc.assert(
      fc.property(fc.constantFrom(2, 4), fc.nat(), plain, (block, at, insert) => {
        const server = new Y.Doc()
        server.getText('source').insert(0, source)
        syncMirrorFromSource(server)
        const { spans } = parseMarkdownWithSpans(source)
        const span = spans[block]!
        const text = mirrorTexts(server.getXmlFragment('prosemirror').get(block) as Y.XmlElement)[0]!
        text.insert(at % (text.length + 1), insert)
        syncSourceFromMirror(server)
        const after = server.getText('source').toString()
        const tail = source.length - span.to
        expect(after.slice(0, span.from)).toBe(source.slice(0, span.from))
        expect(after.slice(after.length - tail)).toBe(source.slice(span.to))
        expect(canonical(after)).toBe(canonical(serializeMarkdown(readMirror(server.getXmlFragment('prosemirror')).doc)))
      }),
      fuzzParameters({ numRuns: 150 }),
    )
  })
})
