/** A clock range of one client: the ids `clock` to `clock + len - 1`. */
export interface ClockRange {
  readonly clock: number
  readonly len: number
}

/** Per client, sorted disjoint clock ranges: a set of Yjs ids (the shape of a Yjs delete set's entries). */
export type IdRanges = ReadonlyMap<number, readonly ClockRange[]>

export const NO_IDS: IdRanges = new Map()

/** Sorts and merges each client's ranges. */
function normalise(clients: ReadonlyMap<number, readonly ClockRange[]>): IdRanges {
  const result = new Map<number, ClockRange[]>()
  for (const [client, ranges] of clients) {
    const sorted = [...ranges].sort((a, b) => a.clock - b.clock)
    const merged: { clock: number; len: number }[] = []
    for (const range of sorted) {
      const last = merged[merged.length - 1]
      if (last && last.clock + last.len >= range.clock) last.len = Math.max(last.len, range.clock + range.len - last.clock)
      else merged.push({ clock: range.clock, len: range.len })
    }
    if (merged.length > 0) result.set(client, merged)
  }
  return result
}

/** Collects ids, in any order. */
export class IdRangeCollector {
  private readonly clients = new Map<number, { clock: number; len: number }[]>()

  add(client: number, clock: number, len: number): void {
    if (len <= 0) return
    let ranges = this.clients.get(client)
    if (!ranges) this.clients.set(client, (ranges = []))
    const last = ranges[ranges.length - 1]
    if (last && last.clock + last.len === clock) last.len += len
    else ranges.push({ clock, len })
  }

  ids(): IdRanges {
    return normalise(this.clients)
  }
}

export function uniteIds(a: IdRanges, b: IdRanges): IdRanges {
  if (b.size === 0) return a
  if (a.size === 0) return b
  const all = new Map<number, ClockRange[]>()
  for (const source of [a, b]) {
    for (const [client, ranges] of source) all.set(client, [...(all.get(client) ?? []), ...ranges])
  }
  return normalise(all)
}
