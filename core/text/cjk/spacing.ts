import { CJK_NO_KOREAN, CJK_SPACED, LATIN } from './characters.js'
import type { Region } from './blockRegions.js'
import { LINK_CLOSE, LINK_OPEN, WORD } from './placeholders.js'
import { UnitOutput } from './unitOutput.js'

/**
 * One space between a CJK character and an adjacent Latin letter or digit, both ways (DOC.TRANSFORM.4). Decisions:
 * - A code span, inline math, a URL or an email (the {@link WORD} placeholder) counts as a Latin word: `用`npm`安装`
 *   becomes `用 `npm` 安装` (what Chinese style guides and pangu do; the code itself is untouched).
 * - Link brackets are looked through, and the space goes outside the link: `见[Python](u)文档` → `见 [Python](u) 文档`.
 *   A closing `](u)` belongs to the text before it and an opening `[` to the text after it, so the space lands after
 *   closers and before openers, never inside the brackets.
 * - Emphasis markers (`*`, `_`, `~`) are not looked through: whether a `**` between CJK and Latin opens or closes is
 *   not decidable without parsing emphasis, and a space on the wrong side would break it.
 * - An existing space (one or more) is kept as it is; only touching pairs get one. The result is idempotent.
 * Both spacers here are single left-to-right scans over the code units with a class table, copying the input into a
 * {@link UnitOutput} as they go: they run over megabytes, and a chain of regex replacements (what pangu does, and
 * what `cjk-format`'s spacing was) pays a whole-text pass and a whole new string per rule.
 */

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
/** `SPACED_PAIR[previous * 3 + current]`: 1 where CJK meets Latin, either way (one lookup, not three branches). */
const SPACED_PAIR = Uint8Array.of(0, 0, 0, 0, 0, 1, 0, 1, 0)
const ASTRAL_SPACED = new RegExp(`^[${CJK_SPACED}]$`, 'u')
const ASTRAL_NO_KOREAN = new RegExp(`^[${CJK_NO_KOREAN}]$`, 'u')

/** Whether `text[at]` (a high surrogate) starts a surrogate pair; a lone surrogate is no character of any class. */
const pairAt = (text: string, at: number, end: number): boolean => {
  if (at + 1 >= end) return false
  const low = text.charCodeAt(at + 1)
  return low >= 0xdc00 && low <= 0xdfff
}

const REGION_CLASS: Readonly<Record<string, number>> = { [WORD]: LATIN_CLASS, [LINK_OPEN]: OPENER, [LINK_CLOSE]: CLOSER }

/**
 * `cjk-spacing`: CJK (Hangul included) ↔ Latin letters, digits and code/URL words: `[CJK](closers)(openers)[Latin]`
 * and the reverse get a space after the closers, before the openers. Given the protected `regions` of an unmasked
 * text, each region is one unit of its placeholder's class and is copied, never entered (no mask and unmask round
 * trip); without them the text is masked text.
 */
export function spaceCjkLatin(text: string, regions: readonly Region[] = []): string {
  const length = text.length
  // At most one space goes before each unit or region, so twice the input never has to grow.
  const output = UnitOutput.shared(2 * length + 1)
  const units = output.units
  let w = 0
  let inserted = false
  let previous = OTHER
  /** Where in the output the current run of openers starts (the space goes before it), or -1. */
  let openersAt = -1
  let at = 0
  for (let next = 0; next <= regions.length; next++) {
    const region = regions[next]
    const stop = region === undefined ? length : region.start
    // The prose up to the next region, one code unit at a time; the common case is the first branch.
    while (at < stop) {
      const code = text.charCodeAt(at)
      let current = UNIT_CLASS[code]!
      if (current <= LATIN_CLASS) {
        if (SPACED_PAIR[previous * 3 + current] === 1) w = spaceBefore(units, w, openersAt), inserted = true
        previous = current
        openersAt = -1
        units[w++] = code
        at++
        continue
      }
      if (current === CLOSER) {
        // Looked through only as closers followed by openers: a closer after an opener ends the run.
        if (openersAt !== -1) previous = OTHER, openersAt = -1
      } else if (current === OPENER) {
        if (openersAt === -1) openersAt = w
      } else if (pairAt(text, at, stop)) {
        current = ASTRAL_SPACED.test(text.slice(at, at + 2)) ? CJK_CLASS : OTHER
        if (current !== OTHER && previous !== OTHER && current !== previous) w = spaceBefore(units, w, openersAt), inserted = true
        previous = current
        openersAt = -1
        units[w++] = code
        units[w++] = text.charCodeAt(at + 1)
        at += 2
        continue
      } else previous = OTHER, openersAt = -1
      units[w++] = code
      at++
    }
    if (region === undefined) break
    // A protected region is one unit of its placeholder's class, and is never entered.
    const current = REGION_CLASS[region.placeholder] ?? OTHER
    if (current === CLOSER) {
      if (openersAt !== -1) previous = OTHER, openersAt = -1
    } else if (current === OPENER) {
      if (openersAt === -1) openersAt = w
    } else {
      if (current !== OTHER && previous !== OTHER && current !== previous) w = spaceBefore(units, w, openersAt), inserted = true
      previous = current
      openersAt = -1
    }
    for (let index = region.start; index < region.end; index++) units[w++] = text.charCodeAt(index)
    at = region.end
  }
  if (!inserted) return text
  output.length = w
  return output.toString()
}

