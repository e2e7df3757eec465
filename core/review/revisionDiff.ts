import { diffCharsToLines, diffLinesToChars, diffMain, DIFF_DELETE, DIFF_INSERT } from 'diff-match-patch-es'
import type { DocumentIndex } from '../audit/resolve.js'
import { replayDocument } from '../audit/replay.js'

/** One line of a unified diff: kept, removed (only in `from`) or added (only in `to`), with its line numbers. */
export interface DiffLine {
  readonly kind: 'same' | 'removed' | 'added'
  readonly text: string
  /** 1-based line number in `from` (absent for an added line) and in `to` (absent for a removed line). */
  readonly fromLine?: number
  readonly toLine?: number
}

export interface RevisionDiff {
  readonly from: string
  readonly to: string
  readonly lines: readonly DiffLine[]
  readonly added: number
  readonly removed: number
}

/** Bounds a diff of two large, unrelated revisions: the line diff then settles for a coarser (still correct) answer. */
const DIFF_TIMEOUT_SECONDS = 1

/**
 * A line diff of two texts (diff-match-patch's line mode: each line becomes one character, diffed, then expanded),
 * as unified lines with line numbers. No semantic cleanup: an unchanged line between two changes stays unchanged. A text's last line counts as a line whether or not it ends with a newline.
 */
export function lineDiff(before: string, after: string): Pick<RevisionDiff, 'lines' | 'added' | 'removed'> {
  const { chars1, chars2, lineArray } = diffLinesToChars(before, after)
  const diffs = diffMain(chars1, chars2, { diffTimeout: DIFF_TIMEOUT_SECONDS }, false)
  diffCharsToLines(diffs, lineArray)
  const lines: DiffLine[] = []
  let fromLine = 0
  let toLine = 0
  let added = 0
  let removed = 0
  for (const [operation, text] of diffs) {
    for (const line of splitLines(text)) {
      if (operation === DIFF_DELETE) {
        lines.push({ kind: 'removed', text: line, fromLine: ++fromLine })
        removed++
      } else if (operation === DIFF_INSERT) {
        lines.push({ kind: 'added', text: line, toLine: ++toLine })
        added++
      } else {
        lines.push({ kind: 'same', text: line, fromLine: ++fromLine, toLine: ++toLine })
      }
    }
  }
  return { lines, added, removed }
}

/** The lines of a diff segment: line mode keeps whole lines (with their newline) together, so split after each. */
function splitLines(text: string): string[] {
  if (text.length === 0) return []
  const parts = text.split('\n')
  if (parts[parts.length - 1] === '') parts.pop()
  return parts
}

/** The line diff between two revisions of a document, each rebuilt from the log alone (replay). */
export async function diffRevisions(engine: DocumentIndex, docId: string, from: string, to: string): Promise<RevisionDiff> {
  const [before, after] = await Promise.all([replayDocument(engine, docId, from), replayDocument(engine, docId, to)])
  return { from, to, ...lineDiff(before, after) }
}
