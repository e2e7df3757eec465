import { CJK_NO_KOREAN, LATIN } from '../../../../core/text/cjk/characters.js'

/** Shared regex pieces of the `cjk-format` rules (all used with the `u` flag; all spaces are `[ \t]`, never `\s`). */

/** A Chinese or Japanese character (Korean is excluded from every format rule). */
export const CJK = `[${CJK_NO_KOREAN}]`
/** A Latin letter or digit, or a placeholder that reads as a Latin word (code span, URL, math). */
export const LATIN_WORD = `[${LATIN}\\uE000]`
export const CJK_RE = new RegExp(CJK, 'u')
/** Matches one character of the class, whole string. */
const CJK_CHAR = new RegExp(`^${CJK}$`, 'u')
export const isCjkChar = (char: string): boolean => char !== '' && CJK_CHAR.test(char)
