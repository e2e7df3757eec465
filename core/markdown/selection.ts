import * as Y from 'yjs'
import { Fragment, Slice, type Node } from 'prosemirror-model'
import { Transform } from 'prosemirror-transform'
import { relativePositionToAbsolutePosition, updateYFragment } from 'y-prosemirror'
import { markdownSchema } from './schema.js'
import { parseMarkdown } from './parse.js'
import { serializeMarkdown } from './serialize.js'
import { MIRROR_FRAGMENT, readMirror, SOURCE_TEXT } from './mirror.js'
import { captureUpdate } from './captureUpdate.js'

/**
 * The MCP `selection` tool's document side (TOOLS.md §6): a selection as a peer's awareness reports it (Yjs relative
 * positions, anchor and head, as y-prosemirror's cursor plugin or a source-mode editor writes them) turned into a
 * range and its text, and replaced. The WYSIWYG helpers work on the `prosemirror` mirror in ProseMirror positions;
 * the source helpers on the Y.Text `source` in UTF-16 offsets.
 *
 * `replacedChars` is always the length of the `text` the matching `…Selection` function reports for the same
 * selection: in WYSIWYG mode the Markdown serialization of the selected slice, in source mode the raw text.
 */

/** `Y.relativePositionToJSON` output. */
export type RelativePositionJSON = Record<string, unknown>

export interface SelectionRange {
  readonly from: number
  readonly to: number
  readonly text: string
}

export interface SelectionReplacement {
  /** The Yjs update the replacement produced (to record as an event), or null when nothing changed. */
  readonly update: Uint8Array | null
  readonly replacedChars: number
}

/** Origin of the transactions the replace functions make. */
export const SELECTION_ORIGIN = 'quire:selection'

/** Thrown when a relative position does not resolve inside the document (deleted, or another type's). */
export class SelectionOutsideDocument extends Error {
  constructor() {
    super('the selection does not resolve inside the document')
    this.name = 'SelectionOutsideDocument'
  }
}

interface WysiwygState {
  readonly fragment: Y.XmlFragment
  readonly doc: Node
  readonly mapping: ReturnType<typeof readMirror>['mapping']
  readonly from: number
  readonly to: number
}

function resolveWysiwyg(ydoc: Y.Doc, anchor: RelativePositionJSON, head: RelativePositionJSON): WysiwygState {
  const fragment = ydoc.getXmlFragment(MIRROR_FRAGMENT)
  const { doc, mapping } = readMirror(fragment)
  const resolve = (json: RelativePositionJSON): number => {
    const position = relativePositionToAbsolutePosition(ydoc, fragment, Y.createRelativePositionFromJSON(json), mapping)
    if (position === null) throw new SelectionOutsideDocument()
    return Math.max(0, Math.min(doc.content.size, position))
  }
  const a = resolve(anchor)
  const h = resolve(head)
  return { fragment, doc, mapping, from: Math.min(a, h), to: Math.max(a, h) }
}

/**
 * SEL.GET.2–4 in WYSIWYG mode: the selection's ProseMirror positions (`from <= to`) and the Markdown of the selected
 * slice (`""` when collapsed). A selection inside one paragraph reads as its inline Markdown (`**b**`, no block
 * wrapping); a selection across blocks as those blocks, cut where the selection cuts them.
 */
export function wysiwygSelection(ydoc: Y.Doc, anchor: RelativePositionJSON, head: RelativePositionJSON): SelectionRange {
  const { doc, from, to } = resolveWysiwyg(ydoc, anchor, head)
  return { from, to, text: sliceMarkdown(doc, from, to) }
}

/** The Markdown of `doc` between two positions, without a final line break. */
export function sliceMarkdown(doc: Node, from: number, to: number): string {
  if (from >= to) return ''
  const $from = doc.resolve(from)
  const depth = $from.sharedDepth(to)
  const ancestor = $from.node(depth)
  const start = $from.start(depth)
  const content = ancestor.slice(from - start, to - start).content
  let wrapped: Node
  if (ancestor.isTextblock) {
    wrapped = markdownSchema.topNodeType.create(null, markdownSchema.nodes['paragraph']!.create(null, content))
  } else if (ancestor.type.name === 'bullet_list' || ancestor.type.name === 'ordered_list') {
    wrapped = markdownSchema.topNodeType.create(null, ancestor.type.create(ancestor.attrs, content))
  } else {
    wrapped = markdownSchema.topNodeType.create(null, content)
  }
  return serializeMarkdown(wrapped).replace(/\n$/, '')
}

