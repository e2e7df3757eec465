import type { Node } from 'prosemirror-model'
import { parseMarkdownWithSpans } from './parse.js'

/**
 * Where a WYSIWYG selection (ProseMirror positions in `doc`, the editor's rendering of `source`) lies in the
 * Markdown `source`: what a comment made in WYSIWYG mode anchors to. Top-level blocks correspond one to one (the
 * bridge keeps the mirror reading as the source), and each block knows its source lines; inside a block the selected
 * text is looked for in that block's Markdown, so a plain selection maps exactly. When markup sits inside the
 * selection (`**` of a bold word) the text is not found verbatim and the range widens to the whole block or blocks,
 * which still holds the selected words. Null when the two disagree on the blocks (the editor is mid-sync).
 */
export function sourceRangeOf(source: string, doc: Node, from: number, to: number): { from: number; to: number } | null {
  const { doc: parsed, spans } = parseMarkdownWithSpans(source)
  if (parsed.childCount !== doc.childCount || doc.childCount === 0) return null
  const start = Math.max(0, Math.min(from, to))
  const end = Math.min(doc.content.size, Math.max(from, to))
  const first = doc.resolve(start).index(0)
  const endIndex = Math.min(doc.resolve(end).index(0), doc.childCount - 1)
  // A selection that ends exactly where a block begins ends in the block before it.
  const last = endIndex > first && end === blockStart(doc, endIndex) ? endIndex - 1 : Math.max(first, endIndex)
  const firstSpan = spans[first]
  const lastSpan = spans[last]
  if (!firstSpan || !lastSpan) return null
  const firstEnd = first === last ? end : blockStart(doc, first) + doc.child(first).nodeSize - 1
  const lastStart = first === last ? start : blockStart(doc, last) + 1
  const head = doc.textBetween(start, Math.max(start, firstEnd), '\n')
  const tail = doc.textBetween(Math.min(lastStart, end), end, '\n')
  const opening = head.length > 0 ? source.indexOf(head, firstSpan.from) : -1
  const rangeFrom = opening >= 0 && opening + head.length <= firstSpan.to ? opening : firstSpan.from
  const closing = tail.length > 0 ? source.lastIndexOf(tail, lastSpan.to - tail.length) : -1
  const rangeTo = closing >= lastSpan.from && closing >= rangeFrom ? closing + tail.length : lastSpan.to
  return { from: rangeFrom, to: Math.max(rangeFrom, rangeTo) }
}

/** The position just before top-level block `index`. */
function blockStart(doc: Node, index: number): number {
  let position = 0
  for (let i = 0; i < index; i++) position += doc.child(i).nodeSize
  return position
}
