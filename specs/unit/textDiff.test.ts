import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
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

  describe('on a machine that stalls', () => {
    afterEach(() => vi.restoreAllMocks())

    it('gives an edit the same word-sized hunks when every look at the clock finds 100 ms gone', () => {
      // A collector's pause or a loaded machine must not turn a recorded AI change into one coarse replacement.
      const expected = [
        { start: 6, deleteCount: 4, insert: 'BETA' },
        { start: 16, deleteCount: 0, insert: ' delta' },
      ]
      expect(textHunks('alpha beta gamma\n', 'alpha BETA gamma delta\n')).toEqual(expected)
      let now = Date.now()
      vi.spyOn(Date, 'now').mockImplementation(() => (now += 100))
      expect(textHunks('alpha beta gamma\n', 'alpha BETA gamma delta\n')).toEqual(expected)
      const lines = Array.from({ length: 200 }, (_, index) => `line ${index} of the draft\n`)
      const edited = lines.map((line, index) => (index % 20 === 7 ? line.replace('draft', 'final draft') : line))
      expect(textHunks(lines.join(''), edited.join('')).map((hunk) => hunk.insert)).toEqual(Array(10).fill('final '))
    })
  })

  it('is minimal: an edit in the middle touches only the middle', () => {
    const before = 'first paragraph\n\nsecond paragraph\n\nthird paragraph\n'
    const after = 'first paragraph\n\nsecond PARAGRAPH\n\nthird paragraph\n'
    const hunks = textHunks(before, after)
    expect(hunks.reduce((sum, hunk) => sum + hunk.deleteCount, 0)).toBeLessThanOrEqual('paragraph'.length)
    expect(hunks[0]!.start).toBeGreaterThanOrEqual('first paragraph\n\nsecond '.length)
    expect(textHunks(before, before)).toEqual([])
  })

  it('scales with the change: the lines both texts share at either end are neither deleted nor inserted', () => {
    const lines = fc.array(fc.constantFrom('# Title\n', 'a line\n', 'another line\n', '\n', '😀 smile\n', 'no newline'), { maxLength: 8 })
    fc.assert(
      fc.property(lines, lines, lines, lines, (head, middleBefore, middleAfter, tail) => {
        const prefix = head.join('').replace(/[^\n]*$/, '')
        const suffix = tail.filter((one) => one.endsWith('\n')).join('')
        const before = prefix + middleBefore.join('') + suffix
        const after = prefix + middleAfter.join('') + suffix
        const hunks = textHunks(before, after)
        expect(applyHunks(before, hunks)).toBe(after)
        // (Where a line repeats, which copy is the changed one is ambiguous: the amounts are not.)
        expect(hunks.reduce((sum, hunk) => sum + hunk.deleteCount, 0)).toBeLessThanOrEqual(before.length - prefix.length - suffix.length)
        expect(hunks.reduce((sum, hunk) => sum + hunk.insert.length, 0)).toBeLessThanOrEqual(after.length - prefix.length - suffix.length)
      }),
      fuzzParameters({ numRuns: 1_000 }),
    )
    // An 8-character edit of a 1 MiB text is the diff of its line: the same hunks, moved by the lines before it.
    const paragraph = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.\n'
    const body = paragraph.repeat(Math.ceil(2 ** 20 / paragraph.length))
    const edited = paragraph.replace('dolor', 'DOLOR!!!')
    const at = paragraph.length * 6_000
    const big = textHunks(body, body.slice(0, at) + edited + body.slice(at + paragraph.length))
    expect(big).toEqual(textHunks(paragraph, edited).map((hunk) => ({ ...hunk, start: hunk.start + at })))
  })

  it('replaces a rewritten large text whole, and still diffs a large middle that keeps its lines', () => {
    const paragraphs = (seed: string) => Array.from({ length: 300 }, (_, i) => `Paragraph ${seed}${i}: words ${seed} ${i * 7} more words.\n\n`).join('')
    const before = paragraphs('a')
    const after = paragraphs('b')
    // One replacement of everything but the blank line both end with.
    expect(textHunks(before, after)).toEqual([{ start: 0, deleteCount: before.length - 1, insert: after.slice(0, -1) }])
    // Two edits far apart: the middle between them is large, but its lines are the same.
    const twoEdits = before.replace('words a 7 ', 'words A 7 ').replace('words a 2065 ', 'words A 2065 ')
    const hunks = textHunks(before, twoEdits)
    expect(applyHunks(before, hunks)).toBe(twoEdits)
    expect(hunks.length).toBe(2)
    expect(hunks.every((hunk) => hunk.deleteCount + hunk.insert.length <= 4)).toBe(true)
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
