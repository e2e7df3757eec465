import * as Y from 'yjs'
import { alignWithBase } from './baseAlignment.js'
import type { Hunk } from './textDiff.js'

/**
 * What a later write needs to edit a document "as of the moment it was read": the text the reader saw and the
 * document's snapshot (state vector and delete set) at that moment. A write is an edit from its base: its hunks are
 * computed against `text` and mapped onto the document as it is by `rebaseHunks`.
 */
export interface DocumentBase {
  /** The content the reader saw, exactly `ytext.toString()` at the snapshot. */
  readonly text: string
  readonly snapshot: Y.Snapshot
}

/** The base does not describe this text: a different document, or one whose text holds non-string content. */
export class BaseMismatchError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'BaseMismatchError'
  }
}

/**
 * Captures the base of a read. `text` must be the document's current `source` content (the string the caller has
 * already materialised for the reader; it is kept, not copied).
 *
 * Cost: no walk of the text and no copy of it. `Y.snapshot` reads the state vector (O(clients)) and builds the delete
 * set from the struct store: one pass over each client's struct array, O(structs), not O(characters); after Yjs
 * merges consecutive typing a struct holds many characters. The result holds O(clients + deleted ranges) numbers.
 */
export function captureBase(ydoc: Y.Doc, text: string): DocumentBase {
  return { text, snapshot: Y.snapshot(ydoc) }
}

/**
 * Whether nothing happened to the document since the base (equal state vectors and delete sets), so a write's
 * hunks against `base.text` apply as they are. Compares the state vectors first (O(clients)); only when they are
 * equal does it build the current delete set (O(structs), see captureBase): a deletion alone leaves the state vector
 * as it was.
 */
export function baseIsCurrent(ydoc: Y.Doc, base: DocumentBase): boolean {
  const stateVector = base.snapshot.sv
  const clients = ydoc.store.clients
  if (clients.size !== stateVector.size) return false
  for (const [client, clock] of stateVector) {
    if (Y.getState(ydoc.store, client) !== clock) return false
  }
  return Y.equalSnapshots(base.snapshot, Y.snapshot(ydoc))
}

function checkHunks(hunks: readonly Hunk[], baseLength: number): void {
  let end = 0
  for (const [index, hunk] of hunks.entries()) {
    const { start, deleteCount } = hunk
    if (!Number.isInteger(start) || !Number.isInteger(deleteCount) || start < 0 || deleteCount < 0) {
      throw new RangeError(`hunk ${index}: start ${start} and deleteCount ${deleteCount} must be non-negative integers`)
    }
    if (start < end) throw new RangeError(`hunk ${index} starts at ${start}, inside or before the previous hunk (ends at ${end})`)
    end = start + deleteCount
    if (end > baseLength) throw new RangeError(`hunk ${index} ends at ${end}, past the base text (length ${baseLength})`)
  }
}

/**
 * Maps hunks against `base.text` (sorted, non-overlapping, offsets in UTF-16 code units, as `textHunks` makes them)
 * to hunks against the text as it is now, as if the edit had been made on the document at the base and merged with
 * everything that happened since. Applied back to front (`DocumentState.transactLocal`, or `applyHunks` on
 * `ytext.toString()`), the result:
 *
 * 1. Deletes exactly the characters of each base range that are still there: characters others deleted since stay
 *    deleted, and characters others inserted inside the range since the base survive (the writer never saw them).
 * 2. Inserts each hunk's text at the front of its base position: right after the base character before `start`
 *    (after its current place when others deleted it), so anything others inserted at that position since the base
 *    follows the inserted text. A person typing there keeps their own text together and their cursor after it.
 *    At `start` 0 that is the very start of the document.
 * 3. Leaves every character inserted since the base untouched.
 *
 * The hunks returned are sorted, non-overlapping and never touch (touching ones are merged); a base hunk can become
 * several (a deletion split around text others inserted inside it) or none (everything it deleted is gone already
 * and it inserts nothing). Hunks that do not cut a surrogate pair of `base.text` do not cut one of the current text.
 *
 * Cost: one walk of the text's items (see alignWithBase: O(items), plus a binary search of the base delete set per
 * deleted item) and O(hunks); the text itself is neither materialised nor copied. Throws a RangeError for malformed hunks and a BaseMismatchError when the walk does not
 * count `base.text.length` base characters (a base of another document, or a text with non-string content).
 */
export function rebaseHunks(ytext: Y.Text, base: DocumentBase, baseHunks: readonly Hunk[]): Hunk[] {
  checkHunks(baseHunks, base.text.length)
  const result: { start: number; deleteCount: number; insert: string }[] = []
  const emit = (start: number, deleteCount: number, insert: string) => {
    if (deleteCount === 0 && insert.length === 0) return
    const last = result[result.length - 1]
    if (last && last.start + last.deleteCount === start) {
      last.deleteCount += deleteCount
      last.insert += insert
    } else {
      result.push({ start, deleteCount, insert })
    }
  }
  let next = 0
  // Whether hunk `next` has started: its insertion emitted, its deleted range being walked.
  let inside = false
  let basePosition = 0
  let currentPosition = 0
  // Starts and ends the hunks whose boundaries lie at the current base position, before anything inserted there.
  const settle = () => {
    while (next < baseHunks.length) {
      const hunk = baseHunks[next]!
      if (!inside) {
        if (hunk.start !== basePosition) return
        inside = true
        emit(currentPosition, 0, hunk.insert)
      }
      if (hunk.start + hunk.deleteCount !== basePosition) return
      inside = false
      next++
    }
  }
  const walked = alignWithBase(ytext, base.snapshot, (kind, length) => {
    if (kind === 'added') {
      settle()
      currentPosition += length
      return
    }
    let remaining = length
    while (remaining > 0) {
      settle()
      const hunk = baseHunks[next]
      const boundary = hunk === undefined ? Infinity : inside ? hunk.start + hunk.deleteCount : hunk.start
      const step = Math.min(remaining, boundary - basePosition)
      if (kind === 'kept') {
        if (inside) emit(currentPosition, step, '')
        currentPosition += step
      }
      basePosition += step
      remaining -= step
    }
  })
  if (walked !== base.text.length) {
    throw new BaseMismatchError(
      `the text holds ${walked} characters of the base, but the base text has ${base.text.length}: the base was not captured from this text`,
    )
  }
  settle()
  return result
}
