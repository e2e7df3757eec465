import { CJK_NO_KOREAN, CJK_SPACED, LATIN } from '../../../core/text/cjk/characters.js'
import type { Region } from './blockRegions.js'
import { LINK_CLOSE, LINK_OPEN, WORD } from '../../../core/text/cjk/placeholders.js'

/**
 * One space between a CJK character and an adjacent Latin letter or digit, both ways (DOC.TRANSFORM.4), on masked
 * text. Decisions:
 * - A code span, inline math, a URL or an email (the {@link WORD} placeholder) counts as a Latin word: `用`npm`安装`
 *   becomes `用 `npm` 安装` (what Chinese style guides and pangu do; the code itself is untouched).
 * - Link brackets are looked through, and the space goes outside the link: `见[Python](u)文档` → `见 [Python](u) 文档`.
 *   A closing `](u)` belongs to the text before it and an opening `[` to the text after it, so the space lands after
 *   closers and before openers, never inside the brackets.
 * - Emphasis markers (`*`, `_`, `~`) are not looked through: whether a `**` between CJK and Latin opens or closes is
 *   not decidable without parsing emphasis, and a space on the wrong side would break it.
 * - An existing space (one or more) is kept as it is; only touching pairs get one. The result is idempotent.
 */
function spacer(cjk: string, latinAfter: string, latinBefore: string): (text: string) => string {
  const forward = new RegExp(`([${cjk}])(${LINK_CLOSE}*)(${LINK_OPEN}*)(?=${latinAfter})`, 'gu')
  const backward = new RegExp(`(?<=${latinBefore})(${LINK_CLOSE}*)(${LINK_OPEN}*)([${cjk}])`, 'gu')
  return (text) => text.replace(forward, '$1$2 $3').replace(backward, '$1 $2$3')
}

const LATIN_OR_WORD = `[${LATIN}${WORD}]`

const OTHER = 0
const CJK_CLASS = 1
const LATIN_CLASS = 2
const CLOSER = 3
const OPENER = 4
const HIGH_SURROGATE = 5

/** Class of every UTF-16 code unit for `cjk-spacing` (a table: the transform runs over megabytes, unit by unit). */
const UNIT_CLASS = (() => {
  const table = new Uint8Array(0x10000)
  const cjk = new RegExp(`[${CJK_SPACED}]`, 'u')
  const latin = new RegExp(`[${LATIN}${WORD}]`, 'u')
  for (let code = 0; code < 0x10000; code++) {
    if (code >= 0xd800 && code <= 0xdfff) table[code] = code <= 0xdbff ? HIGH_SURROGATE : OTHER
    else {
      const char = String.fromCharCode(code)
      table[code] = cjk.test(char) ? CJK_CLASS : latin.test(char) ? LATIN_CLASS : OTHER
    }
  }
  table[LINK_CLOSE.charCodeAt(0)] = CLOSER
  table[LINK_OPEN.charCodeAt(0)] = OPENER
  return table
})()
const ASTRAL_CJK = new RegExp(`^[${CJK_SPACED}]$`, 'u')

const REGION_CLASS: Readonly<Record<string, number>> = { [WORD]: LATIN_CLASS, [LINK_OPEN]: OPENER, [LINK_CLOSE]: CLOSER }

/**
 * `cjk-spacing`: CJK (Hangul included) ↔ Latin letters, digits and code/URL words. The same rule as {@link spacer}
 * (`[CJK](closers)(openers)[Latin]` and the reverse get a space after the closers, before the openers), as one pass
 * over the code units with a class table: it has to beat pangu's regex passes on a megabyte. Given the protected
 * `regions` of an unmasked text, each region is one unit of its placeholder's class and is copied, never entered
 * (no mask and unmask round trip); without them the text is masked text.
 */
export function spaceCjkLatin(text: string, regions: readonly Region[] = []): string {
  const inserts: number[] = []
  let previous = OTHER
  let openersAt = -1
  let at = 0
  for (let next = 0; next <= regions.length; next++) {
    const region = regions[next]
    const stop = region === undefined ? text.length : region.start
    // The prose up to the next region, one code unit at a time; the common case is the first branch.
    while (at < stop) {
      let current = UNIT_CLASS[text.charCodeAt(at)]!
      if (current <= LATIN_CLASS) {
        if (current !== OTHER && previous !== OTHER && current !== previous) inserts.push(openersAt === -1 ? at : openersAt)
        previous = current
        openersAt = -1
        at++
        continue
      }
      if (current === CLOSER) {
        // Looked through only as closers followed by openers: a closer after an opener ends the run.
        if (openersAt !== -1) previous = OTHER, openersAt = -1
      } else if (current === OPENER) {
        if (openersAt === -1) openersAt = at
      } else {
        current = ASTRAL_CJK.test(text.slice(at, at + 2)) ? CJK_CLASS : OTHER
        if (current !== OTHER && previous !== OTHER && current !== previous) inserts.push(openersAt === -1 ? at : openersAt)
        previous = current
        openersAt = -1
        at++
      }
      at++
    }
    if (region === undefined) break
    // A protected region is one unit of its placeholder's class, and is never entered.
    const current = REGION_CLASS[region.placeholder] ?? OTHER
    if (current === CLOSER) {
      if (openersAt !== -1) previous = OTHER, openersAt = -1
    } else if (current === OPENER) {
      if (openersAt === -1) openersAt = at
    } else {
      if (current !== OTHER && previous !== OTHER && current !== previous) inserts.push(openersAt === -1 ? at : openersAt)
      previous = current
      openersAt = -1
    }
    at = region.end
  }
  return insertSpaces(text, inserts)
}

/** `text` with a space before each of the sorted offsets (V8 concatenation ropes beat slicing into an array and joining). */
function insertSpaces(text: string, inserts: readonly number[]): string {
  if (inserts.length === 0) return text
  let out = ''
  let from = 0
  for (const at of inserts) {
    out += text.slice(from, at) + ' '
    from = at
  }
  return out + text.slice(from)
}

/**
 * `cjk-format`'s CJK–English spacing (VMark's `addCJKEnglishSpacing`): Korean excluded, and a number's sign, currency
 * prefix and unit suffix travel with it: `价格$100元` → `价格 $100 元`, `我有-1个` → `我有 -1 个`, `温度25℃正常` →
 * `温度 25℃ 正常`, `误差±5%范围` → `误差 ±5% 范围`. A sign before a letter stays attached (`中文-Web` is an identifier).
 */
export const spaceCjkEnglish = spacer(
  CJK_NO_KOREAN,
  `(?:${LATIN_OR_WORD}|[-+±−＋－]?(?:[$€£¥₹][ ]?)?[-+±−＋－]?[0-9])`,
  `(?:${LATIN_OR_WORD}|[0-9][%‰℃℉°])`,
)
