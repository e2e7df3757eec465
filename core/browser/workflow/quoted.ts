/**
 * A JSON string literal read by hand: the quoted names and values of an `action:` step (`click "Say \"hi\""`). The
 * recorder writes them with JSON escaping, so a page-chosen name with a quote or a line break inside cannot end its
 * string or its line; this reads them back with exactly JSON's rules (the same result as `JSON.parse`, the same
 * refusals: a raw control character, an unknown escape, a short `\u`). One left-to-right pass: VMark's first version
 * searched with `/"((?:[^"\\]|\\.)*)"\s*$/`, which was quadratic on a long run of `\"`.
 */

export type QuotedScan =
  | { readonly ok: true; readonly value: string; /** Index just past the closing quote. */ readonly end: number }
  | { readonly ok: false; readonly problem: 'unterminated' | 'invalid-escape' | 'control-character'; readonly at: number }

/** The characters JSON allows after a backslash, `u` aside (it takes four hex digits). */
const isSimpleEscape = (code: number): boolean =>
  code === 0x22 || code === 0x5c || code === 0x2f || code === 0x62 || code === 0x66 || code === 0x6e || code === 0x72 || code === 0x74

const isHexDigit = (code: number): boolean => (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66)

/**
 * Reads the string literal whose opening quote is at `text[start]`. The scan only checks and finds the end, allocating
 * nothing; a literal that passed it is then decoded by `JSON.parse` (native, linear, and JSON's own decoding), or
 * simply sliced when it holds no escape.
 */
export function scanQuoted(text: string, start: number): QuotedScan {
  let escapes = false
  let index = start + 1
  while (index < text.length) {
    const code = text.charCodeAt(index)
    if (code === 0x22) {
      const value = escapes ? (JSON.parse(text.slice(start, index + 1)) as string) : text.slice(start + 1, index)
      return { ok: true, value, end: index + 1 }
    }
    if (code < 0x20) return { ok: false, problem: 'control-character', at: index }
    if (code !== 0x5c) {
      index++
      continue
    }
    escapes = true
    if (index + 1 >= text.length) return { ok: false, problem: 'unterminated', at: index }
    const escaped = text.charCodeAt(index + 1)
    if (escaped === 0x75) {
      for (let digit = index + 2; digit < index + 6; digit++) {
        if (digit >= text.length) return { ok: false, problem: 'unterminated', at: index }
        if (!isHexDigit(text.charCodeAt(digit))) return { ok: false, problem: 'invalid-escape', at: index }
      }
      index += 6
    } else if (isSimpleEscape(escaped)) {
      index += 2
    } else {
      return { ok: false, problem: 'invalid-escape', at: index }
    }
  }
  return { ok: false, problem: 'unterminated', at: start }
}

/** A string as a JSON literal; `scanQuoted` reads it back to the same string (lone surrogates included). */
export const quote = (value: string): string => JSON.stringify(value)
