import * as Y from 'yjs'
import { updateYFragment } from 'y-prosemirror'
import { parseMarkdown } from '../markdown/parse.js'
import { captureUpdate } from '../markdown/captureUpdate.js'
import { MIRROR_FRAGMENT, readMirror, SOURCE_TEXT } from '../markdown/mirror.js'
import { textHunks } from './textDiff.js'
import { children, sameMarkdown, transplant } from './bridgeTransplant.js'

/**
 * The WYSIWYG bridge: keeps the Y.XmlFragment `prosemirror` (what WYSIWYG peers bind through y-prosemirror) and the
 * canonical Y.Text `source` in step. Each function makes its follow-up change in the Y.Doc and returns the Yjs update
 * it produced, which the caller records as an event (so replay applies updates and never re-runs the bridge), or
 * null when nothing needed changing. Neither function calls the other; their transactions carry distinct origins
 * so an observer can tell them apart and not loop.
 *
 * Both are O(document) (a parse and a serialization or two): callers run them only while a WYSIWYG editor is
 * attached (`mirrorIsAttached`), and to attach the first one.
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
 * After `source` changed (an MCP write, a source-mode keystroke, a reload from disk), or to build the mirror when the
 * first WYSIWYG editor attaches: makes the mirror read as `parse(source)`, touching only the blocks that differ
 * (y-prosemirror's `updateYFragment`, so WYSIWYG peers keep their cursors elsewhere). Nothing happens when the
 * mirror already serializes like the source does (compared block by block), so a peer's empty paragraph or trailing space survives unrelated
 * source changes that do not reach it.
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
  const { doc: mirror, mapping } = readMirror(fragment)
  const current = children(mirror)
  const wanted = children(doc)
  if (sameMarkdown(current, wanted)) return null
  // Blocks equal at both ends are handed over as the mirror's own node objects, so updateYFragment recognizes them
  // by identity through the mapping instead of comparing their Yjs content.
  let start = 0
  while (start < current.length && start < wanted.length && current[start]!.eq(wanted[start]!)) wanted[start] = current[start++]!
  for (let c = current.length - 1, w = wanted.length - 1; c >= start && w >= start && current[c]!.eq(wanted[w]!); c--, w--) {
    wanted[w] = current[c]!
  }
  const target = doc.type.create(null, wanted)
  return captureUpdate(ydoc, BRIDGE_TO_MIRROR, () => {
    updateYFragment(ydoc, fragment, target, { mapping, isOMark: new Map() })
  })
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
  const next = transplant(source, readMirror(fragment).doc)
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