/** Writes a space at the output's end, or before the run of openers that starts at `openersAt`; returns the new end. */
function spaceBefore(units: Uint16Array, w: number, openersAt: number): number {
  if (openersAt === -1) {
    units[w] = 0x20
    return w + 1
  }
  units.copyWithin(openersAt + 1, openersAt, w)
  units[openersAt] = 0x20
  return w + 1
}

const F_OTHER = 0
/** A Chinese or Japanese character (Hangul is not: `cjk-format` leaves Korean alone). */
const F_CJK = 1
/** `[LATIN\uE000]` other than a digit: a letter, or a placeholder that reads as a Latin word. */
const F_LETTER = 2
const F_DIGIT = 3
/** `%‰℃℉°`: a unit that travels with the number before it. */
const F_SUFFIX = 4
/** `-+±−＋－`: a sign that travels with the number after it. */
const F_SIGN = 5
/** `$€£¥₹`: a currency prefix that travels with the number after it. */
const F_CURRENCY = 6
const F_CLOSER = 7
const F_OPENER = 8
const F_HIGH_SURROGATE = 9

/** Class of every UTF-16 code unit for `cjk-format`'s CJK–English spacing. */
const FORMAT_CLASS = (() => {
  const table = new Uint8Array(0x10000)
  const cjk = new RegExp(`[${CJK_NO_KOREAN}]`, 'u')
  const latin = new RegExp(`[${LATIN}${WORD}]`, 'u')
  for (let code = 0; code < 0x10000; code++) {
    if (code >= 0xd800 && code <= 0xdbff) table[code] = F_HIGH_SURROGATE
    else if (code >= 0xdc00 && code <= 0xdfff) table[code] = F_OTHER
    else {
      const char = String.fromCharCode(code)
      table[code] = cjk.test(char) ? F_CJK : code >= 0x30 && code <= 0x39 ? F_DIGIT : latin.test(char) ? F_LETTER : F_OTHER
    }
  }
  for (const char of '%‰℃℉°') table[char.charCodeAt(0)] = F_SUFFIX
  for (const char of '-+±−＋－') table[char.charCodeAt(0)] = F_SIGN
  for (const char of '$€£¥₹') table[char.charCodeAt(0)] = F_CURRENCY
  table[LINK_CLOSE.charCodeAt(0)] = F_CLOSER
  table[LINK_OPEN.charCodeAt(0)] = F_OPENER
  return table
})()

/** Whether a Chinese or Japanese character starts at `at`. */
function cjkAt(text: string, at: number): boolean {
  const kind = FORMAT_CLASS[text.charCodeAt(at)]
  return kind === F_CJK || (kind === F_HIGH_SURROGATE && pairAt(text, at, text.length) && ASTRAL_NO_KOREAN.test(text.slice(at, at + 2)))
}

/** Whether a Latin word or a number (with its sign and currency prefix: `-1`, `$100`, `¥ 5`, `+$3`) starts at `at`. */
function wordOrNumberAt(text: string, at: number): boolean {
  let kind = FORMAT_CLASS[text.charCodeAt(at)]
  if (kind === F_LETTER || kind === F_DIGIT) return true
  if (kind === F_SIGN) kind = FORMAT_CLASS[text.charCodeAt(++at)]
  if (kind === F_CURRENCY) {
    if (text.charCodeAt(++at) === 0x20) at++
    kind = FORMAT_CLASS[text.charCodeAt(at)]
  }
  if (kind === F_SIGN) kind = FORMAT_CLASS[text.charCodeAt(++at)]
  return kind === F_DIGIT
}

