import { Rewrite } from '../unitOutput.js'
import { cjkAt, cjkBefore, wordOrCjkAt, wordOrCjkBefore } from './context.js'

/**
 * `cjkParenthesisSpacing`: one space between CJK and an ASCII parenthesis outside it (`中文(English)` →
 * `中文 (English)`). Parentheses around CJK become full-width next (`fullwidthParentheses`), and spaces next to
 * full-width punctuation are then removed (`spaceCollapsing`), so `测试(注意)内容` ends as `测试（注意）内容`.
 * One pass over the parentheses: a space before each `(` that follows CJK, after each `)` that CJK follows.
 */
export function spaceCjkParentheses(text: string): string {
  const rewrite = new Rewrite(text)
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
    if (gap !== -1) rewrite.insert(gap, 0x20)
  }
  return rewrite.result()
}

const CURRENCIES = ['$', '¥', '€', '£', '₹']

/** `currencySpacing`: no space between a currency symbol and its amount (`$ 100` → `$100`). */
export const fixCurrencySpacing = (text: string): string =>
  CURRENCIES.some((sign) => text.includes(`${sign} `) || text.includes(`${sign}\t`)) ? text.replace(/([$¥€£₹])[ \t]+(?=[0-9])/g, '$1') : text

const isBlank = (code: number): boolean => code === 0x20 || code === 0x09

/**
 * `slashSpacing`: no spaces around a slash between words (`A / B` → `A/B`); `//` and `/` at line edges stay. One
 * pass over the slashes: spaces on both sides, and a Latin word character or CJK beyond them on both sides.
 */
export function fixSlashSpacing(text: string): string {
  const rewrite = new Rewrite(text)
  for (let slash = text.indexOf('/'); slash !== -1; slash = text.indexOf('/', slash + 1)) {
    let start = slash
    while (start > rewrite.settled && isBlank(text.charCodeAt(start - 1))) start--
    let end = slash + 1
    while (isBlank(text.charCodeAt(end))) end++
    if (start === slash || end === slash + 1 || !wordOrCjkBefore(text, start) || !wordOrCjkAt(text, end)) continue
    rewrite.replace(start, end, 0x2f)
  }
  return rewrite.result()
}

