import { CJK_CLOSING, CJK_OPENING, HALF_TO_FULL } from '../../../../core/text/cjk/characters.js'
import { charAt, charBefore } from '../../../../core/text/cjk/neighbours.js'
import { CJK, isCjkChar } from './context.js'
import { isListMarker } from '../../../../core/text/cjk/listMarker.js'

const DIGIT = /^[0-9]$/
const ALPHANUMERIC = /^[A-Za-z0-9]$/

/**
 * `fullwidthPunctuation` (VMark's `normalizeFullwidthPunctuation`): `, . ! ? ; :` become `，。！？；：` when the nearest
 * non-space character on the left is CJK, a CJK closing bracket or CJK terminal punctuation, or the character on the
 * right is CJK or a CJK opening bracket. Runs convert whole (`什么?!`); never an ellipsis (`...`), a `.` before a Latin
 * letter or digit (`文件.txt`), an ordered-list marker, or punctuation between digits (`3.14`, `12:30`, `1,000`).
 * URLs, emails and escapes are placeholders by now.
 */
export function convertFullwidthPunctuation(text: string): string {
  return text.replace(/[,.!?;:]+/g, (run: string, offset: number) => {
    if (run.includes('..')) return run
    let left = offset
    while (left > 0 && (text[left - 1] === ' ' || text[left - 1] === '\t')) left--
    const before = charBefore(text, left)
    const adjacentBefore = charBefore(text, offset)
    const after = charAt(text, offset + run.length)
    const cjkLeft = isCjkChar(before) || (before !== '' && CJK_CLOSING.includes(before))
    const cjkRight = isCjkChar(after) || (after !== '' && CJK_OPENING.includes(after))
    if (!cjkLeft && !cjkRight) return run
    if (run.length === 1 && DIGIT.test(adjacentBefore) && DIGIT.test(after)) return run
    if (run === '.' && (ALPHANUMERIC.test(after) || isListMarker(text, offset))) return run
    let out = ''
    for (const char of run) out += HALF_TO_FULL[char] ?? char
    return out
  })
}

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
  if (limit === 0) return text
  return text.replace(/！{2,}|？{2,}/g, (run) => run.slice(0, limit))
}
