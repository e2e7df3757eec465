import * as Y from 'yjs'

/** A run of Yjs item ids: one client's consecutive clocks. */
export interface IdRun {
  readonly client: number
  readonly clock: number
  readonly length: number
}

export interface IndexRange {
  readonly from: number
  readonly to: number
}

/** Runs grouped by client, for the walk's lookups. */
function byClient(runs: readonly IdRun[]): Map<number, IdRun[]> {
  const grouped = new Map<number, IdRun[]>()
  for (const run of runs) grouped.set(run.client, [...(grouped.get(run.client) ?? []), run])
  return grouped
}

/**
 * The index ranges, in `type`'s own text (a Y.Text or Y.XmlText), of the characters still there whose ids fall in
 * `runs`. Walks the type's items in order: an item's characters have consecutive clocks from its id, so the part of
 * a run an item holds is plain arithmetic, however the item was split since.
 */
export function rangesInText(type: Y.Text | Y.XmlText, runs: readonly IdRun[]): IndexRange[] {
  const grouped = byClient(runs)
  const ranges: IndexRange[] = []
  let index = 0
  // `_start` is the first item of the type's list (Yjs's own field; no public iterator yields deleted-aware items).
  for (let item = (type as unknown as { _start: Y.Item | null })._start; item !== null; item = item.right as Y.Item | null) {
    if (item.deleted || !item.countable) continue
    for (const run of grouped.get(item.id.client) ?? []) {
      const start = Math.max(run.clock, item.id.clock)
      const end = Math.min(run.clock + run.length, item.id.clock + item.length)
      if (start < end) ranges.push({ from: index + start - item.id.clock, to: index + end - item.id.clock })
    }
    index += item.length
  }
  return merge(ranges)
}

/** Sorted, with touching or overlapping ranges joined. */
export function merge(ranges: readonly IndexRange[]): IndexRange[] {
  const sorted = [...ranges].sort((a, b) => a.from - b.from)
  const merged: IndexRange[] = []
  for (const range of sorted) {
    const last = merged.at(-1)
    if (last && range.from <= last.to) merged[merged.length - 1] = { from: last.from, to: Math.max(last.to, range.to) }
    else merged.push(range)
  }
  return merged
}
