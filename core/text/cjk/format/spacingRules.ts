import { UnitOutput } from '../unitOutput.js'
import { cjkAt, cjkBefore, wordOrCjkAt, wordOrCjkBefore } from './context.js'

/**
 * `cjkParenthesisSpacing`: one space between CJK and an ASCII parenthesis outside it (`中文(English)` →
 * `中文 (English)`). Parentheses around CJK become full-width next (`fullwidthParentheses`), and spaces next to
 * full-width punctuation are then removed (`spaceCollapsing`), so `测试(注意)内容` ends as `测试（注意）内容`.
 * One pass over the parentheses: a space before each `(` that follows CJK, after each `)` that CJK follows.
 */
export function spaceCjkParentheses(text: string): string {
  let output: UnitOutput | undefined
  let copied = 0
  let open = text.indexOf('(')
  let close = text.indexOf(')')
  while (open !== -1 || close !== -1) {
    let gap = -1
    if (close === -1 || (open !== -1 && open < close)) {
      if (cjkBefore(text, open)) gap = open
      open = text.indexOf('(', open + 1)
    } else {
      if (cjkAt(text, close + 1)) gap = close + 1
      close = text.indexOf(')', close + 1)
    }
    if (gap === -1) continue
    output ??= new UnitOutput(text.length + 64)
    output.copy(text, copied, gap)
    output.push(0x20)
    copied = gap
  }
  if (output === undefined) return text
  output.copy(text, copied, text.length)
  return output.toString()
}

const CURRENCY_SPACED = ['$', '¥', '€', '£', '₹'].flatMap((sign) => [`${sign} `, `${sign}\t`])

/** `currencySpacing`: no space between a currency symbol and its amount (`$ 100` → `$100`). */
export const fixCurrencySpacing = (text: string): string =>
  CURRENCY_SPACED.some((spaced) => text.includes(spaced)) ? text.replace(/([$¥€£₹])[ \t]+(?=[0-9])/g, '$1') : text

const isBlank = (code: number): boolean => code === 0x20 || code === 0x09

/**
 * `slashSpacing`: no spaces around a slash between words (`A / B` → `A/B`); `//` and `/` at line edges stay. One
 * pass over the slashes: spaces on both sides, and a Latin word character or CJK beyond them on both sides.
 */
export function fixSlashSpacing(text: string): string {
  let output: UnitOutput | undefined
  let copied = 0
  for (let slash = text.indexOf('/'); slash !== -1; slash = text.indexOf('/', slash + 1)) {
    let start = slash
    while (start > copied && isBlank(text.charCodeAt(start - 1))) start--
    let end = slash + 1
    while (isBlank(text.charCodeAt(end))) end++
    if (start === slash || end === slash + 1 || !wordOrCjkBefore(text, start) || !wordOrCjkAt(text, end)) continue
    output ??= new UnitOutput(text.length)
    output.copy(text, copied, start)
    output.push(0x2f)
    copied = end
  }
  if (output === undefined) return text
  output.copy(text, copied, text.length)
  return output.toString()
}

