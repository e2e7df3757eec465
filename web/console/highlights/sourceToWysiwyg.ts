import type { Node } from 'prosemirror-model'
import { parseMarkdownWithSpans } from '../../../core/markdown/parse.js'

/** Markup a Markdown slice may carry around its words that the WYSIWYG view does not show as text. */
const MARKUP = /^[\s*_`~#>\-+[\]()!|]+|[\s*_`~#>\-+[\]()!|]+$/g

/**
 * Where a range of the Markdown `source` is in the WYSIWYG view (ProseMirror positions in `doc`), the other way
 * round from `sourceRangeOf`: top-level blocks correspond one to one, and inside a block the range's text is looked
 * for in the block's text (nearest to where it sits in the block's source), first as it is, then without the markup
 * around it; not found, the range covers the whole block. Null when source and view disagree on the blocks.
 */
export function wysiwygRangeOf(source: string, doc: Node, from: number, to: number): { from: number; to: number } | null {
  const { doc: parsed, spans } = parseMarkdownWithSpans(source)
  if (parsed.childCount !== doc.childCount || doc.childCount === 0) return null
  let start: number | null = null
  let end: number | null = null
  let blockPos = 0
  for (let index = 0; index < doc.childCount; index++) {
    const block = doc.child(index)
    const span = spans[index]!
    const clippedFrom = Math.max(from, span.from)
    const clippedTo = Math.min(to, span.to)
    if (clippedFrom < clippedTo || (from === to && from >= span.from && from <= span.to)) {
      const placed = placeInBlock(block, blockPos, source.slice(clippedFrom, clippedTo), (clippedFrom - span.from) / Math.max(1, span.to - span.from))
      start ??= placed.from
      end = placed.to
    }
    blockPos += block.nodeSize
  }
  return start === null || end === null ? null : { from: start, to: Math.max(start, end) }
}

function placeInBlock(block: Node, blockPos: number, slice: string, at: number): { from: number; to: number } {
  const pieces: { pos: number; text: string }[] = []
  block.descendants((node, pos) => {
    if (node.isText) pieces.push({ pos: blockPos + 1 + pos, text: node.text ?? '' })
  })
  const text = pieces.map((piece) => piece.text).join('')
  const whole = { from: blockPos + 1, to: blockPos + block.nodeSize - 1 }
  for (const wanted of [slice, slice.replace(MARKUP, '')]) {
    if (wanted === '') continue
    const found = nearest(text, wanted, Math.round(at * text.length))
    if (found >= 0) return { from: positionOf(pieces, found), to: positionOf(pieces, found + wanted.length, true) }
  }
  return whole
}

/** The occurrence of `wanted` in `text` closest to `near`; -1 when there is none. */
function nearest(text: string, wanted: string, near: number): number {
  let best = -1
  for (let found = text.indexOf(wanted); found >= 0; found = text.indexOf(wanted, found + 1)) {
    if (best < 0 || Math.abs(found - near) < Math.abs(best - near)) best = found
  }
  return best
}

/** The document position of character `offset` of the block's text (an end offset stays in the piece it ends). */
function positionOf(pieces: readonly { pos: number; text: string }[], offset: number, isEnd = false): number {
  let seen = 0
  for (const piece of pieces) {
    const length = piece.text.length
    if (offset < seen + length || (isEnd && offset === seen + length)) return piece.pos + (offset - seen)
    seen += length
  }
  const last = pieces.at(-1)
  return last ? last.pos + last.text.length : 0
}
