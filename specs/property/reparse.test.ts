import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseMarkdownWhole, type ParsedMarkdown } from '../../core/markdown/parse.js'
import { reparse } from '../../core/markdown/reparse.js'
import { fuzzParameters } from '../support/fuzz.js'

/**
 * The bridge parses a keystroke's text from the parse of the text before it (`reparse`, only the blocks the change
 * touches): after any edits, that parse must be the whole parse, node for node and span for span.
 */

const blocks = fc.constantFrom(
  '# Heading',
  'Title\n===',
  'A paragraph with *em* and **strong** and `code`.',
  'Two lines\nof one paragraph.',
  '- one\n- two',
  '* star\n\n* loose',
  '1. first\n2. second',
  '> a quote\n> more',
  '```js\nlet x = 1\n\nlet y = 2\n```',
  '    indented code',
  '| a | b |\n|---|---|\n| 1 | 2 |',
  '<div>\nhtml\n</div>',
  '$$\nx^2\n$$',
  '---',
  'A [link](https://example.com) here.',
  '- [ ] task\n- [x] done',
)
/** Enough blocks that the texts pass the size under which a whole parse is taken anyway. */
const documentText = fc.array(blocks, { minLength: 150, maxLength: 250 }).map((parts) => parts.join('\n\n') + '\n')
const snippet = fc.string({ minLength: 0, maxLength: 8, unit: fc.constantFrom('a', ' ', '*', '_', '`', '#', '-', '>', '\n', '\n\n', '```', '1.', '|', '<div>', '$$', '[', ']', ':', '=', '    ') })
const edit = fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), remove: fc.nat({ max: 12 }), insert: snippet })

function same(actual: ParsedMarkdown, expected: ParsedMarkdown): void {
  expect(actual.spans).toEqual(expected.spans)
  expect(actual.doc.toJSON()).toEqual(expected.doc.toJSON())
}

describe('incremental parse (reparse)', () => {
  it('after random edits, a parse made from the previous one equals the whole parse', () => {
    fc.assert(
      fc.property(documentText, fc.array(edit, { minLength: 1, maxLength: 8 }), (text, edits) => {
        let current = text
        let entry = { text: current, parsed: parseMarkdownWhole(current), local: !current.includes(']:') }
        for (const { at, remove, insert } of edits) {
          const offset = Math.floor(at * current.length)
          const next = current.slice(0, offset) + insert + current.slice(offset + remove)
          const whole = parseMarkdownWhole(next)
          const again = reparse(entry, next, parseMarkdownWhole)
          if (again) same(again, whole)
          entry = { text: next, parsed: again ?? whole, local: entry.local && !next.includes(']:') }
          current = next
        }
      }),
      fuzzParameters({ numRuns: 150 }),
    )
  })

  it('a keystroke inside a paragraph of a long document is parsed from the previous parse', () => {
    const text = Array.from({ length: 200 }, (_, i) => `## Section ${i}\n\nParagraph ${i} with *em*.\n\n- a\n- b`).join('\n\n') + '\n'
    const at = text.indexOf('Paragraph 100') + 5
    const next = text.slice(0, at) + 'x' + text.slice(at)
    const again = reparse({ text, parsed: parseMarkdownWhole(text), local: true }, next, parseMarkdownWhole)
    expect(again).not.toBeNull()
    same(again!, parseMarkdownWhole(next))
  })
})