/**
 * SEL.SET.2/.3/.5/.6 in WYSIWYG mode: replaces the selection in the mirror. Plain inline text (Markdown that reads
 * back as itself, unformatted) goes in as one literal text node, leading and trailing whitespace included, with the
 * marks at the cursor; content with Markdown markup is parsed and inserted as nodes (inline content into the
 * paragraph, blocks splitting it); empty content deletes; a collapsed selection inserts. Only the mirror changes:
 * the caller then runs `syncSourceFromMirror`.
 */
export function replaceWysiwygSelection(
  ydoc: Y.Doc,
  anchor: RelativePositionJSON,
  head: RelativePositionJSON,
  content: string,
): SelectionReplacement {
  const state = resolveWysiwyg(ydoc, anchor, head)
  const { doc, from, to } = state
  const replacedChars = sliceMarkdown(doc, from, to).length
  const transform = new Transform(doc)
  if (content.length === 0) {
    transform.delete(from, to)
  } else if (isPlainText(content)) {
    transform.replaceWith(from, to, markdownSchema.text(content, doc.resolve(from).marks()))
  } else {
    const parsed = parseMarkdown(content)
    const single = parsed.childCount === 1 ? parsed.child(0) : null
    const slice = single?.type.name === 'paragraph' ? new Slice(single.content, 0, 0) : new Slice(Fragment.from(parsed.content), 0, 0)
    transform.replace(from, to, slice)
  }
  if (!transform.docChanged) return { update: null, replacedChars }
  const next = transform.doc
  const update = captureUpdate(ydoc, SELECTION_ORIGIN, () => {
    updateYFragment(ydoc, state.fragment, next, { mapping: state.mapping, isOMark: new Map() })
  })
  return { update, replacedChars }
}

/** Text that Markdown reads back as exactly itself, unformatted (whitespace at its ends aside). */
function isPlainText(content: string): boolean {
  if (content.includes('\n')) return false
  const trimmed = content.trim()
  if (trimmed.length === 0) return true
  const doc = parseMarkdown(trimmed)
  const paragraph = doc.childCount === 1 ? doc.child(0) : null
  if (paragraph?.type.name !== 'paragraph' || paragraph.childCount !== 1) return false
  const text = paragraph.child(0)
  return text.isText && text.marks.length === 0 && text.text === trimmed
}

function resolveSource(ydoc: Y.Doc, anchor: RelativePositionJSON, head: RelativePositionJSON): { text: Y.Text; from: number; to: number } {
  const text = ydoc.getText(SOURCE_TEXT)
  const resolve = (json: RelativePositionJSON): number => {
    const position = Y.createAbsolutePositionFromRelativePosition(Y.createRelativePositionFromJSON(json), ydoc)
    if (position === null || position.type !== text) throw new SelectionOutsideDocument()
    return Math.max(0, Math.min(text.length, position.index))
  }
  const a = resolve(anchor)
  const h = resolve(head)
  return { text, from: Math.min(a, h), to: Math.max(a, h) }
}

/** SEL.GET in source mode: character offsets (UTF-16, as Y.Text counts) and the raw selected text. */
export function sourceSelection(ydoc: Y.Doc, anchor: RelativePositionJSON, head: RelativePositionJSON): SelectionRange {
  const { text, from, to } = resolveSource(ydoc, anchor, head)
  return { from, to, text: text.toString().slice(from, to) }
}

/** SEL.SET.4–6 in source mode: splices `content` in as raw text. */
export function replaceSourceSelection(
  ydoc: Y.Doc,
  anchor: RelativePositionJSON,
  head: RelativePositionJSON,
  content: string,
): SelectionReplacement {
  const { text, from, to } = resolveSource(ydoc, anchor, head)
  const replacedChars = to - from
  if (replacedChars === 0 && content.length === 0) return { update: null, replacedChars }
  if (text.toString().slice(from, to) === content) return { update: null, replacedChars }
  const update = captureUpdate(ydoc, SELECTION_ORIGIN, () => {
    if (to > from) text.delete(from, to - from)
    if (content.length > 0) text.insert(from, content)
  })
  return { update, replacedChars }
}

