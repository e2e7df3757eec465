import {
  diffCharsToLines,
  diffCleanupSemantic,
  diffCommonPrefix,
  diffCommonSuffix,
  diffLinesToChars,
  diffMain,
  DIFF_DELETE,
  DIFF_EQUAL,
  DIFF_INSERT,
  type Diff,
} from 'diff-match-patch-es'

/** One replacement in old-text coordinates (UTF-16 code units, as Y.Text counts). */
export interface Hunk {
  readonly start: number
  readonly deleteCount: number
  readonly insert: string
}

/**
 * How long one diff may search before settling for a coarser (still correct) answer: bounds the write path against
 * a hostile pair of huge, unrelated texts.
 */
const DIFF_TIMEOUT_SECONDS = 0.05

/**
 * Changed blocks larger than this (characters removed plus inserted) are replaced whole instead of refined
 * character by character: a rewrite that large shares nothing worth keeping, and refining it costs the full timeout.
 */
const REFINE_LIMIT = 8_000

/**
 * A large middle whose lines the two texts share less than this (by characters, each line counted as often as both
 * have it) is a rewrite, replaced whole without a line diff.
 */
const REWRITE_SHARE = 0.2

/**
 * The share of the longer text's characters in lines both texts have, each line counted as often as both have it:
 * an upper bound of what any line diff could keep. O(lines).
 */
function sharedLineShare(chars1: string, chars2: string, lineArray: readonly string[]): number {
  const counts = new Map<number, number>()
  for (let i = 0; i < chars1.length; i++) {
    const line = chars1.charCodeAt(i)
    counts.set(line, (counts.get(line) ?? 0) + 1)
  }
  let shared = 0
  let length1 = 0
  for (let i = 0; i < chars1.length; i++) length1 += lineArray[chars1.charCodeAt(i)]!.length
  let length2 = 0
  for (let i = 0; i < chars2.length; i++) {
    const line = chars2.charCodeAt(i)
    const size = lineArray[line]!.length
    length2 += size
    const left = counts.get(line) ?? 0
    if (left > 0) {
      counts.set(line, left - 1)
      shared += size
    }
  }
  return shared / Math.max(length1, length2, 1)
}

/** At most this long refining one block that is past the untimed work; past it the block is replaced whole. */
const BLOCK_BUDGET_MS = 3

/**
 * How much diffing runs without a clock, counted as the square of each diff's input length (a bound of its search):
 * under it the same two texts always give the same hunks, whatever the machine's load, so a write's recorded change
 * does not depend on a pause of the collector. Only the diff past it has a deadline and may settle for a coarser
 * answer; this bounds the untimed part to a few milliseconds.
 */
const UNTIMED_WORK = 4_000_000

/**
 * Whether a changed block is an edit of the old text (worth refining) rather than a rewrite: the two sides share
 * at least half of the shorter one as a common prefix and suffix, or the block is small. A rewrite's character diff
 * costs the most and keeps nothing a concurrent editor would miss.
 */
function looksLikeAnEdit(removed: string, inserted: string): boolean {
  if (removed.length + inserted.length <= 200) return true
  const shared = diffCommonPrefix(removed, inserted) + diffCommonSuffix(removed, inserted)
  return shared >= 0.5 * Math.min(removed.length, inserted.length)
}

/**
 * The hunks that turn `before` into `after`, as a minimal diff so that concurrent peer edits elsewhere in the
 * document survive a whole-document write: lines first (cheap even for unrelated texts), then each changed block
 * refined character by character with semantic clean-up (so a rewritten sentence is a few word-sized hunks, not
 * hundreds of letters). Hunks are sorted, non-overlapping, and never split a surrogate pair (Yjs would replace half
 * a pair with U+FFFD).
 */
export function textHunks(before: string, after: string): Hunk[] {
  if (before === after) return []
  // The diff below scales with what it is given, so it is given only what changed: the whole lines both texts share
  // at either end are set aside first (one comparison pass each), and an 8-character edit of 1 MiB costs a line.
  const { prefix, suffix } = commonLines(before, after)
  const middle = middleHunks(before.slice(prefix, before.length - suffix), after.slice(prefix, after.length - suffix))
  const hunks = prefix === 0 ? middle : middle.map((hunk) => ({ ...hunk, start: hunk.start + prefix }))
  return widenAcrossSurrogates(before, hunks)
}

/**
 * How many characters at the start (`prefix`) and at the end (`suffix`) of both texts are whole lines they share,
 * not overlapping. Both ends fall on line starts of both texts, so the middle's line diff sees whole lines, as a
 * line diff of the whole texts would (and no surrogate pair is cut, since a line ends with a newline).
 */
function commonLines(before: string, after: string): { prefix: number; suffix: number } {
  const shared = diffCommonPrefix(before, after)
  const prefix = shared === 0 ? 0 : before.lastIndexOf('\n', shared - 1) + 1
  const room = Math.min(before.length, after.length) - prefix
  const common = Math.min(diffCommonSuffix(before, after), room)
  if (common === 0) return { prefix, suffix: 0 }
  const atLineStart = (text: string, offset: number) => offset === prefix || text.charCodeAt(offset - 1) === NEWLINE
  const beforeStart = before.length - common
  if (atLineStart(before, beforeStart) && atLineStart(after, after.length - common)) return { prefix, suffix: common }
  // Inside the shared end, the first newline is in both texts: what follows it starts a line in each.
  const newline = before.indexOf('\n', beforeStart)
  return { prefix, suffix: newline === -1 ? 0 : before.length - newline - 1 }
}

