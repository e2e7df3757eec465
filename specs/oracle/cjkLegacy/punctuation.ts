import { CJK_NO_KOREAN, HALF_TO_FULL } from './characters.js'
import { charAt, charBefore } from './neighbours.js'
import { isListMarker } from './listMarker.js'

const CJK = new RegExp(`^[${CJK_NO_KOREAN}]$`, 'u')
const isCjk = (char: string): boolean => char !== '' && CJK.test(char)
const ALPHANUMERIC = /^[A-Za-z0-9]$/

/**
 * `cjk-punctuation` (DOC.TRANSFORM.5): ASCII `, . ! ? ; : ( )` touching a Chinese or Japanese character become
 * `，。！？；：（）`, on masked text (code, URLs, math and escapes are placeholders, so `\.` and `https://a.b` are safe).
 * Beyond VMark's one-character regexes:
 * - A run such as `?!` converts whole when either end touches CJK (`什么?!` → `什么？！`, not `什么？!`).
 * - Dot runs (`...`, `..`) are an ellipsis and stay ASCII; so do a `.` followed by a Latin letter or digit (`文件.txt`,
 *   a domain) and the `.` of an ordered-list marker (`1.` at line start).
 * - Parentheses convert in matching pairs (per line): `中文(English)` → `中文（English）`, never a mixed `（…)`.
 * - Hangul is not CJK context here: Korean is written with Western punctuation.
 * Pure ASCII text never changes, and the result is idempotent (nothing converted is ASCII any more).
 */
export function fullwidthPunctuation(text: string): string {
  const converted = text.replace(/[,.!?;:]+/g, (run: string, offset: number) => {
    if (run.includes('..')) return run
    const before = charBefore(text, offset)
    const after = charAt(text, offset + run.length)
    if (!isCjk(before) && !isCjk(after)) return run
    if (run === '.' && (ALPHANUMERIC.test(after) || isListMarker(text, offset) || /^[ \t]\./.test(text.slice(offset + 1, offset + 3)))) {
      return run
    }
    let out = ''
    for (const char of run) out += HALF_TO_FULL[char] ?? char
    return out
  })
  return convertParentheses(converted)
}

/** Pairs `(` with `)` line by line; a pair converts when any of its four sides touches CJK, a lone one when it does. */
function convertParentheses(text: string): string {
  if (!text.includes('(') && !text.includes(')')) return text
  const convert = new Set<number>()
  const touchesCjk = (at: number) => isCjk(charBefore(text, at)) || isCjk(charAt(text, at + 1))
  let open: number[] = []
  for (let at = 0; at < text.length; at++) {
    const char = text[at]
    if (char === '\n') {
      for (const lone of open) if (touchesCjk(lone)) convert.add(lone)
      open = []
    } else if (char === '(') open.push(at)
    else if (char === ')') {
      const partner = open.pop()
      if (partner === undefined) {
        if (touchesCjk(at) && !isListMarker(text, at)) convert.add(at)
      } else if (touchesCjk(partner) || touchesCjk(at)) convert.add(partner).add(at)
    }
  }
  for (const lone of open) if (touchesCjk(lone)) convert.add(lone)
  if (convert.size === 0) return text
  const pieces: string[] = []
  let from = 0
  for (const at of [...convert].sort((a, b) => a - b)) {
    pieces.push(text.slice(from, at), text[at] === '(' ? '（' : '）')
    from = at + 1
  }
  pieces.push(text.slice(from))
  return pieces.join('')
}

