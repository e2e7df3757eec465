import type { Node } from 'prosemirror-model'
import { parseMarkdown, parseMarkdownWithSpans, type BlockSpan } from '../markdown/parse.js'
import { serializeMarkdown } from '../markdown/serialize.js'
import { markdownSchema } from '../markdown/schema.js'
import { rebase } from './bridgeRebase.js'

/** Old top-level blocks `[oldFrom, oldTo)` became new blocks `[newFrom, newTo)`. */
interface Region {
  oldFrom: number
  oldTo: number
  newFrom: number
  newTo: number
}

/** Past this many block pairs, the middle of a change is one region rather than a block-level diff. */
const LCS_LIMIT = 40_000

/**
 * The source text that reads as `mirror` while keeping every block the mirror did not change byte for byte, or null
 * when the source already reads as the mirror (`serialize(parse(source)) === serialize(mirror)`).
 *
 * How: the source's top-level blocks (with their line spans) are matched to the mirror's top-level blocks; only
 * unmatched blocks are rewritten, and inside a rewritten block the change is rebased onto the person's spelling
 * (so editing one item of a `*` list does not turn its bullets into `-`). The result is checked by parsing it; when
 * the neighbours interfere (two lists merging, an open HTML block), the rewrite widens block by block, and in the
 * end falls back to the mirror's canonical serialization. The result always satisfies
 * `serialize(parse(result)) === serialize(parse(serialize(mirror)))`, which is `serialize(mirror)` whenever the
 * mirror is itself in canonical form.
 */
export function transplant(source: string, mirror: Node): string | null {
  const parsed = parseMarkdownWithSpans(source)
  const oldBlocks = children(parsed.doc)
  const newBlocks = children(mirror)
  const regions = blockRegions(oldBlocks, newBlocks)
  if (regions.every((region) => serializeBlocks(oldBlocks.slice(region.oldFrom, region.oldTo)) === serializeBlocks(newBlocks.slice(region.newFrom, region.newTo)))) {
    return null
  }
  let goal: string | undefined
  const reads = (candidate: string) => {
    // Fast: the candidate's blocks match the mirror's. Slow (and exact): the whole serialization matches.
    if (sameMarkdown(children(parseMarkdown(candidate)), newBlocks)) return true
    goal ??= serializeMarkdown(parseMarkdown(serializeMarkdown(mirror)))
    return serializeMarkdown(parseMarkdown(candidate)) === goal
  }
  for (const widen of [0, 1, 2]) {
    const widened = widen === 0 ? regions : [widenAll(regions, widen, oldBlocks.length, newBlocks.length)]
    for (const keepSpelling of [true, false]) {
      const candidate = applyRegions(source, parsed.spans, oldBlocks, newBlocks, widened, keepSpelling)
      if (reads(candidate)) return candidate
    }
  }
  return serializeMarkdown(mirror)
}

/**
 * Whether two block lists write the same Markdown, cheaply: equal blocks at both ends are skipped, and only the
 * differing middle is serialized.
 */
export function sameMarkdown(a: readonly Node[], b: readonly Node[]): boolean {
  let start = 0
  while (start < a.length && start < b.length && a[start]!.eq(b[start]!)) start++
  let aEnd = a.length
  let bEnd = b.length
  while (aEnd > start && bEnd > start && a[aEnd - 1]!.eq(b[bEnd - 1]!)) {
    aEnd--
    bEnd--
  }
  if (start === aEnd && start === bEnd) return true
  return serializeBlocks(a.slice(start, aEnd)) === serializeBlocks(b.slice(start, bEnd))
}

export function children(doc: Node): Node[] {
  const nodes: Node[] = []
  doc.forEach((child) => nodes.push(child))
  return nodes
}

