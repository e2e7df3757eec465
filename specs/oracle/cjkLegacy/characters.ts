/**
 * Character classes of the CJK transforms, as regex class bodies (use them inside `[...]` with the `u` flag, so that
 * supplementary-plane ideographs such as 𠀀 U+20000 are one character, never two halves of a surrogate pair).
 *
 * Two CJK sets, because Korean is typeset differently:
 * - {@link CJK_SPACED} is what `cjk-spacing` puts a space next to. It is pangu's set (radicals, Kangxi, kana minus the
 *   katakana middle dot U+30FB, Bopomofo, enclosed CJK, Ext-A, unified, compatibility ideographs) plus what pangu
 *   misses: Hangul syllables (VMark's narrow CJK_RE includes them: Korean separates words with spaces, so `한국어Python`
 *   → `한국어 Python` is what a Korean writer does too), the supplementary-plane ideographs (Ext-B and later), and the
 *   katakana phonetic extensions.
 * - {@link CJK_NO_KOREAN} drives `cjk-punctuation` and every `cjk-format` rule: Korean uses Western punctuation and
 *   attaches particles directly to words, so no Chinese/Japanese typography rule may touch Hangul (VMark: "Korean
 *   excluded from spacing rules").
 */

const HAN =
  '\\u2E80-\\u2EFF\\u2F00-\\u2FDF\\u3400-\\u4DBF\\u4E00-\\u9FFF\\uF900-\\uFAFF\\u{20000}-\\u{2FA1F}\\u{30000}-\\u{323AF}'
const KANA = '\\u3040-\\u309F\\u30A0-\\u30FA\\u30FC-\\u30FF\\u31F0-\\u31FF'
const BOPOMOFO = '\\u3100-\\u312F\\u31A0-\\u31BF'
const ENCLOSED = '\\u3200-\\u32FF'
const HANGUL = '\\uAC00-\\uD7AF'

/** Chinese and Japanese script characters (no punctuation, no Hangul). */
export const CJK_NO_KOREAN = HAN + KANA + BOPOMOFO + ENCLOSED

/** Characters `cjk-spacing` separates from Latin letters and digits: {@link CJK_NO_KOREAN} plus Hangul syllables. */
export const CJK_SPACED = CJK_NO_KOREAN + HANGUL

/**
 * Latin letters and digits: ASCII, plus the letters of Latin-1 and Latin Extended-A/B and Latin Extended Additional
 * (é, ā, ệ: pinyin with tone marks and Vietnamese are Latin words too). Not the Latin-1 symbols (×, ÷, ©, °), which
 * are not letters, and not the full-width forms Ａ-Ｚ, which are typeset as CJK.
 */
export const LATIN = 'A-Za-z0-9\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u024F\\u1E00-\\u1EFF'

/**
 * Any character that makes a document "CJK" for the transforms (gate: a document without one is returned as is):
 * the script characters above plus the CJK Symbols and Punctuation (U+3000–303F) and Halfwidth and Fullwidth Forms
 * (U+FF00–FFEF) blocks, so that `１２３４` or `太棒了！！！` count.
 */
export const ANY_CJK_RE = new RegExp(`[${CJK_SPACED}\\u3000-\\u303F\\uFF00-\\uFFEF]`, 'u')

/** Full-width closing brackets and terminal punctuation: a left context that makes ASCII punctuation CJK punctuation. */
export const CJK_CLOSING = '》」』】）〉，。！？；：、'

/** Full-width opening brackets: a right context that makes ASCII punctuation CJK punctuation. */
export const CJK_OPENING = '《「『【（〈'

/** Full-width punctuation that carries its own spacing: spaces around it are removed by `spaceCollapsing`. */
export const FULLWIDTH_SPACED_PUNCTUATION = '，。！？；：、（）【】《》「」『』〈〉'

/** ASCII punctuation → full-width counterpart (DOC.TRANSFORM.5; VMark's HALF_TO_FULL). */
export const HALF_TO_FULL: Readonly<Record<string, string>> = Object.freeze({
  ',': '，', '.': '。', '!': '！', '?': '？', ';': '；', ':': '：', '(': '（', ')': '）',
})

/** Escapes a string for use inside a regex character class. */
export const classEscape = (chars: string): string => chars.replace(/[\\\]\[^-]/g, '\\$&')
