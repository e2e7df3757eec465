import type { Node } from 'prosemirror-model'
import { markdownSchema } from './schema.js'
import type { BlockSpan, ParsedMarkdown } from './parse.js'

/** A parse, and whether its text can hold link reference definitions (which reach every block, so no block parses alone). */
export interface ParseEntry {
  readonly text: string
  readonly parsed: ParsedMarkdown
  readonly local: boolean
}

/** Could this text define a link reference (`[label]: …` or a footnote `[^label]:`)? Cheap, and errs towards yes. */
export const mayDefine = (text: string): boolean => text.includes(']:')

/** Below this many characters a whole parse is as cheap as finding what changed. */
export const WHOLE_BELOW = 4096

/**
 * The parse of `text` made from the parse of an earlier text: only the top-level blocks the change between the two
 * touches are parsed again, with one unchanged block on each side, and every other block (its node and its span,
 * shifted) is taken from `previous`. Null when that cannot be shown to equal a whole parse; the caller parses whole.
 *
 * Why the window's edges make it exact: Markdown is read top to bottom, a top-level block's start depends only on
 * the text before it, and its end only on its own lines and the line after a gap. The text before the left edge
 * block and after the right one is unchanged; if the edges parse alone to the same nodes over the same lines as
 * before, the parser starts the window and leaves it in the states it did before, so the blocks between are what a
 * whole parse makes. A construct that would run past an edge (a fence opened and not closed, a list the edit
 * continues) changes that edge's node or span, and the whole text is parsed instead. Link reference definitions reach
 * across blocks, so a text that may hold one is always parsed whole; so is a window holding `$$` (see below).
 */
export function reparse(previous: ParseEntry, text: string, parseWhole: (text: string) => ParsedMarkdown): ParsedMarkdown | null {
  const old = previous.text
  if (!previous.local || text.length < WHOLE_BELOW || old.length < WHOLE_BELOW) return null
  const prefix = commonPrefix(old, text)
  const suffix = commonSuffix(old, text, prefix)
  const oldEnd = old.length - suffix
  const delta = text.length - old.length
  const { doc, spans } = previous.parsed
  const count = spans.length
  // The blocks the change touches: from the last one starting at or before it to the first one ending at or after it.
  let first = lastStartingAtOrBefore(spans, prefix)
  let last = firstEndingAtOrAfter(spans, oldEnd)
  if (last < first) last = first
  first = Math.max(0, first - 1)
  last = Math.min(count - 1, last + 1)
  const leftEdge = first > 0
  const rightEdge = last < count - 1
  if (!leftEdge && !rightEdge) return null
  const from = leftEdge ? spans[first]!.from : 0
  const oldTo = rightEdge ? spans[last]!.to : old.length
  // The edges are unchanged text: the change lies strictly between them.
  if ((leftEdge && spans[first]!.to >= prefix) || (rightEdge && spans[last]!.from < oldEnd)) return null
  const window = text.slice(from, oldTo + delta)
  // A `$$` math block looks for its closing line to the end of the text and is no math block when it finds none:
  // an opening one in the window could close after it, which the edges would not show.
  if (mayDefine(window) || window.includes('$$')) return null
  const part = parseWhole(window)
  const partCount = part.spans.length
  if (leftEdge && !sameBlock(part, 0, doc.child(first), spans[first]!, -from)) return null
  if (rightEdge && !sameBlock(part, partCount - 1, doc.child(last), spans[last]!, -from + delta)) return null
  const nodes: Node[] = []
  const newSpans: BlockSpan[] = []
  for (let i = 0; i < first; i++) {
    nodes.push(doc.child(i))
    newSpans.push(spans[i]!)
  }
  for (let i = 0; i < partCount; i++) {
    const edge = (leftEdge && i === 0) || (rightEdge && i === partCount - 1)
    nodes.push(edge ? doc.child(i === 0 && leftEdge ? first : last) : part.doc.child(i))
    newSpans.push({ from: part.spans[i]!.from + from, to: part.spans[i]!.to + from })
  }
  for (let i = last + 1; i < count; i++) {
    nodes.push(doc.child(i))
    newSpans.push({ from: spans[i]!.from + delta, to: spans[i]!.to + delta })
  }
  return { doc: markdownSchema.topNodeType.create(null, nodes), spans: newSpans }
}

/** Whether block `index` of `part` is `node` over `span` (shifted by `shift` into `part`'s offsets). */
function sameBlock(part: ParsedMarkdown, index: number, node: Node, span: BlockSpan, shift: number): boolean {
  const theirs = part.spans[index]
  if (!theirs || index < 0 || index >= part.doc.childCount) return false
  return theirs.from === span.from + shift && theirs.to === span.to + shift && part.doc.child(index).eq(node)
}

/** The index of the last of `items` (sorted by `from`) starting at or before `offset`; 0 when none does. */
export function lastStartingAtOrBefore(items: readonly { readonly from: number }[], offset: number): number {
  let lo = 0
  let hi = items.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (items[mid]!.from <= offset) lo = mid
    else hi = mid - 1
  }
  return lo
}

function firstEndingAtOrAfter(spans: readonly BlockSpan[], offset: number): number {
  let lo = 0
  let hi = spans.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (spans[mid]!.to >= offset) hi = mid
    else lo = mid + 1
  }
  return lo
}

/** Compared a chunk at a time first: a substring comparison is one native call where a character loop is thousands. */
const CHUNK = 1024

export function commonPrefix(a: string, b: string): number {
  const max = Math.min(a.length, b.length)
  let i = 0
  while (i + CHUNK <= max && a.slice(i, i + CHUNK) === b.slice(i, i + CHUNK)) i += CHUNK
  while (i < max && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}

/** The common suffix, not reaching into the first `prefix` characters of either. */
export function commonSuffix(a: string, b: string, prefix: number): number {
  const max = Math.min(a.length, b.length) - prefix
  let i = 0
  while (i + CHUNK <= max && a.slice(a.length - i - CHUNK, a.length - i) === b.slice(b.length - i - CHUNK, b.length - i)) i += CHUNK
  while (i < max && a.charCodeAt(a.length - 1 - i) === b.charCodeAt(b.length - 1 - i)) i++
  return i
}