/** The changed stretches between two block lists: equal ends trimmed, the middle matched by longest common run. */
function blockRegions(oldBlocks: readonly Node[], newBlocks: readonly Node[]): Region[] {
  let start = 0
  while (start < oldBlocks.length && start < newBlocks.length && oldBlocks[start]!.eq(newBlocks[start]!)) start++
  let oldEnd = oldBlocks.length
  let newEnd = newBlocks.length
  while (oldEnd > start && newEnd > start && oldBlocks[oldEnd - 1]!.eq(newBlocks[newEnd - 1]!)) {
    oldEnd--
    newEnd--
  }
  if (start === oldEnd && start === newEnd) return []
  const n = oldEnd - start
  const m = newEnd - start
  if (n === 0 || m === 0 || n * m > LCS_LIMIT) return [{ oldFrom: start, oldTo: oldEnd, newFrom: start, newTo: newEnd }]
  // Longest common subsequence over the middle, then the gaps between matched pairs are the regions.
  const table = new Int32Array((n + 1) * (m + 1))
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * (m + 1) + j] = oldBlocks[start + i]!.eq(newBlocks[start + j]!)
        ? table[(i + 1) * (m + 1) + j + 1]! + 1
        : Math.max(table[(i + 1) * (m + 1) + j]!, table[i * (m + 1) + j + 1]!)
    }
  }
  const regions: Region[] = []
  let i = 0
  let j = 0
  let open: Region | undefined
  const flush = () => {
    if (open && (open.oldFrom < open.oldTo || open.newFrom < open.newTo)) regions.push(open)
    open = undefined
  }
  while (i < n || j < m) {
    if (i < n && j < m && oldBlocks[start + i]!.eq(newBlocks[start + j]!)) {
      flush()
      i++
      j++
      continue
    }
    open ??= { oldFrom: start + i, oldTo: start + i, newFrom: start + j, newTo: start + j }
    if (j < m && (i === n || table[i * (m + 1) + j + 1]! >= table[(i + 1) * (m + 1) + j]!)) {
      j++
      open.newTo = start + j
    } else {
      i++
      open.oldTo = start + i
    }
  }
  flush()
  return regions
}

/** One region spanning all of them, grown by `by` blocks on each side. */
function widenAll(regions: readonly Region[], by: number, oldCount: number, newCount: number): Region {
  const first = regions[0]!
  const last = regions[regions.length - 1]!
  const grow = Math.min(by, first.oldFrom, first.newFrom)
  const growEnd = Math.min(by, oldCount - last.oldTo, newCount - last.newTo)
  return {
    oldFrom: first.oldFrom - grow,
    newFrom: first.newFrom - grow,
    oldTo: last.oldTo + growEnd,
    newTo: last.newTo + growEnd,
  }
}

/** The Markdown of some blocks on their own, without the final line break. */
function serializeBlocks(blocks: readonly Node[]): string {
  if (blocks.length === 0) return ''
  return serializeMarkdown(markdownSchema.topNodeType.create(null, blocks)).replace(/\n$/, '')
}

function applyRegions(
  source: string,
  spans: readonly BlockSpan[],
  oldBlocks: readonly Node[],
  newBlocks: readonly Node[],
  regions: readonly Region[],
  keepSpelling: boolean,
): string {
  let out = source
  for (let r = regions.length - 1; r >= 0; r--) {
    const region = regions[r]!
    const text = serializeBlocks(newBlocks.slice(region.newFrom, region.newTo))
    if (region.oldFrom < region.oldTo) {
      const from = spans[region.oldFrom]!.from
      const to = spans[region.oldTo - 1]!.to
      if (text.length > 0) {
        const replacement = keepSpelling ? rebase(out.slice(from, to), serializeBlocks(oldBlocks.slice(region.oldFrom, region.oldTo)), text) : text
        out = out.slice(0, from) + replacement + out.slice(to)
      } else if (region.oldTo < spans.length) {
        out = out.slice(0, from) + out.slice(spans[region.oldTo]!.from)
      } else if (region.oldFrom > 0) {
        out = out.slice(0, spans[region.oldFrom - 1]!.to) + out.slice(to)
      } else {
        out = out.slice(0, from) + out.slice(to)
      }
    } else if (text.length > 0) {
      if (region.oldFrom > 0) {
        const at = spans[region.oldFrom - 1]!.to
        out = out.slice(0, at) + '\n\n' + text + out.slice(at)
      } else {
        const at = spans[0]?.from ?? 0
        out = out.slice(0, at) + text + '\n\n' + out.slice(at)
      }
    }
  }
  return out
}
