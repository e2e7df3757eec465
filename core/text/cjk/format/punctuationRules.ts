import { CJK_CLOSING, CJK_OPENING, HALF_TO_FULL } from '../characters.js'
import { CJK, cjkAt, cjkBefore } from './context.js'
import { isListMarker } from '../listMarker.js'
import { CharFinder } from '../charFinder.js'
import { Rewrite } from '../unitOutput.js'

/**
 * `fullwidthPunctuation` (VMark's `normalizeFullwidthPunctuation`): `, . ! ? ; :` become `，。！？；：` when the nearest
 * non-space character on the left is CJK, a CJK closing bracket or CJK terminal punctuation, or the character on the
 * right is CJK or a CJK opening bracket. Runs convert whole (`什么?!`); never an ellipsis (`...`), a `.` before a Latin
 * letter or digit (`文件.txt`), an ordered-list marker, or punctuation between digits (`3.14`, `12:30`, `1,000`).
 * URLs, emails and escapes are placeholders by now.
 */
export function convertFullwidthPunctuation(text: string): string {
  const rewrite = new Rewrite(text)
  const punctuation = new CharFinder(text, ',.!?;:')
  for (let start = punctuation.from(0); start !== -1; ) {
    let end = start + 1
    while (PUNCTUATION_UNIT[text.charCodeAt(end)] === 1) end++
    if (shouldConvert(text, start, end)) rewrite.map(start, end, FULLWIDTH_OF)
    start = punctuation.from(end)
  }
  return rewrite.result()
}

/** Whether the run of ASCII punctuation `text[start, end)` is CJK punctuation (see above). */
function shouldConvert(text: string, start: number, end: number): boolean {
  for (let at = start + 1; at < end; at++) if (text.charCodeAt(at) === 0x2e && text.charCodeAt(at - 1) === 0x2e) return false
  let left = start
  while (left > 0 && isBlank(text.charCodeAt(left - 1))) left--
  const cjkLeft = cjkBefore(text, left) || CLOSING_UNIT[text.charCodeAt(left - 1)] === 1
  const cjkRight = cjkAt(text, end) || OPENING_UNIT[text.charCodeAt(end)] === 1
  if (!cjkLeft && !cjkRight) return false
  if (end - start === 1 && isDigit(text.charCodeAt(start - 1)) && isDigit(text.charCodeAt(end))) return false
  if (end - start === 1 && text.charCodeAt(start) === 0x2e && (ALPHANUMERIC_UNIT[text.charCodeAt(end)] === 1 || isListMarker(text, start))) return false
  return true
}

const isBlank = (code: number): boolean => code === 0x20 || code === 0x09
const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39
const unitsOf = (chars: string): Uint8Array => {
  const table = new Uint8Array(0x10000)
  for (const char of chars) table[char.charCodeAt(0)] = 1
  return table
}
const CLOSING_UNIT = unitsOf(CJK_CLOSING)
const OPENING_UNIT = unitsOf(CJK_OPENING)
const ALPHANUMERIC_UNIT = unitsOf('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789')
const PUNCTUATION_UNIT = unitsOf(',.!?;:')
/** Each of `, . ! ? ; :` → its full-width form (HALF_TO_FULL), by code unit. */
const FULLWIDTH_OF = (() => {
  const table = new Uint16Array(0x10000)
  for (const char of ',.!?;:') table[char.charCodeAt(0)] = HALF_TO_FULL[char]!.charCodeAt(0)
  return table
})()

const PARENTHESES = new RegExp(`\\((${CJK}[^()\\n]*)\\)`, 'gu')
const BRACKETS = new RegExp(`\\[(${CJK}[^\\[\\]\\n]*)\\]`, 'gu')

/** `fullwidthParentheses`: `(注意)` → `（注意）` when the content starts with CJK. */
export const convertFullwidthParentheses = (text: string): string => text.replace(PARENTHESES, '（$1）')

/**
 * `fullwidthBrackets` (opt-in): `[重点]` → `【重点】` when the content starts with CJK. Link brackets are placeholders,
 * so links are never touched.
 */
export const convertFullwidthBrackets = (text: string): string => text.replace(BRACKETS, '【$1】')

/** `consecutivePunctuationLimit`: runs of one repeated `！` or `？` are cut to `limit` (0 = off). */
export function limitConsecutivePunctuation(text: string, limit: 0 | 1 | 2): string {
  if (limit === 0 || (!text.includes('！！') && !text.includes('？？'))) return text
  return text.replace(/！{2,}|？{2,}/g, (run) => run.slice(0, limit))
}
