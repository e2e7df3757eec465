import { diffCleanupSemantic, diffMain, DIFF_DELETE, DIFF_EQUAL, DIFF_INSERT, type Diff } from 'diff-match-patch-es'

/** How many places a summary names before it only counts the rest. */
const MAX_PHRASES = 3
/** A quoted piece longer than this (UTF-16 units) is cut, with an ellipsis. */
const MAX_QUOTE = 40
/** Bounds the word diff of two large, unrelated middles: it then settles for a coarser (still correct) answer. */
const DIFF_TIMEOUT_SECONDS = 0.05

/** One place that changed: what was there and what is there now (either may be empty). */
export interface ChangedPiece {
  readonly deleted: string
  readonly inserted: string
}

/**
 * What changed between two texts, in words a person reads in a list: "replaced 'beta' with 'BETA', added ' delta'".
 * Whole words: the common start and end of the two texts are cut back to a word boundary, and the middles are
 * diffed word by word (a word, a run of spaces, or one other character is one unit).
 */
export function changeSummary(before: string, after: string): string {
  let start = commonPrefix(before, after)
  while (start > 0 && isWordChar(before[start - 1]) && (isWordChar(before[start]) || isWordChar(after[start]))) start--
  let end = commonSuffix(before, after, start)
  while (end > 0 && isWordChar(before[before.length - end]) && (isWordChar(before[before.length - end - 1]) || isWordChar(after[after.length - end - 1]))) end--
  return piecesSummary(wordDiff(before.slice(start, before.length - end), after.slice(start, after.length - end)))
}

/** The same words for hunks as the review API gives them (what each deleted and inserted, in document order). */
export function hunksSummary(hunks: readonly ChangedPiece[]): string {
  return piecesSummary(hunks.filter((hunk) => hunk.deleted !== '' || hunk.inserted !== ''))
}

function piecesSummary(pieces: readonly ChangedPiece[]): string {
  if (pieces.length === 0) return 'no change to the text'
  const phrases = pieces.slice(0, MAX_PHRASES).map(phrase)
  const more = pieces.length - MAX_PHRASES
  return more > 0 ? `${phrases.join(', ')}, and ${more} more` : phrases.join(', ')
}

function phrase({ deleted, inserted }: ChangedPiece): string {
  if (deleted === '') return `added ${quote(inserted)}`
  if (inserted === '') return `removed ${quote(deleted)}`
  return `replaced ${quote(deleted)} with ${quote(inserted)}`
}

/** A piece as the summary shows it: quoted, line breaks as ↵, long ones cut. */
function quote(text: string): string {
  // Cut before replacing: a piece may be a whole document, and at most MAX_QUOTE characters of it are shown.
  const shown = text.slice(0, 2 * MAX_QUOTE).replace(/\r?\n/g, '↵')
  const long = shown.length > MAX_QUOTE || text.length > 2 * MAX_QUOTE
  return `'${long ? `${shown.slice(0, MAX_QUOTE - 1)}…` : shown}'`
}

/** The places two texts differ, word by word, each with what was deleted and inserted there. */
function wordDiff(before: string, after: string): ChangedPiece[] {
  if (before === after) return []
  const units: string[] = []
  const codes = new Map<string, number>()
  // Each distinct unit becomes one UTF-16 unit (never a surrogate), so diff-match-patch diffs units, not characters.
  const encode = (text: string): string | undefined => {
    const found = text.match(UNITS) ?? []
    let encoded = ''
    for (const unit of found) {
      let code = codes.get(unit)
      if (code === undefined) {
        if (units.length >= MAX_UNITS) return undefined
        units.push(unit)
        code = units.length < SURROGATES ? units.length : units.length + 0x800
        codes.set(unit, code)
      }
      encoded += String.fromCharCode(code)
    }
    return encoded
  }
  const encodedBefore = encode(before)
  const encodedAfter = encode(after)
  // Too many different words to diff them as units: the whole middle is the one place that changed.
  if (encodedBefore === undefined || encodedAfter === undefined) return [{ deleted: before, inserted: after }]
  const diffs: Diff[] = diffMain(encodedBefore, encodedAfter, { diffTimeout: DIFF_TIMEOUT_SECONDS }, false)
  diffCleanupSemantic(diffs)
  const decode = (encoded: string) => {
    let text = ''
    for (let index = 0; index < encoded.length; index++) {
      const code = encoded.charCodeAt(index)
      text += units[(code < SURROGATES ? code : code - 0x800) - 1]
    }
    return text
  }
  const pieces: ChangedPiece[] = []
  let open: { deleted: string; inserted: string } | undefined
  for (const [operation, text] of diffs) {
    if (operation === DIFF_EQUAL) {
      if (open) pieces.push(open)
      open = undefined
      continue
    }
    open ??= { deleted: '', inserted: '' }
    if (operation === DIFF_DELETE) open.deleted += decode(text)
    else if (operation === DIFF_INSERT) open.inserted += decode(text)
  }
  if (open) pieces.push(open)
  return pieces
}

/** Where UTF-16 surrogates start: unit codes skip their range. */
const SURROGATES = 0xd800
/** The distinct units one diff can encode (every UTF-16 code but 0 and the surrogates). */
const MAX_UNITS = 0xffff - 0x800

/** A word (letters, digits, marks, `_`), a run of white space, or any other single character. */
const UNITS = /[\p{L}\p{N}\p{M}_]+|\s+|[^\p{L}\p{N}\p{M}_\s]/gu
const WORD_CHAR = /[\p{L}\p{N}\p{M}_]/u
const isWordChar = (char: string | undefined): boolean => char !== undefined && WORD_CHAR.test(char)

function commonPrefix(a: string, b: string): number {
  const limit = Math.min(a.length, b.length)
  let index = 0
  while (index < limit && a.charCodeAt(index) === b.charCodeAt(index)) index++
  return index
}

/** The length of the common end of two texts, not reaching back into their first `start` units. */
function commonSuffix(a: string, b: string, start: number): number {
  const limit = Math.min(a.length, b.length) - start
  let length = 0
  while (length < limit && a.charCodeAt(a.length - 1 - length) === b.charCodeAt(b.length - 1 - length)) length++
  return length
}