/**
 * `cjk-format`'s CJK–English spacing (VMark's `addCJKEnglishSpacing`), on masked text: Korean excluded, and a number's
 * sign, currency prefix and unit suffix travel with it: `价格$100元` → `价格 $100 元`, `我有-1个` → `我有 -1 个`,
 * `温度25℃正常` → `温度 25℃ 正常`, `误差±5%范围` → `误差 ±5% 范围`. A sign before a letter stays attached (`中文-Web` is
 * an identifier). A space goes after the closers and before the openers between the two sides, as in `cjk-spacing`.
 */
export function spaceCjkEnglish(text: string): string {
  // A text already spaced (every pass but the first, and any document formatted before) is only read, never copied.
  if (scanCjkEnglish(text, undefined) === -1) return text
  const output = UnitOutput.shared(2 * text.length + 1)
  output.length = scanCjkEnglish(text, output.units)
  return output.toString()
}

/**
 * The CJK–English spacer's one scan. With `units` (room for twice the text: at most one space goes before each unit),
 * it writes the spaced text there as it passes and returns its length; without, it only looks, and returns whether a
 * space is due anywhere (0) or not (-1).
 */
function scanCjkEnglish(text: string, units: Uint16Array | undefined): number {
  const length = text.length
  const writing = units !== undefined
  const out = units ?? PROBE
  let w = 0
  /** What ends just before the current position: a CJK character, a Latin word or number end, or neither. */
  let left = F_OTHER
  let at = 0
  while (at < length) {
    const code = text.charCodeAt(at)
    let kind = FORMAT_CLASS[code]!
    // Most units are CJK, Latin, spaces or punctuation: those only ever need the class of what came before, and take
    // it from two small tables rather than a branch per class (classes alternate every few units in mixed prose).
    if (kind <= F_DIGIT) {
      if (SPACE_DUE[left * 4 + kind] === 1) {
        if (!writing) return 0
        out[w++] = 0x20
      }
      left = LEFT_AFTER[kind]!
      if (writing) out[w++] = code
      at++
      continue
    }
    let width = 1
    if (kind === F_HIGH_SURROGATE) {
      if (pairAt(text, at, length)) {
        width = 2
        kind = ASTRAL_NO_KOREAN.test(text.slice(at, at + 2)) ? F_CJK : F_OTHER
      } else kind = F_OTHER
    }
    if (kind === F_CLOSER || kind === F_OPENER) {
      if (left === F_OTHER) {
        if (writing) out[w++] = code
        at++
        continue
      }
      // Between a side and what follows the closers and openers: the space goes after the closers.
      let gap = at
      while (FORMAT_CLASS[text.charCodeAt(gap)] === F_CLOSER) gap++
      let after = gap
      while (FORMAT_CLASS[text.charCodeAt(after)] === F_OPENER) after++
      const space = left === F_CJK ? wordOrNumberAt(text, after) : cjkAt(text, after)
      if (space && !writing) return 0
      if (writing) {
        for (let index = at; index < gap; index++) out[w++] = text.charCodeAt(index)
        if (space) out[w++] = 0x20
        for (let index = gap; index < after; index++) out[w++] = text.charCodeAt(index)
      }
      at = after
      left = F_OTHER
      continue
    }
    if (left !== F_OTHER && (left === F_CJK ? kind !== F_CJK && wordOrNumberAt(text, at) : kind === F_CJK)) {
      if (!writing) return 0
      out[w++] = 0x20
    }
    // What the character leaves for the next one: a digit followed by a unit suffix ends a number too.
    if (kind === F_CJK) left = F_CJK
    else if (kind === F_SUFFIX && at > 0 && FORMAT_CLASS[text.charCodeAt(at - 1)] === F_DIGIT) left = F_LETTER
    else left = F_OTHER
    if (writing) {
      out[w++] = code
      if (width === 2) out[w++] = text.charCodeAt(at + 1)
    }
    at += width
  }
  return writing ? w : -1
}

/** `SPACE_DUE[left * 4 + kind]` for the classes up to F_DIGIT: 1 where CJK meets a Latin letter or digit, either way. */
const SPACE_DUE = (() => {
  const table = new Uint8Array(16)
  table[F_LETTER * 4 + F_CJK] = 1
  table[F_CJK * 4 + F_LETTER] = 1
  table[F_CJK * 4 + F_DIGIT] = 1
  return table
})()
/** What a unit of each class up to F_DIGIT leaves as the left side. */
const LEFT_AFTER = Uint8Array.of(F_OTHER, F_CJK, F_LETTER, F_LETTER)

/** Never written: what the probe scan holds instead of an output. */
const PROBE = new Uint16Array(0)


