import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { applyHunks, textHunks } from '../../core/documents/textDiff.js'
import { fuzzParameters } from '../support/fuzz.js'

/** Strings rich in surrogate pairs, combining marks and repeats, where diff boundaries go wrong. */
const tricky = fc.string({
  unit: fc.constantFrom('a', 'b', ' ', '\n', 'é', '中', '😀', '😁', '👍🏽', '\u{1F600}', 'x'),
  maxLength: 60,
})

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff

describe('textHunks', () => {
  it('turns any text into any other text', () => {
    fc.assert(
      fc.property(tricky, tricky, (before, after) => {
        expect(applyHunks(before, textHunks(before, after))).toBe(after)
      }),
      fuzzParameters({ numRuns: 2_000 }),
    )
  })

  it('never cuts a surrogate pair, so Yjs stores the text faithfully', () => {
    fc.assert(
      fc.property(tricky, tricky, (before, after) => {
        const hunks = textHunks(before, after)
        for (const hunk of hunks) {
          const end = hunk.start + hunk.deleteCount
          expect(hunk.start > 0 && isHigh(before.charCodeAt(hunk.start - 1)) && isLow(before.charCodeAt(hunk.start))).toBe(false)
          expect(end < before.length && isHigh(before.charCodeAt(end - 1)) && isLow(before.charCodeAt(end))).toBe(false)
          expect(hunk.insert.isWellFormed()).toBe(true)
        }
        const doc = new Y.Doc()
        const text = doc.getText('source')
        text.insert(0, before)
        doc.transact(() => {
          for (let i = hunks.length - 1; i >= 0; i--) {
            const hunk = hunks[i]!
            if (hunk.deleteCount > 0) text.delete(hunk.start, hunk.deleteCount)
            if (hunk.insert) text.insert(hunk.start, hunk.insert)
          }
        })
        const replica = new Y.Doc()
        Y.applyUpdate(replica, Y.encodeStateAsUpdate(doc))
        expect(replica.getText('source').toString()).toBe(after)
      }),
      fuzzParameters({ numRuns: 1_000 }),
    )
  })

  it('is minimal: an edit in the middle touches only the middle', () => {
    const before = 'first paragraph\n\nsecond paragraph\n\nthird paragraph\n'
    const after = 'first paragraph\n\nsecond PARAGRAPH\n\nthird paragraph\n'
    const hunks = textHunks(before, after)
    expect(hunks.reduce((sum, hunk) => sum + hunk.deleteCount, 0)).toBeLessThanOrEqual('paragraph'.length)
    expect(hunks[0]!.start).toBeGreaterThanOrEqual('first paragraph\n\nsecond '.length)
    expect(textHunks(before, before)).toEqual([])
  })

  it('keeps a concurrent peer edit elsewhere when a whole-document write lands', () => {
    const base = new Y.Doc()
    base.getText('source').insert(0, 'alpha\nbeta\ngamma\n')
    const server = new Y.Doc()
    const peer = new Y.Doc()
    Y.applyUpdate(server, Y.encodeStateAsUpdate(base))
    Y.applyUpdate(peer, Y.encodeStateAsUpdate(base))
    peer.getText('source').insert('alpha\nbeta'.length, ' (peer)')
    const text = server.getText('source')
    for (const hunk of textHunks(text.toString(), 'ALPHA\nbeta\ngamma\n').reverse()) {
      text.delete(hunk.start, hunk.deleteCount)
      text.insert(hunk.start, hunk.insert)
    }
    Y.applyUpdate(server, Y.encodeStateAsUpdate(peer))
    expect(text.toString()).toBe('ALPHA\nbeta (peer)\ngamma\n')
  })
})
