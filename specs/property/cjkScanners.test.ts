import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { findProtectedRegions } from '../../core/text/cjk/protectedRegions.js'
import { cjkFormattingSchema, DEFAULT_CJK_FORMATTING, type CjkFormattingSettings } from '../../core/text/cjk/settings.js'
import { spaceCjkEnglish, spaceCjkLatin } from '../../core/text/cjk/spacing.js'
import { CJK_TRANSFORM_KINDS, transformText } from '../../core/text/cjk/transform.js'
import { findProtectedRegions as legacyRegions } from '../oracle/cjkLegacy/protectedRegions.js'
import { spaceCjkEnglish as legacySpaceCjkEnglish, spaceCjkLatin as legacySpaceCjkLatin } from '../oracle/cjkLegacy/spacing.js'
import { transformText as legacyTransform } from '../oracle/cjkLegacy/transform.js'
import * as dashes from '../../core/text/cjk/format/dashes.js'
import * as normalise from '../../core/text/cjk/format/normalise.js'
import { formatProse } from '../../core/text/cjk/format/pipeline.js'
import * as punctuationRules from '../../core/text/cjk/format/punctuationRules.js'
import * as quotes from '../../core/text/cjk/format/quotes.js'
import * as spacingRules from '../../core/text/cjk/format/spacingRules.js'
import * as whitespace from '../../core/text/cjk/format/whitespace.js'
import * as legacyDashes from '../oracle/cjkLegacy/format/dashes.js'
import * as legacyNormalise from '../oracle/cjkLegacy/format/normalise.js'
import { formatProse as legacyFormatProse } from '../oracle/cjkLegacy/format/pipeline.js'
import * as legacyPunctuationRules from '../oracle/cjkLegacy/format/punctuationRules.js'
import * as legacyQuotes from '../oracle/cjkLegacy/format/quotes.js'
import * as legacySpacingRules from '../oracle/cjkLegacy/format/spacingRules.js'
import * as legacyWhitespace from '../oracle/cjkLegacy/format/whitespace.js'
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
/** Short strings over few characters, one or two of each kind a rule looks at, so that every rule fires often. */
const dense = fc
  .array(fc.constantFrom('中', '𠀀', '한', 'a', '1', ' ', ' ', '\t', '/', '(', ')', '，', '$', '%', '-', '--', '——', '.', '!', '"', "'", '“', '”', '‘', '’', '「', '！', '\n', '\r\n', '\uE000', '\uE002', '\uE003'), { maxLength: 14 })
  .map((units) => units.join(''))
