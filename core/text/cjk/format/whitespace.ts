import { FULLWIDTH_SPACED_PUNCTUATION } from '../characters.js'
import { CharFinder } from '../charFinder.js'
import { Rewrite } from '../unitOutput.js'

/** `，。！？；：、（）【】《》「」『』〈〉` by code unit (all BMP). */
const FULLWIDTH_UNIT = (() => {
  const table = new Uint8Array(0x10000)
  for (const char of FULLWIDTH_SPACED_PUNCTUATION) table[char.charCodeAt(0)] = 1
  return table
})()

const isBlank = (code: number): boolean => code === 0x20 || code === 0x09
/** A character that may stand next to a collapsed run: anything but a space, a tab, `\r` or `\n` (or the text's edge). */
const isSolid = (code: number): boolean => code === code && code !== 0x20 && code !== 0x09 && code !== 0x0d && code !== 0x0a

/**
 * `spaceCollapsing`: runs of spaces inside a line become one, and spaces touching full-width punctuation go (it
 * carries its own space: `中文， English` → `中文，English`). Indentation and trailing spaces are left alone: the
 * first is Markdown structure, the second is `trailingSpaceRemoval`'s (hard breaks). One pass over the runs of
 * spaces and tabs: a run between two solid characters becomes one space, and one with full-width punctuation on a
 * side (and a solid character on the other) goes.
 */
export function collapseSpaces(text: string): string {
  const rewrite = new Rewrite(text)
  // Runs are found by native searches: one per run, and tabs (rare) get their own cursor only when there are any.
  const blanks = text.includes('\t') ? new CharFinder(text, ' \t') : undefined
  for (let start = blanks ? blanks.from(0) : text.indexOf(' '); start !== -1; ) {
    let end = start + 1
    while (isBlank(text.charCodeAt(end))) end++
    const before = start > 0 ? text.charCodeAt(start - 1) : NaN
    const after = text.charCodeAt(end)
    if ((isSolid(before) && FULLWIDTH_UNIT[after] === 1) || (FULLWIDTH_UNIT[before] === 1 && isSolid(after))) rewrite.replace(start, end, -1)
    else if (end - start >= 2 && isSolid(before) && isSolid(after)) rewrite.replace(start, end, 0x20)
    start = blanks ? blanks.from(end) : text.indexOf(' ', end)
  }
  return rewrite.result()
}

/**
 * `trailingSpaceRemoval`: trailing spaces and tabs go; with `preserveTwoSpaceHardBreaks`, two or more spaces ending a
 * non-blank line that another line follows stay (a Markdown hard break). Line endings (`\n`, `\r\n`) are kept.
 */
export function removeTrailingSpaces(text: string, preserveHardBreaks: boolean): string {
  const rewrite = new Rewrite(text)
  let lineStart = 0
  for (;;) {
    const newline = text.indexOf('\n', lineStart)
    const lineEnd = newline === -1 ? text.length : newline > lineStart && text.charCodeAt(newline - 1) === 0x0d ? newline - 1 : newline
    let start = lineEnd
    while (start > lineStart && isBlank(text.charCodeAt(start - 1))) start--
    if (start < lineEnd && !(preserveHardBreaks && newline !== -1 && start > lineStart && onlySpaces(text, start, lineEnd) && lineEnd - start >= 2)) {
      rewrite.replace(start, lineEnd, -1)
    }
    if (newline === -1) break
    lineStart = newline + 1
  }
  return rewrite.result()
}

function onlySpaces(text: string, from: number, to: number): boolean {
  for (let at = from; at < to; at++) if (text.charCodeAt(at) !== 0x20) return false
  return true
}


/** `newlineCollapsing`: at most one blank line in a row (whitespace-only lines count as blank); line endings kept. */
export const collapseNewlines = (text: string): string =>
  text.replace(/(\r?\n)(?:[ \t]*\r?\n){2,}/g, (_run: string, first: string) => first + first)