const NEWLINE = 0x0a

/** The diff proper (see textHunks), of texts that differ. */
function middleHunks(before: string, after: string): Hunk[] {
  const deadline = Date.now() + DIFF_TIMEOUT_SECONDS * 1000
  const { chars1, chars2, lineArray } = diffLinesToChars(before, after)
  if (before.length + after.length > REFINE_LIMIT && sharedLineShare(chars1, chars2, lineArray) < REWRITE_SHARE) {
    // A rewrite: the line diff would search until its deadline to keep a few blank lines, and the block it found
    // would be replaced whole anyway (it is past REFINE_LIMIT).
    return [{ start: 0, deleteCount: before.length, insert: after }]
  }
  let untimedLeft = UNTIMED_WORK
  /** The deadline of a diff of these two inputs: none while the untimed work lasts, else `timed`. */
  const deadlineFor = (one: string, two: string, timed: number): number => {
    const work = (one.length + two.length) ** 2
    if (work > untimedLeft) return timed
    untimedLeft -= work
    return Number.MAX_VALUE
  }
  const lines = diffMain(chars1, chars2, { diffTimeout: DIFF_TIMEOUT_SECONDS }, false, deadlineFor(chars1, chars2, deadline))
  diffCharsToLines(lines, lineArray)
  const diffs: Diff[] = []
  let removed = ''
  let inserted = ''
  const flush = () => {
    if (removed.length + inserted.length === 0) return
    const refine =
      removed.length > 0 && inserted.length > 0 && removed.length + inserted.length <= REFINE_LIMIT && looksLikeAnEdit(removed, inserted)
    if (refine) {
      // Past the untimed work, each block gets a small budget, and all of them together the one deadline.
      const blockDeadline = deadlineFor(removed, inserted, Math.min(deadline, Date.now() + BLOCK_BUDGET_MS))
      const refined = diffMain(removed, inserted, { diffTimeout: DIFF_TIMEOUT_SECONDS }, false, blockDeadline)
      diffCleanupSemantic(refined)
      diffs.push(...refined)
    } else {
      if (removed.length > 0) diffs.push([DIFF_DELETE, removed])
      if (inserted.length > 0) diffs.push([DIFF_INSERT, inserted])
    }
    removed = ''
    inserted = ''
  }
  for (const [operation, text] of lines) {
    if (operation === DIFF_DELETE) removed += text
    else if (operation === DIFF_INSERT) inserted += text
    else {
      flush()
      diffs.push([DIFF_EQUAL, text])
    }
  }
  flush()
  return toHunks(diffs)
}

function toHunks(diffs: Diff[]): Hunk[] {
  const hunks: Hunk[] = []
  let offset = 0
  let pending: { start: number; deleteCount: number; insert: string } | undefined
  for (const [operation, text] of diffs) {
    if (operation === DIFF_DELETE || operation === DIFF_INSERT) {
      pending ??= { start: offset, deleteCount: 0, insert: '' }
      if (operation === DIFF_DELETE) {
        pending.deleteCount += text.length
        offset += text.length
      } else {
        pending.insert += text
      }
    } else {
      if (pending) hunks.push(pending)
      pending = undefined
      offset += text.length
    }
  }
  if (pending) hunks.push(pending)
  return hunks
}

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff

/**
 * Moves hunk edges that fall inside a surrogate pair outward by one code unit. The widened unit is equal in both
 * texts (it sat in an unchanged run), so it is deleted and re-inserted unchanged; touching hunks are merged.
 */
function widenAcrossSurrogates(before: string, hunks: Hunk[]): Hunk[] {
  const result: Hunk[] = []
  for (const hunk of hunks) {
    let { start, deleteCount, insert } = hunk
    const startSplits =
      start > 0 &&
      isHigh(before.charCodeAt(start - 1)) &&
      (isLow(before.charCodeAt(start)) || (insert.length > 0 && isLow(insert.charCodeAt(0))))
    if (startSplits) {
      start -= 1
      deleteCount += 1
      insert = before[start]! + insert
    }
    const end = start + deleteCount
    const endSplits =
      end < before.length &&
      isLow(before.charCodeAt(end)) &&
      (isHigh(before.charCodeAt(end - 1)) || (insert.length > 0 && isHigh(insert.charCodeAt(insert.length - 1))))
    if (endSplits) {
      deleteCount += 1
      insert += before[end]!
    }
    const previous = result[result.length - 1]
    if (previous && previous.start + previous.deleteCount >= start) {
      // Only touching is possible here: the original hunks were separated by at least one equal unit.
      const gap = before.slice(previous.start + previous.deleteCount, start)
      result[result.length - 1] = {
        start: previous.start,
        deleteCount: start + deleteCount - previous.start,
        insert: previous.insert + gap + insert,
      }
    } else {
      result.push({ start, deleteCount, insert })
    }
  }
  return result
}

/** Applies hunks to a string; the reference semantics the Yjs application must match. */
export function applyHunks(text: string, hunks: readonly Hunk[]): string {
  let result = ''
  let cursor = 0
  for (const hunk of hunks) {
    result += text.slice(cursor, hunk.start) + hunk.insert
    cursor = hunk.start + hunk.deleteCount
  }
  return result + text.slice(cursor)
}
