import fc from 'fast-check'
import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { syncMirrorFromSource } from '../../core/documents/bridge.js'
import { MIRROR_FRAGMENT, readMirror, readMirrorKept, SOURCE_TEXT } from '../../core/markdown/mirror.js'
import { fuzzParameters } from '../support/fuzz.js'
import { mirrorTexts } from '../support/mirrorTexts.js'

/**
 * The bridge reads the mirror again only where it changed since its last read (`readMirrorKept`): after any changes
 * a peer can make to the fragment, that read must be the whole read, block for block and index for index.
 */

type Change =
  | { kind: 'type'; pick: number; at: number; insert: string }
  | { kind: 'erase'; pick: number; at: number }
  | { kind: 'paragraph'; at: number; insert: string }
  | { kind: 'drop'; at: number }
  | { kind: 'level'; pick: number; level: number }
  | { kind: 'unknown'; at: number }

const pick = fc.double({ min: 0, max: 1, noNaN: true })
const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ kind: fc.constant('type' as const), pick, at: pick, insert: fc.string({ minLength: 1, maxLength: 4 }) }),
  fc.record({ kind: fc.constant('erase' as const), pick, at: pick }),
  fc.record({ kind: fc.constant('paragraph' as const), at: pick, insert: fc.string({ minLength: 0, maxLength: 4 }) }),
  fc.record({ kind: fc.constant('drop' as const), at: pick }),
  fc.record({ kind: fc.constant('level' as const), pick, level: fc.integer({ min: 1, max: 6 }) }),
  fc.record({ kind: fc.constant('unknown' as const), at: pick }),
)

function apply(fragment: Y.XmlFragment, step: Change): void {
  const index = (at: number, length: number) => Math.min(length, Math.floor(at * (length + 1)))
  if (step.kind === 'type' || step.kind === 'erase') {
    const all = mirrorTexts(fragment)
    if (all.length === 0) return
    const text = all[Math.min(all.length - 1, Math.floor(step.pick * all.length))]!
    const at = index(step.at, text.length)
    if (step.kind === 'type') text.insert(at, step.insert)
    else if (at < text.length) text.delete(at, 1)
  } else if (step.kind === 'paragraph') {
    const paragraph = new Y.XmlElement('paragraph')
    if (step.insert) paragraph.insert(0, [new Y.XmlText(step.insert)])
    fragment.insert(index(step.at, fragment.length), [paragraph])
  } else if (step.kind === 'drop') {
    if (fragment.length > 0) fragment.delete(Math.min(fragment.length - 1, Math.floor(step.at * fragment.length)), 1)
  } else if (step.kind === 'level') {
    const headings = fragment.toArray().filter((child): child is Y.XmlElement => child instanceof Y.XmlElement && child.nodeName === 'heading')
    if (headings.length > 0) headings[Math.min(headings.length - 1, Math.floor(step.pick * headings.length))]!.setAttribute('level', step.level as unknown as string)
  } else {
    fragment.insert(index(step.at, fragment.length), [new Y.XmlElement('no_such_block')])
  }
}

describe('the mirror read kept between reads (readMirrorKept)', () => {
  it('after random changes to the fragment, reads what a whole read reads', () => {
    const source = Array.from({ length: 12 }, (_, i) => `## Part ${i}\n\nText *${i}* and [a link](https://example.com/${i}).\n\n- one\n- two`).join('\n\n') + '\n'
    fc.assert(
      fc.property(fc.array(fc.array(change, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 12 }), (transactions) => {
        const ydoc = new Y.Doc()
        ydoc.getText(SOURCE_TEXT).insert(0, source)
        syncMirrorFromSource(ydoc)
        const fragment = ydoc.getXmlFragment(MIRROR_FRAGMENT)
        readMirrorKept(fragment)
        for (const steps of transactions) {
          ydoc.transact(() => steps.forEach((step) => apply(fragment, step)))
          const kept = readMirrorKept(fragment)
          const whole = readMirror(fragment)
          expect(kept.doc.toJSON()).toEqual(whole.doc.toJSON())
          expect(kept.indexes).toEqual(whole.indexes)
        }
      }),
      fuzzParameters({ numRuns: 100 }),
    )
  })
})
