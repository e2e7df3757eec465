import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cjkFormattingSchema, DEFAULT_CJK_FORMATTING, type CjkFormattingSettings } from '../../core/text/cjk/settings.js'
import { CJK_TRANSFORM_KINDS, transformText } from '../../core/text/cjk/transform.js'
import { fuzzParameters } from '../support/fuzz.js'

/**
 * Properties of the three transforms over small generated Markdown (strings stay short: the point is variety, and
 * every run must finish in seconds): idempotence (DOC.TRANSFORM.2–5), protected regions verbatim and in order,
 * no change without CJK, well-formed UTF-16.
 */
const RUNS = 250

const CJK_UNITS = ['中', '文', '日', '本', 'の', 'カ', '한', '𠀀', 'ㄅ']
const LATIN_UNITS = ['a', 'Z', 'é', 'ā', '7', '0']
const PUNCTUATION_UNITS = [',', '.', '!', '?', ';', ':', '(', ')', '"', "'", '-', '--', '/', '$', '%', '*', '_', '#', '|', '&', '+']
const FULLWIDTH_UNITS = ['，', '。', '！', '？', '（', '）', '「', '」', '“', '”', '‘', '’', '——', 'Ａ', '１', '、']
const SPACE_UNITS = [' ', ' ', '  ', '\t', '\n', '\r\n', '\n\n']
const MARKDOWN_UNITS = ['`', '```', '[', ']', '](', '<', '>', '\\', '~', '    ', '> ', '1. ', '- ', '😀', '\uE000']

const unit = (units: readonly string[]) => fc.constantFrom(...units)
const prose = fc.string({
  unit: unit([...CJK_UNITS, ...LATIN_UNITS, ...PUNCTUATION_UNITS, ...FULLWIDTH_UNITS, ...SPACE_UNITS]),
  maxLength: 40,
})
const markdown = fc.string({
  unit: unit([...CJK_UNITS, ...LATIN_UNITS, ...PUNCTUATION_UNITS, ...FULLWIDTH_UNITS, ...SPACE_UNITS, ...MARKDOWN_UNITS]),
  maxLength: 60,
})

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

describe('idempotence', () => {
  it.each(['cjk-spacing', 'cjk-punctuation'] as const)('DOC.TRANSFORM.2 %s is idempotent', (kind) => {
    fc.assert(
      fc.property(markdown, (text) => {
        const once = transformText(kind, text)
        expect(transformText(kind, once)).toBe(once)
      }),
      fuzzParameters({ numRuns: RUNS }),
    )
  })
  it('DOC.TRANSFORM.3 cjk-format is idempotent under any settings', () => {
    fc.assert(
      fc.property(markdown, settings, (text, chosen) => {
        const once = transformText('cjk-format', text, chosen)
        expect(transformText('cjk-format', once, chosen)).toBe(once)
      }),
      fuzzParameters({ numRuns: RUNS }),
    )
  })
  it('DOC.TRANSFORM.2 every transform is deterministic', () => {
    fc.assert(
      fc.property(markdown, fc.constantFrom(...CJK_TRANSFORM_KINDS), (text, kind) => {
        expect(transformText(kind, text)).toBe(transformText(kind, text))
      }),
      fuzzParameters({ numRuns: 50 }),
    )
  })
})

/** Prose that cannot open or close a protected region, so generated pieces are recognised exactly. */
const plainProse = fc.string({
  unit: unit([...CJK_UNITS, ...LATIN_UNITS, ',', '.', '!', '?', ';', ':', '(', ')', '"', '-', ...FULLWIDTH_UNITS, ' ', '\n']),
  maxLength: 30,
})
const pieceText = fc.string({ unit: unit([...CJK_UNITS, ...LATIN_UNITS, ',', '.', '?', '(', ')', ' ', ':', '"', '  ']), minLength: 1, maxLength: 12 })
const noEdgeSpace = pieceText.filter((text) => !/^\s|\s$/.test(text))

