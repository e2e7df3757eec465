import { CJK_NO_KOREAN, LATIN } from '../characters.js'

/** Shared regex pieces of the `cjk-format` rules (all used with the `u` flag; all spaces are `[ \t]`, never `\s`). */

/** A Chinese or Japanese character (Korean is excluded from every format rule). */
export const CJK = `[${CJK_NO_KOREAN}]`
/** A Latin letter or digit, or a placeholder that reads as a Latin word (code span, URL, math). */
export const LATIN_WORD = `[${LATIN}\\uE000]`
export const CJK_RE = new RegExp(CJK, 'u')
/** Matches one character of the class, whole string. */
const CJK_CHAR = new RegExp(`^${CJK}$`, 'u')
export const isCjkChar = (char: string): boolean => char !== '' && CJK_CHAR.test(char)

/**
 * The same classes by code unit, for the rules that scan instead of matching a regex: 1 for a BMP member of the
 * class. Astral CJK (Ext-B and later) is decided by {@link isCjkChar} on the surrogate pair.
 */
function unitTable(pattern: RegExp): Uint8Array {
  const table = new Uint8Array(0x10000)
  for (let code = 0; code < 0x10000; code++) if (code < 0xd800 || code > 0xdfff) table[code] = pattern.test(String.fromCharCode(code)) ? 1 : 0
  return table
}
const CJK_UNIT = unitTable(new RegExp(`^${CJK}$`, 'u'))
/** `[LATIN\uE000]` by code unit (all BMP). */
export const LATIN_WORD_UNIT = unitTable(new RegExp(`^${LATIN_WORD}$`, 'u'))

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff

/** Whether a CJK character starts at `at` (a surrogate pair is one character; a lone surrogate is none). */
export function cjkAt(text: string, at: number): boolean {
  const code = text.charCodeAt(at)
  if (CJK_UNIT[code] === 1) return true
  return isHigh(code) && isLow(text.charCodeAt(at + 1)) && CJK_CHAR.test(text.slice(at, at + 2))
}

/** Whether a CJK character ends just before `end`. */
export function cjkBefore(text: string, end: number): boolean {
  if (end <= 0) return false
  const code = text.charCodeAt(end - 1)
  if (CJK_UNIT[code] === 1) return true
  return end >= 2 && isLow(code) && isHigh(text.charCodeAt(end - 2)) && CJK_CHAR.test(text.slice(end - 2, end))
}

/** Whether a Latin word character or a CJK character starts at `at`. */
export const wordOrCjkAt = (text: string, at: number): boolean => LATIN_WORD_UNIT[text.charCodeAt(at)] === 1 || cjkAt(text, at)

/** Whether a Latin word character or a CJK character ends just before `end`. */
export const wordOrCjkBefore = (text: string, end: number): boolean =>
  (end > 0 && LATIN_WORD_UNIT[text.charCodeAt(end - 1)] === 1) || cjkBefore(text, end)
