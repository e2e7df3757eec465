import * as Y from 'yjs'
import { alignWithBase, type BaseView } from './baseAlignment.js'
import { IdRangeCollector, NO_IDS, uniteIds, type IdRanges } from './idRanges.js'
import type { Hunk } from './textDiff.js'

/**
 * Characters of a base's text that the document no longer holds and whose place among the document's items is not
 * known (see baseAfterWrite): they sit right after the base character before them.
 */
export interface Phantom {
  /** Offset in the base text (UTF-16 code units). */
  readonly position: number
  readonly length: number
}

/**
 * What a later write needs to edit a document "as of the moment it was read": the text the writer knows and which
 * of the document's characters (by Yjs id) that text consists of. A write is an edit from its base: its hunks are
 * computed against `text` and mapped onto the document as it is by `rebaseWrite` / `rebaseHunks`.
 *
 * A read's base is the document's snapshot (`captureBase`). After a write from it, the writer knows its own new text,
 * which the document may not hold exactly (others typed meanwhile): `baseAfterWrite` describes that text, so a
 * second write without a read in between neither repeats the first one's insertions nor deletes what others typed
 * during the first.
 */
export interface DocumentBase extends BaseView {
  /** The text the writer knows: `ytext.toString()` at the read, or its own text after a write. */
  readonly text: string
  /** The snapshot of the read, while the base is a state the document was in; null after a write merged with others'. */
  readonly snapshot: Y.Snapshot | null
  /** Sorted, disjoint; empty for a read. */
  readonly phantoms: readonly Phantom[]
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
 * already materialised for the reader; it is kept, not copied), and `snapshot` the document's snapshot now, when the
 * caller has it at hand (DocumentState.snapshot() carries one across local changes); it is kept, never changed.
 *
 * Cost: no walk of the text and no copy of it. A fresh `Y.snapshot` reads the state vector (O(clients)) and builds the
 * delete set from the struct store: one pass over each client's struct array, O(structs), not O(characters)
 * (consecutive typing is merged into few structs), tombstones included. The base holds O(clients + deleted ranges)
 * numbers.
 */
export function captureBase(ydoc: Y.Doc, text: string, snapshot: Y.Snapshot = Y.snapshot(ydoc)): DocumentBase {
  return { text, snapshot, stateVector: snapshot.sv, deleted: snapshot.ds.clients, added: NO_IDS, phantoms: [] }
}

/**
 * Whether nothing happened to the document since the base was read (equal state vectors and delete sets), so a
 * write's hunks against `base.text` apply as they are. Compares the state vectors first (O(clients)); only when they
 * are equal does it build the current delete set (O(structs), see captureBase): a deletion alone leaves the state
 * vector as it was. Always false for a base after a write merged with others' edits.
 */
export function baseIsCurrent(ydoc: Y.Doc, base: DocumentBase): boolean {
  if (base.snapshot === null) return false
  const stateVector = base.snapshot.sv
  if (ydoc.store.clients.size !== stateVector.size) return false
  for (const [client, clock] of stateVector) {
    if (Y.getState(ydoc.store, client) !== clock) return false
  }
  return Y.equalSnapshots(base.snapshot, Y.snapshot(ydoc))
}

export interface RebasedWrite {
  /** The hunks against the current text (see rebaseWrite). */
  readonly hunks: Hunk[]
  /** Whether the text changed since the base (anything inserted or deleted); if not, `hunks` are the base hunks. */
  readonly concurrent: boolean
  /** For baseAfterWrite: ids of base characters that are not part of the written text's base. */
  readonly dropped: IdRanges
  /** For baseAfterWrite: the written text's phantoms. */
  readonly phantoms: readonly Phantom[]
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
 * Cost: one walk of the text's items (see alignWithBase: O(items), plus a binary search of the base's deletions per
 * deleted item) and O(hunks + phantoms); the text itself is neither materialised nor copied. Throws a RangeError for
 * malformed hunks and a BaseMismatchError when the walk does not count `base.text.length` base characters (a base of
 * another document, or a text with non-string content).
 */
