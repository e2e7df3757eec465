import * as Y from 'yjs'

/**
 * How a stretch of a Y.Text relates to the text as it was at an earlier snapshot (the base):
 * - `kept`: in the base text and still in the text now;
 * - `removed`: in the base text, deleted since (its characters may be gone after garbage collection; only the
 *   length is known);
 * - `added`: in the text now, not in the base (inserted since, by anyone).
 * Stretches in neither (deleted before the base, or never text) are skipped.
 */
export type AlignmentKind = 'kept' | 'removed' | 'added'

/** Called for each stretch, in document order; `length` in UTF-16 code units. */
export type AlignmentVisitor = (kind: AlignmentKind, length: number) => void

const NO_RANGES: readonly { clock: number; len: number }[] = []

/** First delete-set range of a client that ends after `clock` (ranges are sorted and disjoint). */
function firstRangeEndingAfter(ranges: readonly { clock: number; len: number }[], clock: number): number {
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

/**
 * Walks `ytext` once, item by item, and reports each stretch's relation to the base
 * `snapshot` (see AlignmentKind). Returns the base text's length as the walk counted it.
 *
 * A character (client, clock) was in the base text iff its item holds text (a string, or a string deleted and
 * garbage-collected since), clock < the base state vector's clock for its client, and the base delete set does not
 * contain it. One item can span characters of different base visibility (Yjs merges one client's consecutive
 * items), so each item's clock range is split against the state vector and the delete set, never tested by its
 * first id alone. A character is in the text now iff its item is neither deleted nor uncountable, exactly the
 * characters Y.Text indices count. Deletion is final, so only deleted items need the delete set: the cost is
 * O(items + deleted items · log(the client's deleted ranges)).
 *
 * A collected deletion (ContentDeleted) is counted as text: the canonical `source` text holds strings only, and
 * after collection a deleted string cannot be told from deleted formatting. A text with formatting or embeds in it
 * may therefore count differently from `toString()`; callers compare the returned length with the base text's.
 */
export function alignWithBase(ytext: Y.Text, snapshot: Y.Snapshot, visit: AlignmentVisitor): number {
  const stateVector = snapshot.sv
  const deletions = snapshot.ds.clients
  let baseLength = 0
  let pendingKind: AlignmentKind | undefined
  let pendingLength = 0
  // Adjacent stretches of one kind are reported as one.
  const report = (kind: AlignmentKind, length: number) => {
    if (length === 0) return
    if (kind === pendingKind) {
      pendingLength += length
      return
    }
    if (pendingKind) visit(pendingKind, pendingLength)
    pendingKind = kind
    pendingLength = length
  }
  // Neighbouring items are mostly one client's: its base clock and deletions are looked up once per run of them.
  let client = -1
  let clientBaseClock = 0
  let ranges: readonly { clock: number; len: number }[] = NO_RANGES
  for (let item = ytext._start; item !== null; item = item.right) {
    const content = item.content
    const isText = content instanceof Y.ContentString || content instanceof Y.ContentDeleted
    const isNow = !item.deleted && item.countable
    if (!isText) {
      // Embeds and formatting were never part of the base text (toString omits them).
      if (isNow) report('added', item.length)
      continue
    }
    const clock = item.id.clock
    if (item.id.client !== client) {
      client = item.id.client
      clientBaseClock = stateVector.get(client) ?? 0
      ranges = deletions.get(client) ?? NO_RANGES
    }
    const end = clock + item.length
    const baseEnd = Math.max(clock, Math.min(end, clientBaseClock))
    if (isNow) {
      // Deletion is final, so no character of an item that is not deleted was deleted at the base: its older part
      // is kept, its newer part added, and the delete set need not be consulted.
      baseLength += baseEnd - clock
      report('kept', baseEnd - clock)
      report('added', end - baseEnd)
      continue
    }
    // A deleted item: its characters that were in the base text (older than the base, not yet deleted then) were
    // removed since; the rest were in neither text.
    let index = firstRangeEndingAfter(ranges, clock)
    let at = clock
    while (at < baseEnd) {
      const range = ranges[index]
      if (range === undefined || range.clock >= baseEnd) {
        baseLength += baseEnd - at
        report('removed', baseEnd - at)
        at = baseEnd
      } else if (range.clock > at) {
        baseLength += range.clock - at
        report('removed', range.clock - at)
        at = range.clock
      } else {
        at = Math.min(range.clock + range.len, baseEnd)
        index++
      }
    }
  }
  if (pendingKind) visit(pendingKind, pendingLength)
  return baseLength
}

export interface AlignmentRun {
  readonly kind: AlignmentKind
  readonly length: number
}

/** The alignment as a list of runs, adjacent runs of one kind merged (for inspection and tests). */
export function alignmentRuns(ytext: Y.Text, snapshot: Y.Snapshot): { runs: AlignmentRun[]; baseLength: number } {
  const runs: AlignmentRun[] = []
  const baseLength = alignWithBase(ytext, snapshot, (kind, length) => runs.push({ kind, length }))
  return { runs, baseLength }
}
