import * as Y from 'yjs'
import { updateYFragment } from 'y-prosemirror'
import { parseMarkdown } from '../markdown/parse.js'
import { captureUpdate } from '../markdown/captureUpdate.js'
import type { Node as PMNode } from 'prosemirror-model'
import { MIRROR_FRAGMENT, readMirrorKept, SOURCE_TEXT, type MirrorRead } from '../markdown/mirror.js'
import { textHunks } from './textDiff.js'
import { changedBlocks, type BlockRegion } from './bridgeBlocks.js'
import { transplant } from './bridgeTransplant.js'

/**
 * The WYSIWYG bridge: keeps the Y.XmlFragment `prosemirror` (what WYSIWYG peers bind through y-prosemirror) and the
 * canonical Y.Text `source` in step. Each function makes its follow-up change in the Y.Doc and returns the Yjs update
 * it produced, which the caller records as an event (so replay applies updates and never re-runs the bridge), or
 * null when nothing needed changing. Neither function calls the other; their transactions carry distinct origins
 * so an observer can tell them apart and not loop.
 *
 * Both parse the source and read the mirror again only where they changed since the last call (`parseMarkdownWithSpans`
 * starts from its last parse, `readMirrorKept` from its last read), then serialize only the blocks that differ
 * (`changedBlocks`): callers run them only while a WYSIWYG editor is attached (`mirrorIsAttached`), and to attach
 * the first one.
 */

/** Origin of the transaction `syncMirrorFromSource` makes. */
export const BRIDGE_TO_MIRROR = 'quire:bridge:to-mirror'
/** Origin of the transaction `syncSourceFromMirror` makes. */
export const BRIDGE_TO_SOURCE = 'quire:bridge:to-source'


/**
 * Whether a WYSIWYG mirror exists: a non-empty fragment (a WYSIWYG document always holds at least one block). Asked
 * without creating the fragment, which an idle document should not carry (see DocumentState). A peer's update into
 * a fragment nobody created yet leaves Yjs's untyped placeholder under the name, whose length counts the same.
 */
export function mirrorIsAttached(ydoc: Y.Doc): boolean {
  const fragment = ydoc.share.get(MIRROR_FRAGMENT)
  return fragment !== undefined && fragment._length > 0
}

/**
 * After `source` changed (an MCP write, a transform, a source-mode keystroke, a reload from disk), or to build the
 * mirror when the first WYSIWYG editor attaches: makes the mirror write what `parse(source)` writes, changing only
 * the top-level blocks whose Markdown differs (`changedBlocks`). Every other block keeps its Yjs element and all it
 * holds (the person's trailing spaces, marks, breaks, empty paragraphs), so a WYSIWYG peer's cursor there stays put.
 * A changed block is updated in place when it keeps its type (y-prosemirror's `updateYFragment` on that element,
 * which changes only the text that differs), else replaced. Nothing happens when the mirror already writes the source.
 */
export function syncMirrorFromSource(ydoc: Y.Doc): Uint8Array | null {
  const fragment = ydoc.getXmlFragment(MIRROR_FRAGMENT)
  const source = ydoc.getText(SOURCE_TEXT).toString()
  const doc = parseMarkdown(source)
  if (fragment.length === 0) {
    return captureUpdate(ydoc, BRIDGE_TO_MIRROR, () => {
      updateYFragment(ydoc, fragment, doc, { mapping: new Map(), isOMark: new Map() })
    })
  }
  const mirror = readMirrorKept(fragment)
  const regions = changedBlocks(mirror.doc, doc)
  if (regions.length === 0) return null
  return captureUpdate(ydoc, BRIDGE_TO_MIRROR, () => replaceBlocks(ydoc, fragment, mirror, doc, regions))
}

/**
 * Carries each region's parsed blocks into the fragment, last region first so the fragment indexes of the earlier
 * ones still hold. Within a region, blocks are paired from its start while their types agree and updated in place;
 * the mirror's remaining blocks are deleted and the parsed ones left over inserted where they were.
 */
function replaceBlocks(ydoc: Y.Doc, fragment: Y.XmlFragment, mirror: MirrorRead, parsed: PMNode, regions: readonly BlockRegion[]): void {
  const meta = { mapping: mirror.mapping, isOMark: new Map() }
  // The fragment index of the mirror's block `i` (its element), or where a block would go before it.
  const indexOf = (i: number) => mirror.indexes[i] ?? (i > 0 && mirror.indexes[i - 1] !== undefined ? mirror.indexes[i - 1]! + 1 : fragment.length)
  for (let r = regions.length - 1; r >= 0; r--) {
    const region = regions[r]!
    const olds: number[] = []
    for (let i = region.mirrorFrom; i < region.mirrorTo; i++) if (mirror.indexes[i] !== undefined) olds.push(mirror.indexes[i]!)
    let at = olds.length > 0 ? olds[0]! : indexOf(region.mirrorFrom)
    let p = region.parsedFrom
    let paired = 0
    for (; paired < olds.length && p < region.parsedTo; paired++, p++) {
      const element = fragment.get(olds[paired]!)
      if (!(element instanceof Y.XmlElement) || element.nodeName !== parsed.child(p).type.name) break
      updateYFragment(ydoc, element, parsed.child(p), meta)
      at = olds[paired]! + 1
    }
    if (paired < olds.length) fragment.delete(olds[paired]!, olds[olds.length - 1]! - olds[paired]! + 1)
    for (; p < region.parsedTo; p++, at++) {
      const element = new Y.XmlElement(parsed.child(p).type.name)
      fragment.insert(at, [element])
      updateYFragment(ydoc, element, parsed.child(p), meta)
    }
  }
  // A WYSIWYG document always holds a block (a mirror of blocks that all write nothing can lose them all here).
  if (fragment.length === 0) updateYFragment(ydoc, fragment, parsed, { mapping: new Map(), isOMark: new Map() })
}

/**
 * After a WYSIWYG peer changed the mirror: changes `source` so it reads as the mirror, as a minimal text diff, and
 * only in the blocks the mirror changed — every other byte of `source` stays, even where it is not written the way
 * the serializer would write it. Guarantee: afterwards `serialize(parse(source)) === serialize(parse(serialize(
 * mirror)))` (equal to `serialize(mirror)` for any mirror the parser could have produced). An unattached (empty)
 * mirror changes nothing.
 */
export function syncSourceFromMirror(ydoc: Y.Doc): Uint8Array | null {
  const fragment = ydoc.getXmlFragment(MIRROR_FRAGMENT)
  if (fragment.length === 0) return null
  const text = ydoc.getText(SOURCE_TEXT)
  const source = text.toString()
  const next = transplant(source, readMirrorKept(fragment).doc)
  if (next === null || next === source) return null
  const hunks = textHunks(source, next)
  if (hunks.length === 0) return null
  return captureUpdate(ydoc, BRIDGE_TO_SOURCE, () => {
    for (let i = hunks.length - 1; i >= 0; i--) {
      const hunk = hunks[i]!
      if (hunk.deleteCount > 0) text.delete(hunk.start, hunk.deleteCount)
      if (hunk.insert.length > 0) text.insert(hunk.start, hunk.insert)
    }
  })
}

