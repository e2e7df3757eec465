import * as Y from 'yjs'
import type { ClockRange, IdRanges } from './idRanges.js'

/**
 * How a stretch of a Y.Text relates to the text as it was in a base (what a reader last saw):
 * - `kept`: in the base text and still in the text now;
 * - `removed`: in the base text, deleted since (its characters may be gone after garbage collection; only the
 *   length is known);
 * - `added`: in the text now, not in the base (inserted since, by anyone).
 * Stretches in neither (deleted before the base, or never text) are skipped.
 */
export type AlignmentKind = 'kept' | 'removed' | 'added'

/**
 * Called for each stretch, in document order: `length` UTF-16 code units, whose Yjs ids are `client` and the clocks
 * from `clock` on. Stretches are reported per item: two in a row can have the same kind.
 */
export type AlignmentVisitor = (kind: AlignmentKind, length: number, client: number, clock: number) => void

/**
 * Which characters a base holds: those older than `stateVector` (clock below the client's entry) or in `added`,
 * and not in `deleted`. A read's base is a Yjs snapshot (`added` empty); a base after a write from it adds the
 * write's characters and deletes the ones the write deleted.
 */
export interface BaseView {
  readonly stateVector: ReadonlyMap<number, number>
  readonly deleted: IdRanges
  readonly added: IdRanges
}

type Ranges = readonly ClockRange[]

const NO_RANGES: Ranges = []

/** First range that ends after `clock`. */
function firstRangeEndingAfter(ranges: Ranges, clock: number): number {
  let low = 0
  let high = ranges.length
  while (low < high) {
    const middle = (low + high) >>> 1
    const range = ranges[middle]!
    if (range.clock + range.len <= clock) low = middle + 1
    else high = middle
  }
  return low
}

/** Splits the clocks [from, to) into stretches inside and outside `ranges`, in clock order. */
function split(ranges: Ranges, from: number, to: number, each: (inside: boolean, from: number, to: number) => void): void {
  if (from >= to) return
  if (ranges.length === 0) {
    each(false, from, to)
    return
  }
  let index = firstRangeEndingAfter(ranges, from)
  let at = from
  while (at < to) {
    const range = ranges[index]
    if (range === undefined || range.clock >= to) {
      each(false, at, to)
      return
    }
    if (range.clock > at) {
      each(false, at, range.clock)
      at = range.clock
    }
    const end = Math.min(range.clock + range.len, to)
    each(true, at, end)
    at = end
    index++
  }
}

/**
 * Walks `ytext` once, item by item, and reports each stretch's relation to the base (see AlignmentKind). Returns
 * the base text's length as the walk counted it.
 *
 * One item can span characters of different base membership (Yjs merges one client's consecutive items, across the
 * base too), so each item's clock range is split against the base, never judged by its first id alone. A character
 * is in the text now iff its item is neither deleted nor uncountable, exactly the characters Y.Text indices count.
 * Deletion is final, so an item not deleted needs no look-up in `deleted`: the cost is O(items), plus a binary search
 * per deleted item (and per item of a client with `added` ranges).
 *
 * A collected deletion (ContentDeleted) is counted as text: the canonical `source` text holds strings only, and
 * after collection a deleted string cannot be told from deleted formatting. (Its `countable` flag cannot be trusted
 * either: one decoded from an update is uncountable, and merging keeps the left item's flag.) A text with formatting
 * or embeds in it may therefore count differently from `toString()`; callers compare the returned length with the
 * base text's.
 */
export function alignWithBase(ytext: Y.Text, base: BaseView, visit: AlignmentVisitor): number {
  let baseLength = 0
  // Neighbouring items are mostly one client's: its entries are looked up once per run of them.
  let client = -1
  let clientBaseClock = 0
  let deleted = NO_RANGES
  let added = NO_RANGES
  for (let item = ytext._start; item !== null; item = item.right) {
    const id = item.id
    if (id.client !== client) {
      client = id.client
      clientBaseClock = base.stateVector.get(client) ?? 0
      deleted = base.deleted.get(client) ?? NO_RANGES
      added = base.added.get(client) ?? NO_RANGES
    }
    const clock = id.clock
    const length = item.length
    const end = clock + length
    const content = item.content
    if (!item.deleted) {
      if (!(content instanceof Y.ContentString)) {
        // Embeds and formatting were never part of the base text (toString omits them).
        if (item.countable) visit('added', length, client, clock)
        continue
      }
      if (end <= clientBaseClock) {
        // The common case, an item older than the base.
        baseLength += length
        visit('kept', length, client, clock)
        continue
      }
      // Deletion is final, so no character of an item that is not deleted was deleted at the base: its older part
      // is kept, its newer part added (unless the base added it), and `deleted` need not be consulted.
      const baseEnd = Math.max(clock, clientBaseClock)
      if (baseEnd > clock) {
        baseLength += baseEnd - clock
        visit('kept', baseEnd - clock, client, clock)
      }
      if (added.length === 0) {
        visit('added', end - baseEnd, client, baseEnd)
        continue
      }
      split(added, baseEnd, end, (inside, from, to) => {
        if (inside) baseLength += to - from
        visit(inside ? 'kept' : 'added', to - from, client, from)
      })
      continue
    }
    if (!(content instanceof Y.ContentString || content instanceof Y.ContentDeleted)) continue
    const baseEnd = Math.max(clock, Math.min(end, clientBaseClock))
    // A deleted item: its characters that were in the base were removed since; the rest were in neither text.
    const removed = (inside: boolean, from: number, to: number) => {
      if (inside) return
      baseLength += to - from
      visit('removed', to - from, client, from)
    }
    split(deleted, clock, baseEnd, removed)
    split(added, baseEnd, end, (inside, from, to) => {
      if (inside) split(deleted, from, to, removed)
    })
  }
  return baseLength
}

export interface AlignmentRun {
  readonly kind: AlignmentKind
  readonly length: number
}

/** The alignment as a list of runs, adjacent runs of one kind merged (for inspection and tests). */
export function alignmentRuns(ytext: Y.Text, base: BaseView): { runs: AlignmentRun[]; baseLength: number } {
  const runs: { kind: AlignmentKind; length: number }[] = []
  const baseLength = alignWithBase(ytext, base, (kind, length) => {
    const last = runs[runs.length - 1]
    if (last?.kind === kind) last.length += length
    else runs.push({ kind, length })
  })
  return { runs, baseLength }
}
