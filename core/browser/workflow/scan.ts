/**
 * Character-level helpers the workflow scanners share. Everything here looks at each UTF-16 unit once, so the parsers
 * built on it stay linear in their input whatever it holds (no regular expression can backtrack on hostile text).
 */

/**
 * The units JavaScript's `\s` and `String.prototype.trim` treat as white space (ECMA-262 WhiteSpace and
 * LineTerminator), so a hand-written skip agrees exactly with the `trim()` the parser applies to values.
 */
export function isWhitespace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d)
  if (code < 0xa0) return false
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  )
}

/** The first index at or after `from` that is not white space (`text.length` when there is none). */
export function skipWhitespace(text: string, from: number): number {
  let index = from
  while (index < text.length && isWhitespace(text.charCodeAt(index))) index++
  return index
}

/**
 * Lines as VMark reads them: CRLF, a lone CR and LF each end a line; nothing else does (U+2028 and U+2029 are
 * ordinary characters inside a line).
 */
export function splitLines(source: string): string[] {
  const lines: string[] = []
  let start = 0
  for (let index = 0; index < source.length; index++) {
    const code = source.charCodeAt(index)
    if (code !== 0x0a && code !== 0x0d) continue
    lines.push(source.slice(start, index))
    if (code === 0x0d && source.charCodeAt(index + 1) === 0x0a) index++
    start = index + 1
  }
  lines.push(source.slice(start))
  return lines
}

/** Whether `text` holds a CR or LF, which would end its line in a workflow source. */
export function hasLineBreak(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (code === 0x0a || code === 0x0d) return true
  }
  return false
}

/** Whether `trim()` leaves `text` as it is: a value the parser trims cannot be written back unchanged otherwise. */
export function isTrimmed(text: string): boolean {
  return text.length === 0 || (!isWhitespace(text.charCodeAt(0)) && !isWhitespace(text.charCodeAt(text.length - 1)))
}
