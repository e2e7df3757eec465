import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { parseMarkdown } from '../../core/markdown/parse.js'
import { serializeMarkdown } from '../../core/markdown/serialize.js'
import { fuzzParameters } from '../support/fuzz.js'

const roundTrip = (text: string) => serializeMarkdown(parseMarkdown(text))

const word = fc.stringMatching(/^[a-z0-9]{1,6}$/)
const punct = fc.constantFrom('*', '_', '`', '~', '[', ']', '(', ')', '<', '>', '#', '-', '+', '!', '\\', '|', ':', '=', '$', '.', '1.', '"', "'")
const inline = fc
  .array(
    fc.oneof(
      word,
      punct,
      word.map((w) => `*${w}*`),
      word.map((w) => `**${w}**`),
      word.map((w) => `~~${w}~~`),
      word.map((w) => `\`${w}\``),
      fc.tuple(word, word).map(([t, u]) => `[${t}](${u})`),
      word.map((w) => `<b>${w}</b>`),
      fc.constant('\\\n'),
    ),
    { minLength: 1, maxLength: 6 },
  )
  .map((parts) => parts.join(' '))
const block = fc.oneof(
  inline,
  inline.map((t) => `# ${t}`),
  inline.map((t) => `> ${t}`),
  fc.array(inline, { minLength: 1, maxLength: 3 }).map((items) => items.map((t) => `- ${t}`).join('\n')),
  fc.array(inline, { minLength: 1, maxLength: 3 }).map((items) => items.map((t, i) => `${i + 1}. ${t}`).join('\n')),
  fc.array(inline, { minLength: 1, maxLength: 3 }).map((items) => items.map((t) => `* [ ] ${t}`).join('\n')),
  word.map((w) => '```' + w + '\n' + w + '\n```'),
  fc.constant('---'),
  fc.constant('| a | b |\n| - | - |\n| 1 | 2 |'),
  fc.constant('<div>\nx\n</div>'),
  fc.constant('[r]: http://r'),
)
const markdown = fc.array(fc.tuple(block, fc.constantFrom('\n\n', '\n', '\n\n\n')), { maxLength: 6 }).map((parts) => parts.map(([b, sep]) => b + sep).join(''))
const anyText = fc.string({ maxLength: 60, unit: fc.constantFrom('a', 'b', ' ', '\n', '*', '_', '`', '#', '-', '>', '[', ']', '(', ')', '<', '!', '\\', '~', '|', '1', '.', '&', '=', '$') })

/** Ordered list numbers are markup (a loose list is renumbered from its start), not content. */
const withoutListNumbers = (text: string) => text.replace(/^([ \t>]*)\d{1,9}[.)](?=[ \t]|$)/gm, '$1')

/** Letters and digits, with multiplicity: what a person wrote, whatever markup surrounds it. */
function letters(text: string): Map<string, number> {
  const counts = new Map<string, number>()
  for (const ch of withoutListNumbers(text).match(/[\p{L}\p{N}]/gu) ?? []) counts.set(ch, (counts.get(ch) ?? 0) + 1)
  return counts
}

describe('markdown properties', () => {
  it('serialization is a fixed point after one round (generated markdown and arbitrary text)', () => {
    fc.assert(
      fc.property(fc.oneof(markdown, anyText), (text) => {
        const once = roundTrip(text)
        expect(roundTrip(once)).toBe(once)
      }),
      fuzzParameters({ numRuns: 200 }),
    )
  })

  it('drops no letter or digit', () => {
    fc.assert(
      fc.property(fc.oneof(markdown, anyText), (text) => {
        const out = letters(roundTrip(text))
        for (const [ch, count] of letters(text)) expect(out.get(ch) ?? 0, `${ch} in ${JSON.stringify(text)}`).toBeGreaterThanOrEqual(count)
      }),
      fuzzParameters({ numRuns: 200 }),
    )
  })

  it('keeps every non-whitespace character of generated markdown but the markup characters it may respell', () => {
    fc.assert(
      fc.property(markdown, (text) => {
        const out = roundTrip(text)
        const count = (s: string) => {
          const m = new Map<string, number>()
          // `*`/`_` (emphasis), `#`/`=`/`-` (setext → ATX, rules), `+` (bullets), `\` (escapes) and the `>` quote markers
          // at a line's start (an empty continuation line of a quote is dropped: seed 1012954461) may be respelled.
          const text = withoutListNumbers(s).replace(/^[ \t>]+/gm, (markers) => markers.replace(/>/g, ''))
          for (const ch of text.replace(/[\s\\*_#=+-]/g, '')) m.set(ch, (m.get(ch) ?? 0) + 1)
          return m
        }
        const outCounts = count(out)
        for (const [ch, n] of count(text)) expect(outCounts.get(ch) ?? 0, `${ch} in ${JSON.stringify(text)} → ${JSON.stringify(out)}`).toBeGreaterThanOrEqual(n)
      }),
      fuzzParameters({ numRuns: 200 }),
    )
  })
})
