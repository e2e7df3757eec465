import type { Node } from 'prosemirror-model'
import { parseMarkdown, parseMarkdownWithSpans, type BlockSpan } from '../markdown/parse.js'
import { serializeBlock, serializeMarkdown } from '../markdown/serialize.js'
import { markdownSchema } from '../markdown/schema.js'
import { rebase } from './bridgeRebase.js'
import { changedBlocks } from './bridgeBlocks.js'

/** Old top-level blocks `[oldFrom, oldTo)` became new blocks `[newFrom, newTo)`. */
interface Region {
  oldFrom: number
  oldTo: number
  newFrom: number
  newTo: number
}

/**
 * The source text that reads as `mirror` while keeping every block the mirror did not change byte for byte, or null
 * when the source already reads as the mirror (`serialize(parse(source)) === serialize(mirror)`).
 *
 * How: the source's top-level blocks (with their line spans) are matched to the mirror's top-level blocks by the
 * Markdown each writes (`changedBlocks`); only unmatched blocks are rewritten, and inside a rewritten block the change is rebased onto the person's spelling
 * (so editing one item of a `*` list does not turn its bullets into `-`). The result is checked by parsing it; when
 * the neighbours interfere (two lists merging, an open HTML block), the rewrite widens block by block, and in the
 * end falls back to the mirror's canonical serialization. The result always satisfies
 * `serialize(parse(result)) === serialize(parse(serialize(mirror)))`, which is `serialize(mirror)` whenever the
 * mirror is itself in canonical form.
 */
export function transplant(source: string, mirror: Node): string | null {
  const parsed = parseMarkdownWithSpans(source)
  // A source that writes nothing (empty, or blank lines) has no spelling to keep: it becomes the mirror's Markdown.
  if (parsed.doc.childCount === 1 && serializeBlock(parsed.doc, 0) === '') {
    const written = serializeMarkdown(mirror)
    return written === '' || written === source ? null : written
  }
  const oldBlocks = children(parsed.doc)
  const newBlocks = children(mirror)
  const regions = changedBlocks(mirror, parsed.doc).map(
    (region): Region => ({ oldFrom: region.parsedFrom, oldTo: region.parsedTo, newFrom: region.mirrorFrom, newTo: region.mirrorTo }),
  )
  if (regions.length === 0) return null
  let goal: string | undefined
  const reads = (candidate: string) => {
    // Fast: the candidate's blocks write what the mirror's do. Slow (and exact): the whole serialization matches.
    if (changedBlocks(mirror, parseMarkdown(candidate)).length === 0) return true
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

function children(doc: Node): Node[] {
  const nodes: Node[] = []
  doc.forEach((child) => nodes.push(child))
  return nodes
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
        // Every block is gone: so is the line break after the last one (the empty document writes nothing).
        out = out.slice(0, from) + out.slice(to).replace(/^\n+/, '')
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
