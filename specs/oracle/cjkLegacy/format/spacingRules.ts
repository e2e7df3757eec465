import { CJK, LATIN_WORD } from './context.js'

const CJK_THEN_PAREN = new RegExp(`(${CJK})\\(`, 'gu')
const PAREN_THEN_CJK = new RegExp(`\\)(${CJK})`, 'gu')

/**
 * `cjkParenthesisSpacing`: one space between CJK and an ASCII parenthesis outside it (`中文(English)` →
 * `中文 (English)`). Parentheses around CJK become full-width next (`fullwidthParentheses`), and spaces next to
 * full-width punctuation are then removed (`spaceCollapsing`), so `测试(注意)内容` ends as `测试（注意）内容`.
 */
export const spaceCjkParentheses = (text: string): string => text.replace(CJK_THEN_PAREN, '$1 (').replace(PAREN_THEN_CJK, ') $1')

/** `currencySpacing`: no space between a currency symbol and its amount (`$ 100` → `$100`). */
export const fixCurrencySpacing = (text: string): string => text.replace(/([$¥€£₹])[ \t]+(?=[0-9])/g, '$1')

const SPACED_SLASH = new RegExp(`(?<=${LATIN_WORD}|${CJK})[ \\t]+/[ \\t]+(?=${LATIN_WORD}|${CJK})`, 'gu')

/** `slashSpacing`: no spaces around a slash between words (`A / B` → `A/B`); `//` and `/` at line edges stay. */
export const fixSlashSpacing = (text: string): string => text.replace(SPACED_SLASH, '/')
