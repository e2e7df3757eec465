import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { findProtectedRegions } from '../../core/text/cjk/protectedRegions.js'
import { cjkFormattingSchema, DEFAULT_CJK_FORMATTING, type CjkFormattingSettings } from '../../core/text/cjk/settings.js'
import { spaceCjkEnglish, spaceCjkLatin } from '../../core/text/cjk/spacing.js'
import { CJK_TRANSFORM_KINDS, transformText } from '../../core/text/cjk/transform.js'
import { findProtectedRegions as legacyRegions } from '../oracle/cjkLegacy/protectedRegions.js'
import { spaceCjkEnglish as legacySpaceCjkEnglish, spaceCjkLatin as legacySpaceCjkLatin } from '../oracle/cjkLegacy/spacing.js'
import { transformText as legacyTransform } from '../oracle/cjkLegacy/transform.js'
import { fuzzParameters } from '../support/fuzz.js'

/**
 * The CJK transforms' scanners (issue 16) against the implementation they replaced, kept frozen in
 * specs/oracle/cjkLegacy as the oracle: on random mixes of CJK, Latin, digits, signs, punctuation, whitespace,
 * Markdown and placeholders, every output must be byte-identical to the old one. Inputs are well-formed UTF-16: the
 * old `cjk-spacing` pass took the unit after a lone high surrogate as the rest of its character (so `\uD800中a` got
 * no space), which the scanner deliberately does not copy (see the unit tests).
 */
const RUNS = 400

const CJK = ['中', '文', '日', 'の', 'カ', '한', '𠀀', 'ㄅ', '・', '〇']
const LATIN = ['a', 'Z', 'é', 'ā', 'ệ', '7', '0', 'α', '×']
const NUMBER = ['-', '+', '±', '−', '＋', '－', '$', '€', '£', '¥', '₹', '%', '‰', '℃', '℉', '°', '$ ', '1', '25']
const PUNCTUATION = [',', '.', '!', '?', ';', ':', '(', ')', '"', "'", '--', '---', '/', ' / ', '*', '_', '#', '|', '&', '. . .', '...', '！！', '？？？']
const FULLWIDTH = ['，', '。', '！', '？', '（', '）', '「', '」', '『', '』', '“', '”', '‘', '’', '——', 'Ａ', '１', '、', '《', '》', '【', '】']
const SPACE = [' ', ' ', '  ', '\t', ' \t', '\n', '\r\n', '\n\n', '  \n', '\r']
const MARKDOWN = ['`', '```', '[', ']', '](', '](u)', '![', '<', '>', '<b>', '\\', '\\`', '~', '    ', '> ', '1. ', '- ', '😀', 'https://x.y/', 'a@b.co', '$$', '$x$', '[x]: u\n', '<!-- c -->']
const PLACEHOLDER = ['\uE000', '\uE001', '\uE002', '\uE003', '\uE004', '\uE002\uE002', '\uE003\uE003']

/** Strings of up to `maxLength` pieces, each drawn from one of the groups (equally likely), so that every group's
 * pieces meet each other's often: a digit before a unit suffix before a CJK character, a closer between CJK and Latin. */
const mix = (groups: readonly (readonly string[])[], maxLength = 40) =>
  fc.array(fc.oneof(...groups.map((group) => fc.constantFrom(...group))), { maxLength }).map((pieces) => pieces.join(''))
const markdown = mix([CJK, CJK, LATIN, NUMBER, PUNCTUATION, FULLWIDTH, SPACE, MARKDOWN])
const masked = mix([CJK, CJK, LATIN, NUMBER, PUNCTUATION, FULLWIDTH, SPACE, PLACEHOLDER])

const settings: fc.Arbitrary<CjkFormattingSettings> = fc
  .record({
    ...Object.fromEntries(
      Object.entries(DEFAULT_CJK_FORMATTING)
        .filter(([, value]) => typeof value === 'boolean')
        .map(([key]) => [key, fc.boolean()]),
    ),
    quoteStyle: fc.constantFrom('curly' as const, 'corner' as const, 'guillemets' as const),
    quoteToggleMode: fc.constantFrom('simple' as const, 'full-cycle' as const),
    consecutivePunctuationLimit: fc.constantFrom(0 as const, 1 as const, 2 as const),
  })
  .map((record) => cjkFormattingSchema.parse(record))

const same = (ours: (input: string) => string, legacy: (input: string) => string, inputs: fc.Arbitrary<string>, numRuns = RUNS) =>
  fc.assert(
    fc.property(inputs, (input) => {
      expect(JSON.stringify(ours(input))).toBe(JSON.stringify(legacy(input)))
    }),
    fuzzParameters({ numRuns }),
  )

describe('the scanners equal the implementation they replaced', () => {
  it('protected regions', () => {
    fc.assert(
      fc.property(markdown, fc.boolean(), (input, skipReferenceSections) => {
        expect(findProtectedRegions(input, { skipReferenceSections })).toEqual(legacyRegions(input, { skipReferenceSections }))
      }),
      fuzzParameters({ numRuns: RUNS }),
    )
  })
  it('DOC.TRANSFORM.4 cjk-spacing on masked text and on text with its regions', () => {
    same(spaceCjkLatin, legacySpaceCjkLatin, masked)
    same((input) => spaceCjkLatin(input, findProtectedRegions(input)), (input) => legacySpaceCjkLatin(input, legacyRegions(input)), markdown)
  })
  it('DOC.TRANSFORM.3 cjkEnglishSpacing', () => same(spaceCjkEnglish, legacySpaceCjkEnglish, masked, 1000))
  it.each(CJK_TRANSFORM_KINDS)('DOC.TRANSFORM.2 %s with default settings', (kind) => {
    same((input) => transformText(kind, input), (input) => legacyTransform(kind, input), markdown)
  })
  it('DOC.TRANSFORM.3 cjk-format under any settings', () => {
    fc.assert(
      fc.property(markdown, settings, (input, chosen) => {
        expect(JSON.stringify(transformText('cjk-format', input, chosen))).toBe(JSON.stringify(legacyTransform('cjk-format', input, chosen)))
      }),
      fuzzParameters({ numRuns: RUNS }),
    )
  })
})
