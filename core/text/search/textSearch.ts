import { QuireError } from '../../errors.js'

/** One match: where it starts and how long it is, in UTF-16 code units. */
export interface TextMatch {
  readonly offset: number
  readonly length: number
}

/** What to look for: a literal text, or the source of a regular expression. */
export interface SearchQuery {
  readonly search: string
  readonly regex: boolean
}

/** The longest search text or pattern taken. */
export const MAX_SEARCH_LENGTH = 10_000

/**
 * The regular expression a pattern means: global and multi-line (`^` and `$` at every line), and Unicode-aware (`.`
 * takes a whole emoji) when the pattern is valid as one, else in JavaScript's classic syntax, so a needless escape
 * (`\#`) still works. An invalid pattern is refused here, before anything runs it.
 */
export function compilePattern(source: string): RegExp {
  try {
    return new RegExp(source, 'gmu')
  } catch {
    try {
      return new RegExp(source, 'gm')
    } catch (error) {
      throw new QuireError('INVALID_ARGUMENT', `search is not a valid regular expression (JavaScript syntax): ${(error as Error).message}`)
    }
  }
}

/**
 * The literal matches of `needle` starting in `[from, to)`, at most `limit`, each after the last one (as a regular
 * expression finds them). Line endings in the needle count as the document's (LF).
 */
export function findLiteral(text: string, needle: string, from: number, to: number, limit: number): TextMatch[] {
  const wanted = needle.replace(/\r\n?/g, '\n')
  const found: TextMatch[] = []
  for (let index = text.indexOf(wanted, from); index >= 0 && index < to && found.length < limit; index = text.indexOf(wanted, index + Math.max(1, wanted.length))) {
    found.push({ offset: index, length: wanted.length })
  }
  return found
}

/** How much of a match's line its context shows on either side of it, and of the match itself, in UTF-16 code units. */
const CONTEXT_AROUND = 40
const CONTEXT_MATCH = 120

/**
 * A match's context: the match within its line, with up to 40 code units of the line on either side (and at most 120
 * of a long match); `…` marks where the line goes on. Never splits a surrogate pair.
 */
export function contextOf(text: string, match: TextMatch): string {
  const lineStart = text.lastIndexOf('\n', match.offset - 1) + 1
  const newline = text.indexOf('\n', match.offset)
  const lineEnd = newline < 0 ? text.length : newline
  const matchEnd = Math.min(match.offset + match.length, lineEnd, match.offset + CONTEXT_MATCH)
  const from = keepPair(text, Math.max(lineStart, match.offset - CONTEXT_AROUND), +1)
  const to = keepPair(text, Math.min(lineEnd, matchEnd + CONTEXT_AROUND), -1)
  return `${from > lineStart ? '…' : ''}${text.slice(from, Math.max(from, to))}${to < lineEnd ? '…' : ''}`
}

/** A cut at `at`, moved off the middle of a surrogate pair (forward or back). */
function keepPair(text: string, at: number, direction: 1 | -1): number {
  const code = text.charCodeAt(at)
  return at > 0 && at < text.length && code >= 0xdc00 && code <= 0xdfff ? at + (direction === 1 ? 1 : -1) : at
}

/** Line numbers (from 1) of offsets, given in ascending order: one pass over the text up to the last one. */
export function linesOf(text: string, offsets: readonly number[]): number[] {
  let line = 1
  let scanned = 0
  return offsets.map((offset) => {
    for (let index = text.indexOf('\n', scanned); index >= 0 && index < offset; index = text.indexOf('\n', index + 1)) {
      line++
      scanned = index + 1
    }
    return line
  })
}
