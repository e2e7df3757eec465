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

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30
  if (code >= 0x41 && code <= 0x46) return code - 0x37
  if (code >= 0x61 && code <= 0x66) return code - 0x57
  return -1
}

/** Reads the string literal whose opening quote is at `text[start]`. */
export function scanQuoted(text: string, start: number): QuotedScan {
  const parts: string[] = []
  let runStart = start + 1
  let index = runStart
  while (index < text.length) {
    const code = text.charCodeAt(index)
    if (code === 0x22) {
      parts.push(text.slice(runStart, index))
      return { ok: true, value: parts.join(''), end: index + 1 }
    }
    if (code < 0x20) return { ok: false, problem: 'control-character', at: index }
    if (code !== 0x5c) {
      index++
      continue
    }
    parts.push(text.slice(runStart, index))
    if (index + 1 >= text.length) return { ok: false, problem: 'unterminated', at: index }
    const escaped = text[index + 1]!
    if (escaped === 'u') {
      let unit = 0
      for (let digit = 0; digit < 4; digit++) {
        const value = hexValue(text.charCodeAt(index + 2 + digit))
        if (value < 0) return index + 2 + digit >= text.length ? { ok: false, problem: 'unterminated', at: index } : { ok: false, problem: 'invalid-escape', at: index }
        unit = unit * 16 + value
      }
      parts.push(String.fromCharCode(unit))
      index += 6
    } else {
      const replacement = SIMPLE_ESCAPES[escaped]
      if (replacement === undefined) return { ok: false, problem: 'invalid-escape', at: index }
      parts.push(replacement)
      index += 2
    }
    runStart = index
  }
  return { ok: false, problem: 'unterminated', at: start }
}

/** A string as a JSON literal; `scanQuoted` reads it back to the same string (lone surrogates included). */
export const quote = (value: string): string => JSON.stringify(value)