const prose = fc.oneof(masked, dense)

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
  it('DOC.TRANSFORM.3 cjkEnglishSpacing', () => same(spaceCjkEnglish, legacySpaceCjkEnglish, prose, 1000))
  it.each([
    ['ellipsisNormalization', normalise.normaliseEllipsis, legacyNormalise.normaliseEllipsis, ['中', 'a', '.', ' ', '\t', '\n']],
    ['fullwidthAlphanumeric', normalise.normaliseFullwidthAlphanumeric, legacyNormalise.normaliseFullwidthAlphanumeric, ['中', 'Ａ', '１', 'ｚ', '０', 'a']],
    ['fullwidthPunctuation', punctuationRules.convertFullwidthPunctuation, legacyPunctuationRules.convertFullwidthPunctuation, ['中', '𠀀', 'a', '1', ',', '.', '!', '?', ' ', '」', '「', '\n', '..']],
    ['fullwidthParentheses', punctuationRules.convertFullwidthParentheses, legacyPunctuationRules.convertFullwidthParentheses, ['中', 'a', '(', ')', '\n', ' ']],
    ['fullwidthBrackets', punctuationRules.convertFullwidthBrackets, legacyPunctuationRules.convertFullwidthBrackets, ['中', 'a', '[', ']', '\n', ' ']],
    ['consecutivePunctuationLimit 1', (input: string) => punctuationRules.limitConsecutivePunctuation(input, 1), (input: string) => legacyPunctuationRules.limitConsecutivePunctuation(input, 1), ['中', '！', '？', '!']],
    ['consecutivePunctuationLimit 2', (input: string) => punctuationRules.limitConsecutivePunctuation(input, 2), (input: string) => legacyPunctuationRules.limitConsecutivePunctuation(input, 2), ['中', '！', '？', '!']],
    ['dashConversion', dashes.convertDashes, legacyDashes.convertDashes, ['中', 'a', '-', ' ', '”', '\uE000']],
    ['emdashSpacing', dashes.spaceEmDashes, legacyDashes.spaceEmDashes, ['中', 'a', '——', '—', ' ', '”']],
    ...(['curly', 'corner', 'guillemets'] as const).flatMap((style) => [true, false].map((contextual) => [
      `smartQuoteConversion ${style}${contextual ? ' contextual' : ''}`,
      (input: string) => quotes.convertSmartQuotes(input, style, contextual),
      (input: string) => legacyQuotes.convertSmartQuotes(input, style, contextual),
      ['中', 'a', '"', "'", ' ', '\n'],
    ] as const)),
    ['cjkCornerQuotes', quotes.convertToCornerQuotes, legacyQuotes.convertToCornerQuotes, ['中', 'a', '“', '”', '‘', '’', '\n']],
    ['cjkNestedQuotes', quotes.convertNestedCornerQuotes, legacyQuotes.convertNestedCornerQuotes, ['中', '「', '」', '\n']],
    ['quoteSpacing', (input: string) => quotes.spaceQuotes(input, '“', '”'), (input: string) => legacyQuotes.spaceQuotes(input, '“', '”'), ['中', 'a', '“', '”', '——', ' ', '，', '\n']],
    ['singleQuoteSpacing', (input: string) => quotes.spaceQuotes(input, '‘', '’'), (input: string) => legacyQuotes.spaceQuotes(input, '‘', '’'), ['中', 'a', '‘', '’', '——', ' ', '，', '\n']],
    ['cjkParenthesisSpacing', spacingRules.spaceCjkParentheses, legacySpacingRules.spaceCjkParentheses, ['中', '𠀀', 'a', '(', ')', ' ']],
    ['currencySpacing', spacingRules.fixCurrencySpacing, legacySpacingRules.fixCurrencySpacing, ['$', '¥', '€', ' ', '\t', '1', 'a']],
    ['slashSpacing', spacingRules.fixSlashSpacing, legacySpacingRules.fixSlashSpacing, ['中', '𠀀', 'a', '\uE000', '/', ' ', '\t', '\n']],
    ['spaceCollapsing', whitespace.collapseSpaces, legacyWhitespace.collapseSpaces, ['中', 'a', ' ', '\t', '，', '。', '\n', '\r']],
    ['trailingSpaceRemoval', (input: string) => whitespace.removeTrailingSpaces(input, false), (input: string) => legacyWhitespace.removeTrailingSpaces(input, false), ['a', ' ', '\t', '\n', '\r']],
    ['trailingSpaceRemoval with hard breaks', (input: string) => whitespace.removeTrailingSpaces(input, true), (input: string) => legacyWhitespace.removeTrailingSpaces(input, true), ['a', ' ', '\t', '\n', '\r']],
    ['newlineCollapsing', whitespace.collapseNewlines, legacyWhitespace.collapseNewlines, ['a', ' ', '\t', '\n', '\r']],
  ] as const)('DOC.TRANSFORM.3 %s', (_name, ours, legacy, focus: readonly string[]) =>
    same(ours, legacy, fc.oneof(prose, fc.array(fc.constantFrom(...focus), { maxLength: 16 }).map((units) => units.join(''))), 1500))
  it('DOC.TRANSFORM.3 the whole cjk-format pipeline on masked text, under any settings', () => {
    fc.assert(
      fc.property(prose, settings, (input, chosen) => {
        expect(JSON.stringify(formatProse(input, chosen))).toBe(JSON.stringify(legacyFormatProse(input, chosen)))
      }),
      fuzzParameters({ numRuns: RUNS }),
    )
  })
  it.each(CJK_TRANSFORM_KINDS)('DOC.TRANSFORM.2 %s with default settings', (kind) => {
    same((input) => transformText(kind, input), (input) => legacyTransform(kind, input), markdown)
  })
  it('DOC.TRANSFORM.2 long documents: random blocks between long unchanged stretches (the outputs\' native copies)', () => {
    const stretch = fc.constantFrom('中文段落'.repeat(200), 'plain English words, '.repeat(40), '  \n'.repeat(300), '\n```\ncode\n```\n'.repeat(60))
    const document = fc.array(fc.tuple(markdown, stretch), { minLength: 1, maxLength: 5 }).map((parts) => parts.flat().join(''))
    fc.assert(
      fc.property(document, fc.constantFrom(...CJK_TRANSFORM_KINDS), settings, (input, kind, chosen) => {
        expect(JSON.stringify(transformText(kind, input, chosen))).toBe(JSON.stringify(legacyTransform(kind, input, chosen)))
      }),
      fuzzParameters({ numRuns: 60 }),
    )
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
