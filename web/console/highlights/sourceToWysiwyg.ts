import { diffMain, DIFF_DELETE, DIFF_EQUAL, DIFF_INSERT, type Diff } from 'diff-match-patch-es'
import type { Node } from 'prosemirror-model'
import { parseMarkdownWithSpans } from '../../../core/markdown/parse.js'
import { lastStartingAtOrBefore } from '../../../core/markdown/reparse.js'

/** A block's Markdown is aligned with its text at most this long (seconds): a huge block settles for a coarser answer. */
const ALIGN_TIMEOUT_SECONDS = 0.02

interface Piece {
  readonly pos: number
  readonly text: string
}

interface Block {
  readonly from: number
  readonly to: number
  /** Where the block's node starts, and where its content ends, in the WYSIWYG document. */
  readonly pos: number
  readonly end: number
  readonly node: Node
  /** Its text nodes and how its Markdown lines up with their text (worked out when first asked). */
  alignment?: { readonly pieces: readonly Piece[]; readonly diffs: readonly Diff[] }
}

/** Where offsets of the Markdown `source` are in the WYSIWYG view of it. */
export interface SourceToWysiwyg {
  /** The ProseMirror position of source offset `index` (`end`: a range's end, kept in the text it ends). */
  position(index: number, end?: boolean): number
}

/**
 * Maps offsets of the Markdown `source` to positions of `doc`, the WYSIWYG editor's rendering of it: top-level blocks
 * correspond one to one (the bridge keeps the mirror reading as the source), and inside a block the Markdown is
 * aligned with the block's text character by character, so markup (`**`, `# `, a list's `- `) falls between text
 * characters and every text character maps to itself, wherever it sits. An offset in the blank lines between blocks
 * maps to the end of the block before. Null when source and view disagree on the blocks (the editor is mid-sync).
 */
export function sourceToWysiwyg(source: string, doc: Node): SourceToWysiwyg | null {
  const { doc: parsed, spans } = parseMarkdownWithSpans(source)
  if (parsed.childCount !== doc.childCount || doc.childCount === 0) return null
  const blocks: Block[] = []
  let pos = 0
  for (let index = 0; index < doc.childCount; index++) {
    const node = doc.child(index)
    const span = spans[index]!
    blocks.push({ from: span.from, to: span.to, pos, end: pos + node.nodeSize - 1, node })
    pos += node.nodeSize
  }
  return {
    position(index, end = false) {
      const block = blockAt(blocks, index)
      if (index > block.to) return block.end
      if (index < block.from) return block.pos + 1
      return textPosition(source, block, index - block.from, end)
    },
  }
}

/**
 * Where a range of the Markdown `source` is in the WYSIWYG view (ProseMirror positions in `doc`); null when source
 * and view disagree on the blocks.
 */
export function wysiwygRangeOf(source: string, doc: Node, from: number, to: number): { from: number; to: number } | null {
  const map = sourceToWysiwyg(source, doc)
  if (!map) return null
  const start = map.position(from)
  return { from: start, to: Math.max(start, map.position(to, true)) }
}

/** The last block starting at or before `index` (the first block when none does). */
function blockAt(blocks: readonly Block[], index: number): Block {
  return blocks[lastStartingAtOrBefore(blocks, index)]!
}

/** The position of offset `offset` of the block's Markdown: the text character it is, or the one after the markup it is in. */
function textPosition(source: string, block: Block, offset: number, end: boolean): number {
  const { pieces, diffs } = (block.alignment ??= align(source.slice(block.from, block.to), block))
  let inSource = 0
  let inText = 0
  let textOffset: number | undefined
  for (const [operation, text] of diffs) {
    if (operation === DIFF_INSERT) {
      inText += text.length
      continue
    }
    if (offset < inSource + text.length) {
      textOffset = operation === DIFF_EQUAL ? inText + (offset - inSource) : inText
      break
    }
    inSource += text.length
    if (operation === DIFF_EQUAL) inText += text.length
  }
  if (pieces.length === 0) return block.pos + 1
  return positionOf(pieces, textOffset ?? inText, end)
}

function align(markdown: string, block: Block): { pieces: Piece[]; diffs: Diff[] } {
  const pieces: Piece[] = []
  block.node.descendants((node, pos) => {
    if (node.isText) pieces.push({ pos: block.pos + 1 + pos, text: node.text ?? '' })
  })
  const diffs = diffMain(markdown, pieces.map((piece) => piece.text).join(''), { diffTimeout: ALIGN_TIMEOUT_SECONDS }, false)
  return { pieces, diffs: diffs.filter(([operation]) => operation === DIFF_EQUAL || operation === DIFF_DELETE || operation === DIFF_INSERT) }
}

/** The document position of character `offset` of the block's text (an end offset stays in the piece it ends). */
function positionOf(pieces: readonly Piece[], offset: number, isEnd = false): number {
  let seen = 0
  for (const piece of pieces) {
    const length = piece.text.length
    if (offset < seen + length || (isEnd && offset === seen + length)) return piece.pos + (offset - seen)
    seen += length
  }
  const last = pieces.at(-1)!
  return last.pos + last.text.length
}
