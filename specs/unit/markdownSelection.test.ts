import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { absolutePositionToRelativePosition } from 'y-prosemirror'
import { syncMirrorFromSource, syncSourceFromMirror } from '../../core/documents/bridge.js'
import { readMirror } from '../../core/markdown/mirror.js'
import {
  replaceSourceSelection,
  replaceWysiwygSelection,
  sourceSelection,
  wysiwygSelection,
  type RelativePositionJSON,
} from '../../core/markdown/selection.js'

const SOURCE = '# Head\n\nHello **bold** world.\n\n- one\n- two\n'

function documentWith(source: string): Y.Doc {
  const doc = new Y.Doc()
  doc.getText('source').insert(0, source)
  syncMirrorFromSource(doc)
  return doc
}

/** A WYSIWYG cursor at a ProseMirror position, as y-prosemirror's cursor plugin publishes it. */
function at(doc: Y.Doc, pos: number): RelativePositionJSON {
  const fragment = doc.getXmlFragment('prosemirror')
  const { mapping } = readMirror(fragment)
  return Y.relativePositionToJSON(absolutePositionToRelativePosition(pos, fragment, mapping)) as RelativePositionJSON
}

const sourceAt = (doc: Y.Doc, index: number) =>
  Y.relativePositionToJSON(Y.createRelativePositionFromTypeIndex(doc.getText('source'), index)) as RelativePositionJSON

const mirrorDoc = (doc: Y.Doc) => readMirror(doc.getXmlFragment('prosemirror')).doc

describe('selection helpers', () => {
  // Positions: heading "Head" 1..5, paragraph opens at 6, "Hello " 7..13, "bold" 13..17, " world." 17..24.
  it('reads a WYSIWYG selection as positions and the Markdown of the slice', () => {
    const doc = documentWith(SOURCE)
    expect(mirrorDoc(doc).textBetween(13, 17)).toBe('bold')
    expect(wysiwygSelection(doc, at(doc, 17), at(doc, 13))).toEqual({ from: 13, to: 17, text: '**bold**' })
    expect(wysiwygSelection(doc, at(doc, 7), at(doc, 15))).toEqual({ from: 7, to: 15, text: 'Hello **bo**' })
    expect(wysiwygSelection(doc, at(doc, 10), at(doc, 10))).toEqual({ from: 10, to: 10, text: '' })
    const across = wysiwygSelection(doc, at(doc, 3), at(doc, 12))
    expect(across.text).toBe('# ad\n\nHello')
  })

  it('replaces plain text literally, keeping its whitespace, and syncs back to source', () => {
    const doc = documentWith(SOURCE)
    const result = replaceWysiwygSelection(doc, at(doc, 13), at(doc, 17), ' big ')
    expect(result.replacedChars).toBe('**bold**'.length)
    expect(result.update).toBeInstanceOf(Uint8Array)
    expect(mirrorDoc(doc).child(1).textContent).toBe('Hello  big  world.')
    syncSourceFromMirror(doc)
    expect(doc.getText('source').toString()).toBe('# Head\n\nHello  big  world.\n\n- one\n- two\n')
  })

  it('parses content with markup into nodes, deletes with empty content, inserts at a collapsed cursor', () => {
    const doc = documentWith(SOURCE)
    replaceWysiwygSelection(doc, at(doc, 7), at(doc, 12), '*Hi*')
    syncSourceFromMirror(doc)
    expect(doc.getText('source').toString()).toBe('# Head\n\n*Hi* **bold** world.\n\n- one\n- two\n')
    const empty = replaceWysiwygSelection(doc, at(doc, 1), at(doc, 5), '')
    expect(empty.replacedChars).toBe(4)
    replaceWysiwygSelection(doc, at(doc, 1), at(doc, 1), 'New')
    syncSourceFromMirror(doc)
    expect(doc.getText('source').toString()).toBe('# New\n\n*Hi* **bold** world.\n\n- one\n- two\n')
    const block = replaceWysiwygSelection(doc, at(doc, 4), at(doc, 4), '```\ncode\n```')
    expect(block.replacedChars).toBe(0)
    syncSourceFromMirror(doc)
    expect(doc.getText('source').toString()).toContain('```\ncode\n```')
  })

  it('reads and splices a source-mode selection as raw text', () => {
    const doc = documentWith(SOURCE)
    expect(sourceSelection(doc, sourceAt(doc, 14), sourceAt(doc, 8))).toEqual({ from: 8, to: 14, text: 'Hello ' })
    const result = replaceSourceSelection(doc, sourceAt(doc, 8), sourceAt(doc, 14), '**raw** ')
    expect(result.replacedChars).toBe(6)
    expect(doc.getText('source').toString()).toBe('# Head\n\n**raw** **bold** world.\n\n- one\n- two\n')
    expect(replaceSourceSelection(doc, sourceAt(doc, 3), sourceAt(doc, 3), '').update).toBeNull()
  })
})