interface Piece {
  readonly text: string
  readonly block: boolean
}
const piece: fc.Arbitrary<Piece> = fc.oneof(
  noEdgeSpace.map((text) => ({ text: `\`${text}\``, block: false })),
  noEdgeSpace.map((text) => ({ text: `\`\`${text}\`\``, block: false })),
  noEdgeSpace.map((text) => ({ text: `$${text}$`, block: false })),
  fc.string({ unit: unit(['a', 'b', '中', '文', '1', '/', '.', '?', '=', ',', '-']), maxLength: 10 })
    .map((path) => ({ text: `https://example.com/${path}x`, block: false })),
  fc.tuple(fc.constantFrom('```', '````', '~~~'), fc.constantFrom('', 'ts', 'js title="中文"'), fc.array(pieceText, { maxLength: 3 }))
    .map(([fence, info, lines]) => ({ text: [fence + info, ...lines, fence].join('\n'), block: true })),
  fc.array(noEdgeSpace, { minLength: 1, maxLength: 3 }).map((lines) => ({ text: lines.map((line) => `    ${line}`).join('\n'), block: true })),
  pieceText.map((text) => ({ text: `[x](https://a.b/${encodeURIComponent(text).replace(/[()]/g, '')} "${text.replace(/["()]/g, '')}")`, block: false })),
  pieceText.map((text) => ({ text: `![y](<a b/${text.replace(/[<>\n]/g, '')}>)`, block: false })),
)

describe('protected regions', () => {
  it('DOC.TRANSFORM.4 DOC.TRANSFORM.5 DOC.TRANSFORM.3 never change code spans, math, fenced or indented code, URLs, link targets', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(plainProse, piece), { minLength: 1, maxLength: 4 }), plainProse, fc.constantFrom(...CJK_TRANSFORM_KINDS), settings, (parts, tail, kind, chosen) => {
        let document = '中文'
        for (const [text, { text: protectedText, block }] of parts) {
          document += block ? `${text}\n\n中\n\n${protectedText}\n\n中` : `${text} ${protectedText} `
        }
        document += tail
        const out = transformText(kind, document, chosen)
        let from = 0
        for (const [, { text: protectedText }] of parts) {
          const at = out.indexOf(protectedText, from)
          expect(at, `${JSON.stringify(protectedText)} missing from ${JSON.stringify(out)}`).toBeGreaterThanOrEqual(0)
          from = at + protectedText.length
        }
      }),
      fuzzParameters({ numRuns: RUNS }),
    )
  })
})

describe('documents without CJK', () => {
  const nonCjk = fc.string({
    unit: unit(['a', 'Z', '7', 'é', 'α', '😀', ...PUNCTUATION_UNITS, ...SPACE_UNITS, ...MARKDOWN_UNITS, '. . .', '—', '…']),
    maxLength: 60,
  })
  it('never change a document with no CJK, whatever the kind and settings', () => {
    fc.assert(
      fc.property(nonCjk, fc.constantFrom(...CJK_TRANSFORM_KINDS), settings, (text, kind, chosen) => {
        expect(transformText(kind, text, chosen)).toBe(text)
      }),
      fuzzParameters({ numRuns: RUNS }),
    )
  })
})

describe('well-formed output', () => {
  it('output is well-formed UTF-16 and keeps every line ending', () => {
    fc.assert(
      fc.property(markdown, fc.constantFrom(...CJK_TRANSFORM_KINDS), settings, (text, kind, chosen) => {
        const out = transformText(kind, text, chosen)
        expect(out.isWellFormed()).toBe(true)
        if (kind !== 'cjk-format' || !chosen.newlineCollapsing) {
          expect(out.split('\r\n').length).toBe(text.split('\r\n').length)
          expect(out.split('\n').length).toBe(text.split('\n').length)
        }
      }),
      fuzzParameters({ numRuns: RUNS }),
    )
  })
})
