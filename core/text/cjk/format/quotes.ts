import type { CjkFormattingSettings } from '../settings.js'
import { CJK, CJK_RE, LATIN_WORD } from './context.js'

type QuoteStyle = CjkFormattingSettings['quoteStyle']

const DOUBLE_PAIR = /"([^"\n]*)"/g
const SINGLE_PAIR = new RegExp(`(?<![A-Za-z0-9])'([^'\\n]*?${CJK}[^'\\n]*?)'(?![A-Za-z0-9])`, 'gu')
const STYLES: Readonly<Record<QuoteStyle, { double: readonly [string, string]; single: readonly [string, string] }>> = {
  curly: { double: ['“', '”'], single: ['‘', '’'] },
  corner: { double: ['「', '」'], single: ['『', '』'] },
  guillemets: { double: ['«', '»'], single: ['‹', '›'] },
}

/**
 * `smartQuoteConversion`: straight quotes paired on a line (first opens, second closes) become `quoteStyle` quotes.
 * With `contextualQuotes`, only pairs in CJK context (CJK inside, or CJK touching the pair) convert, and pure Latin
 * quotes stay straight; corner quotes are only ever used in CJK context (Latin pairs get curly ones). Single quotes
 * convert only around CJK content and never inside a word, so apostrophes (`don't`, `John's`) are safe.
 */
export function convertSmartQuotes(text: string, style: QuoteStyle, contextual: boolean): string {
  const cjkContext = (match: string, offset: number, source: string) =>
    CJK_RE.test(match) || CJK_RE.test(source.slice(Math.max(0, offset - 2), offset)) ||
    CJK_RE.test(source.slice(offset + match.length, offset + match.length + 2))
  const doubled = !text.includes('"') ? text : text.replace(DOUBLE_PAIR, (match: string, inner: string, offset: number, source: string) => {
    const cjk = cjkContext(match, offset, source)
    if (contextual && !cjk) return match
    const [open, close] = (style === 'corner' && !cjk ? STYLES.curly : STYLES[style]).double
    return open + inner + close
  })
  if (!doubled.includes("'")) return doubled
  return doubled.replace(SINGLE_PAIR, (_match: string, inner: string) => {
    const [open, close] = STYLES[style].single
    return open + inner + close
  })
}

/** `cjkCornerQuotes`: curly quotes around CJK content become corner quotes (“中文” → 「中文」, ‘中文’ → 『中文』). */
export function convertToCornerQuotes(text: string): string {
  if (!text.includes('“') && !text.includes('‘')) return text
  return text
    .replace(new RegExp(`“([^“”\\n]*${CJK}[^“”\\n]*)”`, 'gu'), '「$1」')
    .replace(new RegExp(`‘([^‘’\\n]*${CJK}[^‘’\\n]*)’`, 'gu'), '『$1』')
}

/** `cjkNestedQuotes`: a corner quote inside a corner quote uses the double form: 「他说「好」」 → 「他说『好』」. */
export function convertNestedCornerQuotes(text: string): string {
  if (!text.includes('「')) return text
  let depth = 0
  let out = ''
  for (const char of text) {
    if (char === '「') out += depth++ % 2 === 1 ? '『' : '「'
    else if (char === '」') out += depth > 0 && --depth % 2 === 1 ? '』' : '」'
    else if (char === '\n' && depth > 0) (out += char), (depth = 0)
    else out += char
  }
  return out
}

/** One quote pair on a line, per pair of quote characters (compiled once, not per call). */
const PAIRS = new Map<string, RegExp>()
const pairPattern = (open: string, close: string): RegExp => {
  let pattern = PAIRS.get(open + close)
  if (pattern === undefined) PAIRS.set(open + close, (pattern = new RegExp(`${open}[^${open}${close}\\n]*${close}`, 'gu')))
  return pattern
}

const OUTSIDE = `(?:${CJK}|${LATIN_WORD}|——)`
const ENDS_OUTSIDE = new RegExp(`${OUTSIDE}$`, 'u')
const STARTS_OUTSIDE = new RegExp(`^${OUTSIDE}`, 'u')

/**
 * `quoteSpacing` / `singleQuoteSpacing` (VMark's `fixDoubleQuoteSpacing` / `fixSingleQuoteSpacing`): one space
 * between a curly quote pair and a CJK character, Latin word or `——` touching it from outside (`与“物质财富”无关` →
 * `与 “物质财富” 无关`); none against CJK punctuation or brackets, which carry their own space. Single quotes only as
 * pairs on one line, so the apostrophe in `don’t` is never split.
 */
export function spaceQuotes(text: string, open: string, close: string): string {
  if (!text.includes(open)) return text
  return text.replace(pairPattern(open, close), (quoted: string, offset: number, source: string) => {
    const before = source.slice(Math.max(0, offset - 2), offset)
    const after = source.slice(offset + quoted.length, offset + quoted.length + 2)
    const spaceBefore = ENDS_OUTSIDE.test(before) ? ' ' : ''
    const spaceAfter = STARTS_OUTSIDE.test(after) ? ' ' : ''
    return spaceBefore + quoted + spaceAfter
  })
}