export function rebaseWrite(ytext: Y.Text, base: DocumentBase, baseHunks: readonly Hunk[]): RebasedWrite {
  checkHunks(baseHunks, base.text.length)
  const hunks: { start: number; deleteCount: number; insert: string }[] = []
  const emit = (start: number, deleteCount: number, insert: string) => {
    if (deleteCount === 0 && insert.length === 0) return
    const last = hunks[hunks.length - 1]
    if (last && last.start + last.deleteCount === start) {
      last.deleteCount += deleteCount
      last.insert += insert
    } else {
      hunks.push({ start, deleteCount, insert })
    }
  }
  const phantoms = base.phantoms
  const dropped = new IdRangeCollector()
  const writtenPhantoms: { position: number; length: number }[] = []
  const addPhantom = (position: number, length: number) => {
    const last = writtenPhantoms[writtenPhantoms.length - 1]
    if (last && last.position + last.length === position) last.length += length
    else writtenPhantoms.push({ position, length })
  }
  let concurrent = phantoms.length > 0
  let next = 0
  // Whether hunk `next` has started: its insertion emitted, its deleted range being walked.
  let inside = false
  let phantomIndex = 0
  let phantomDone = 0
  let basePosition = 0
  let currentPosition = 0
  // Offset in the written text (base text with the hunks applied) of the next base character.
  let writtenPosition = 0
  // Whether text was inserted with nothing visible after it yet. Yjs puts an insertion after the deleted items that
  // follow the visible character before it, so deleted base characters met now precede the insertion among the
  // items although they follow it in the written text: the written text's base cannot place them by their item.
  let afterInsertion = false

  const hunkBoundary = () => {
    const hunk = baseHunks[next]
    return hunk === undefined ? Infinity : inside ? hunk.start + hunk.deleteCount : hunk.start
  }
  // Starts and ends the hunks whose boundaries lie at the current base position, before anything inserted there.
  const settle = () => {
    while (next < baseHunks.length) {
      const hunk = baseHunks[next]!
      if (!inside) {
        if (hunk.start !== basePosition) return
        inside = true
        emit(currentPosition, 0, hunk.insert)
        writtenPosition += hunk.insert.length
        if (hunk.insert.length > 0) afterInsertion = true
      }
      if (hunk.start + hunk.deleteCount !== basePosition) return
      inside = false
      next++
    }
  }
  // Consumes `length` base characters, within one hunk or between two; `client` is undefined for phantoms.
  const consume = (kind: 'kept' | 'removed', length: number, client?: number, clock?: number) => {
    if (inside) {
      if (kind === 'kept') emit(currentPosition, length, '')
      if (client !== undefined) dropped.add(client, clock!, length)
    } else {
      if (kind === 'kept') afterInsertion = false
      else if (client === undefined) addPhantom(writtenPosition, length)
      else if (afterInsertion) {
        addPhantom(writtenPosition, length)
        dropped.add(client, clock!, length)
      }
      writtenPosition += length
    }
    if (kind === 'kept') currentPosition += length
    basePosition += length
  }
  // The base position of the next hunk boundary or phantom: nothing happens before it but counting.
  let eventAt = 0
  // Settles the hunks at the current base position and consumes the phantoms there, which come right after the base
  // character before them.
  const advance = () => {
    for (;;) {
      settle()
      const phantom = phantoms[phantomIndex]
      if (phantom === undefined || phantom.position + phantomDone !== basePosition) {
        eventAt = Math.min(hunkBoundary(), phantom === undefined ? Infinity : phantom.position + phantomDone)
        return
      }
      const length = Math.min(phantom.length - phantomDone, hunkBoundary() - basePosition)
      consume('removed', length)
      phantomDone += length
      if (phantomDone === phantom.length) {
        phantomIndex++
        phantomDone = 0
      }
    }
  }
  const walked = alignWithBase(ytext, base, (kind, length, client, clock) => {
    if (kind === 'added') {
      concurrent = true
      if (basePosition === eventAt) advance()
      afterInsertion = false
      currentPosition += length
      return
    }
    if (kind === 'removed') concurrent = true
    let done = 0
    while (done < length) {
      if (basePosition === eventAt) advance()
      const step = Math.min(length - done, eventAt - basePosition)
      consume(kind, step, client, clock + done)
      done += step
    }
  })
  advance()
  if (basePosition !== base.text.length || phantomIndex !== phantoms.length) {
    throw new BaseMismatchError(
      `the text holds ${walked} characters of the base (besides ${phantoms.reduce((sum, p) => sum + p.length, 0)} known to be gone), but the base text has ${base.text.length}: the base was not captured from this text`,
    )
  }
  return { hunks, concurrent, dropped: dropped.ids(), phantoms: writtenPhantoms }
}

/** `rebaseWrite`'s hunks alone. */
export function rebaseHunks(ytext: Y.Text, base: DocumentBase, baseHunks: readonly Hunk[]): Hunk[] {
  return rebaseWrite(ytext, base, baseHunks).hunks
}

/** Where the document's own client's clock stood before a write: the write's characters are the ids from here on. */
export interface WriteMark {
  readonly client: number
  readonly clock: number
}

/** Take right before applying a write's hunks (see baseAfterWrite). */
export function markBeforeWrite(ydoc: Y.Doc): WriteMark {
  return { client: ydoc.clientID, clock: Y.getState(ydoc.store, ydoc.clientID) }
}

/**
 * The base after a write from `base`: the writer's own text `written` (the text its hunks were computed to
 * produce), made of the base characters the write did not delete and the characters it inserted (the ids from
 * `mark` to the client's clock now). Call right after applying `rebased.hunks`, before anything else changes the
 * document locally.
 *
 * When the text had not changed since the base (`rebased.concurrent` false), the document now holds exactly
 * `written`, and the result is a fresh snapshot (captureBase), so `baseIsCurrent` works again and the base does not
 * grow. Otherwise it is the old base plus the write: O(ranges) to build, growing with each write made without a
 * read in between. Base characters others had deleted before the write, kept in `written`, right after one of the
 * write's insertions, become phantoms: Yjs placed the insertion after them among the items.
 */
export function baseAfterWrite(
  ydoc: Y.Doc,
  base: DocumentBase,
  rebased: RebasedWrite,
  mark: WriteMark,
  written: string,
  snapshotNow: () => Y.Snapshot = () => Y.snapshot(ydoc),
): DocumentBase {
  if (!rebased.concurrent) return captureBase(ydoc, written, snapshotNow())
  const inserted = new IdRangeCollector()
  inserted.add(mark.client, mark.clock, Y.getState(ydoc.store, mark.client) - mark.clock)
  return {
    text: written,
    snapshot: null,
    stateVector: base.stateVector,
    deleted: uniteIds(base.deleted, rebased.dropped),
    added: uniteIds(base.added, inserted.ids()),
    phantoms: rebased.phantoms,
  }
}
