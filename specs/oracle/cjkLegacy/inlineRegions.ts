import { normaliseLabel, type Region } from './blockRegions.js'
import { LINK_CLOSE, LINK_OPEN, OPAQUE, WORD } from '../../../core/text/cjk/placeholders.js'

/**
 * Inline regions of one stretch of prose between block regions, in one left-to-right pass. Precedence follows
 * CommonMark: backslash escapes, then code spans, autolinks and raw HTML, then inline math, then links (whose text
 * stays prose; only their brackets and targets are protected). Bare URLs and email addresses (GFM's autolink
 * extension) are protected too. Every search is bounded (to the paragraph, the line, or a small window), so the
 * pass is linear in practice however many unmatched delimiters a document has.
 */

const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/
const AUTOLINK = /<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^ \t\r\n<>]*>/y
const EMAIL_AUTOLINK =
  /<[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*>/y
const OPEN_TAG =
  /<[A-Za-z][A-Za-z0-9-]*(?:[ \t\r\n]+[A-Za-z_:][A-Za-z0-9_.:-]*(?:[ \t\r\n]*=[ \t\r\n]*(?:"[^"<>\n]*"|'[^'<>\n]*'|[^ \t\r\n"'=<>`]+))?)*[ \t\r\n]*\/?>/y
const CLOSE_TAG = /<\/[A-Za-z][A-Za-z0-9-]*[ \t\r\n]*>/y
const URL_START = /(?:https?|ftp):\/\/|www\./iy
/**
 * Where a bare URL stops: whitespace, `<`, `>`, quotes, backticks, placeholders, and CJK or full-width punctuation.
 * CJK letters do not stop it: GFM's autolink extension links `https://x.com/路径了解` whole, so that is the URL a
 * reader clicks and it must stay byte-identical (write a space or `<…>` to end a URL before CJK prose).
 */
const URL_STOP = /[\s<>"`\u3000-\u303F\uFF00-\uFFEF\uE000-\uE004]/
const EMAIL = /[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/y
/** The code units where an inline region can start (or a link end); the scan skips everything else. */
const INTERESTING = (() => {
  const table = new Uint8Array(0x10000)
  for (const char of '\\`<$[]@hHfFwW\uE000\uE001\uE002\uE003\uE004') table[char.charCodeAt(0)] = 1
  return table
})()
const WORD_CHAR = /[A-Za-z0-9_]/
const EMAIL_LOCAL_CHAR = /[A-Za-z0-9._%+-]/
const MAX_LABEL = 1_000
/** How far an inline math span may reach; inline math is short, and the bound keeps `$`-heavy lines linear. */
const MATH_WINDOW = 400
/** How many `$` an inline math opener tries as its closer (content cannot hold an unescaped `$` anyway). */
const MATH_CANDIDATES = 4

interface Opener {
  readonly at: number
  readonly length: 1 | 2
}

function matchAt(pattern: RegExp, text: string, at: number, limit: number): number {
  pattern.lastIndex = at
  const match = pattern.exec(text)
  return match && at + match[0].length <= limit ? at + match[0].length : -1
}

/** End of the trimmed bare URL starting at `at` (GFM: trailing punctuation and unbalanced closers are not part of it). */
function bareUrlEnd(text: string, at: number, limit: number, insideBrackets: boolean): number {
  let end = at
  while (end < limit && !URL_STOP.test(text[end]!) && !(insideBrackets && text[end] === ']')) end++
  for (;;) {
    const last = text[end - 1]!
    const url = text.slice(at, end)
    if ('?!.,:*_~\'"'.includes(last)) end--
    else if (last === ')' && url.split('(').length < url.split(')').length) end--
    else if (last === ']' && url.split('[').length < url.split(']').length) end--
    else return end
  }
}

/** End of `(target "title")` starting at the `(`, or -1 when it is not a link target. */
function linkTargetEnd(text: string, open: number, limit: number): number {
  let at = open + 1
  const skipSpace = () => {
    let newlines = 0
    while (at < limit && ' \t\r\n'.includes(text[at]!)) if (text[at++] === '\n' && ++newlines > 1) return false
    return true
  }
  if (!skipSpace()) return -1
  if (text[at] === '<') {
    const close = text.indexOf('>', at)
    if (close === -1 || close >= limit || text.slice(at, close).includes('\n')) return -1
    at = close + 1
  } else {
    let depth = 0
    while (at < limit) {
      const char = text[at]!
      if (char === '\\' && at + 1 < limit) at += 2
      else if (char === '(') depth++, at++
      else if (char === ')') {
        if (depth === 0) break
        depth--, at++
      } else if (' \t\r\n'.includes(char)) break
      else at++
    }
  }
  const beforeTitle = at
  if (!skipSpace()) return -1
  const quote = text[at]
  if (at > beforeTitle && (quote === '"' || quote === "'" || quote === '(')) {
    const closer = quote === '(' ? ')' : quote
    let end = at + 1
    while (end < limit && text[end] !== closer) end += text[end] === '\\' ? 2 : 1
    if (end >= limit) return -1
    at = end + 1
    if (!skipSpace()) return -1
  }
  return text[at] === ')' ? at + 1 : -1
}

export function scanInline(text: string, from: number, to: number, labels: ReadonlySet<string>, regions: Region[]): void {
  const add = (start: number, end: number, placeholder: Region['placeholder']) => regions.push({ start, end, placeholder })
  // Backtick runs of this stretch by length, for code-span closers; each list is consumed front to back.
  const runs = new Map<number, { positions: number[]; next: number }>()
  // Searches run on the stretch itself, never past it: a document is scanned stretch by stretch between blocks.
  const stretch = text.slice(from, to)
  if (stretch.includes('`')) {
    for (const match of stretch.matchAll(/\\[!-/:-@[-`{-~]|`+/g)) {
      if (match[0][0] !== '`') continue
      const entry = runs.get(match[0].length) ?? { positions: [], next: 0 }
      entry.positions.push(from + match.index)
      runs.set(match[0].length, entry)
    }
  }
  let paragraphEnd = -1
  const endOfParagraph = (at: number): number => {
    if (paragraphEnd < at) {
      const blank = /\n[ \t]*(?:\r?\n|$)/g
      blank.lastIndex = at - from
      const match = blank.exec(stretch)
      paragraphEnd = match ? from + match.index : to
    }
    return paragraphEnd
  }
  const openers: Opener[] = []
  let commentClose = -2
  /** Nothing before this offset may start a new region (it is inside or before the last one). */
  let floor = from

  let at = from
  while (at < to) {
    while (at < to && INTERESTING[text.charCodeAt(at)] === 0) at++
    if (at >= to) break
    floor = Math.max(floor, regions.length > 0 ? Math.min(at, regions[regions.length - 1]!.end) : from)
    const char = text[at]!
    const code = char.charCodeAt(0)
    if (code >= 0xe000 && code <= 0xe004) {
      add(at, at + 1, OPAQUE)
      at++
    } else if (char === '\\' && at + 1 < to && ASCII_PUNCTUATION.test(text[at + 1]!)) {
      add(at, at + 2, OPAQUE)
      at += 2
    } else if (char === '`') {
      let end = at
      while (end < to && text[end] === '`') end++
      const length = end - at
      const entry = runs.get(length) ?? { positions: [], next: 0 }
      while (entry.next < entry.positions.length && entry.positions[entry.next]! <= at) entry.next++
      const close = entry.positions[entry.next]
      if (close !== undefined && close < endOfParagraph(at)) {
        add(at, close + length, WORD)
        entry.next++
        at = close + length
      } else at = end
    } else if (char === '<') {
      const autolink = Math.max(matchAt(AUTOLINK, text, at, to), matchAt(EMAIL_AUTOLINK, text, at, to))
      if (autolink !== -1) {
        add(at, autolink, WORD)
        at = autolink
        continue
      }
      let end = -1
      if (text.startsWith('<!--', at)) {
        // One search serves every comment opener up to the close it finds (and none at all if there is none).
        if (commentClose !== -1 && commentClose < at + 4) commentClose = text.indexOf('-->', at + 4)
        end = commentClose !== -1 && commentClose + 3 <= to ? commentClose + 3 : -1
      } else end = Math.max(matchAt(OPEN_TAG, text, at, to), matchAt(CLOSE_TAG, text, at, to))
      if (end !== -1) {
        add(at, end, OPAQUE)
        at = end
      } else at++
    } else if (char === '$') {
      const end = mathEnd(text, at, Math.min(to, endOfParagraph(at)))
      if (end !== -1) {
        add(at, end, WORD)
        at = end
      } else at++
    } else if (char === '[') {
      const image = at > from && text[at - 1] === '!' && !(at - 1 > from && text[at - 2] === '\\')
      openers.push(image ? { at: at - 1, length: 2 } : { at, length: 1 })
      at++
    } else if (char === ']') {
      const opener = openers.pop()
      if (!opener) {
        at++
        continue
      }
      // Reference labels are at most 999 characters (CommonMark), which also bounds every label lookup here.
      const labelLength = at - opener.at - opener.length
      const label = () => text.slice(opener.at + opener.length, at)
      let close = -1
      if (text[at + 1] === '(') close = linkTargetEnd(text, at + 1, to)
      if (close === -1 && text[at + 1] === '[' && labels.size > 0) {
        let end = at + 2
        while (end < to && end - at < MAX_LABEL && text[end] !== ']' && text[end] !== '[') end++
        if (text[end] === ']' && end < to) {
          const reference = text.slice(at + 2, end)
          if ((reference !== '' || labelLength < MAX_LABEL) && labels.has(normaliseLabel(reference === '' ? label() : reference))) close = end + 1
        }
      }
      if (close === -1 && labels.size > 0 && labelLength < MAX_LABEL && labels.has(normaliseLabel(label()))) close = at + 1
      if (close === -1) {
        at++
        continue
      }
      add(opener.at, opener.at + opener.length, LINK_OPEN)
      add(at, close, LINK_CLOSE)
      // Links cannot contain links: earlier `[` openers become literal text.
      for (let index = openers.length - 1; index >= 0; index--) if (openers[index]!.length === 1) openers.splice(index, 1)
      at = close
    } else if ('hHfFwW'.includes(char) && (at === from || !WORD_CHAR.test(text[at - 1]!)) && matchAt(URL_START, text, at, to) !== -1) {
      const end = bareUrlEnd(text, at, to, openers.length > 0)
      add(at, end, WORD)
      at = end
    } else if (char === '@') {
      // An email: walk back over the local part (not into an earlier region), then match forwards from its start.
      let start = at
      while (start > floor && at - start < 64 && EMAIL_LOCAL_CHAR.test(text[start - 1]!)) start--
      while (start < at && !WORD_CHAR.test(text[start]!)) start++
      const end = start < at ? matchAt(EMAIL, text, start, to) : -1
      if (end > at) {
        let trimmed = end
        while ('.-'.includes(text[trimmed - 1]!)) trimmed--
        add(start, trimmed, WORD)
        at = trimmed
      } else at++
    } else at++
  }
}

/** End of the inline math span (`$x$` or `$$x$$`) opening at `at`, or -1. Pandoc's rules keep prices like `$5` prose. */
function mathEnd(text: string, at: number, limit: number): number {
  const bound = Math.min(limit, at + MATH_WINDOW)
  const lineEnd = text.slice(at, bound).indexOf('\n')
  const lineBound = lineEnd === -1 ? bound : at + lineEnd
  if (text[at + 1] === '$') {
    const close = text.slice(at + 2, bound).indexOf('$$')
    return close > 0 ? at + 2 + close + 2 : -1
  }
  const first = text[at + 1]
  if (first === undefined || ' \t\r\n$'.includes(first)) return -1
  let candidates = 0
  for (let close = text.indexOf('$', at + 1); close !== -1 && close < lineBound && candidates++ < MATH_CANDIDATES; close = text.indexOf('$', close + 1)) {
    const before = text[close - 1]!
    if (' \t\r\\'.includes(before)) continue
    if (/[0-9]/.test(text[close + 1] ?? '')) continue
    return close + 1
  }
  return -1
}
