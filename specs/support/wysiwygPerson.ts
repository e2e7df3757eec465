import type { Node } from 'prosemirror-model'
import { Transform } from 'prosemirror-transform'
import { updateYFragment } from 'y-prosemirror'
import * as Y from 'yjs'
import type { Engine } from '../../core/engine.js'
import type { Actor } from '../../core/events/actor.js'
import { MIRROR_FRAGMENT, readMirror, SOURCE_TEXT } from '../../core/markdown/mirror.js'

/**
 * A person in the console's WYSIWYG editor, without a browser: a Y.Doc replica of the document whose ProseMirror
 * changes reach the mirror fragment the way y-prosemirror's binding makes them (`updateYFragment` from the document
 * as last rendered, with its Y↔ProseMirror mapping), each sent to the engine as a peer update.
 */
export interface WysiwygPerson {
  readonly ydoc: Y.Doc
  readonly fragment: Y.XmlFragment
  /** What the editor shows. */
  doc(): Node
  /** Makes a ProseMirror change (a keystroke, a mark, a break) and sends its update to the engine. */
  edit(change: (tr: Transform) => void): Promise<void>
  /** Takes in what the engine has that this replica lacks (the editor's provider would push it). */
  pull(): Promise<void>
}

export const PERSON_PEER: Actor = Object.freeze({ kind: 'peer', peer: 'person' })

/** The engine's Y.Doc state, or the part of it `replica` lacks, read in the document's step. */
export function engineUpdate(engine: Engine, docId: string, replica?: Y.Doc): Promise<Uint8Array> {
  return engine.commands.documents.read(docId, (state) => {
    if (!state) throw new Error(`no document ${docId}`)
    return replica ? Y.encodeStateAsUpdate(state.ydoc, Y.encodeStateVector(replica)) : Y.encodeStateAsUpdate(state.ydoc)
  })
}

/** The engine's `source` text and mirror fragment, in the document's step. */
export function engineMirror(engine: Engine, docId: string): Promise<{ source: string; fragment: Y.XmlFragment }> {
  return engine.commands.documents.read(docId, (state) => {
    if (!state) throw new Error(`no document ${docId}`)
    return { source: state.ydoc.getText(SOURCE_TEXT).toString(), fragment: state.ydoc.getXmlFragment(MIRROR_FRAGMENT) }
  })
}

/** A person on `docId`, whose mirror the engine has already built (`attachMirror`). */
export async function wysiwygPerson(engine: Engine, docId: string, actor: Actor = PERSON_PEER): Promise<WysiwygPerson> {
  const ydoc = new Y.Doc()
  Y.applyUpdate(ydoc, await engineUpdate(engine, docId))
  const fragment = ydoc.getXmlFragment(MIRROR_FRAGMENT)
  const pull = async () => {
    Y.applyUpdate(ydoc, await engineUpdate(engine, docId, ydoc))
  }
  return {
    ydoc,
    fragment,
    doc: () => readMirror(fragment).doc,
    async edit(change) {
      const { doc, mapping } = readMirror(fragment)
      const tr = new Transform(doc)
      change(tr)
      if (!tr.docChanged) return
      const vector = Y.encodeStateVector(ydoc)
      ydoc.transact(() => updateYFragment(ydoc, fragment, tr.doc, { mapping, isOMark: new Map() }))
      const update = Y.encodeStateAsUpdate(ydoc, vector)
      await (await engine.commands.documents.applyPeerUpdates(docId, [update], actor)).durable
      await pull()
    },
    pull,
  }
}

/** Every paragraph and heading of `doc` with the position where its content starts, in document order. */
export function textblocks(doc: Node): { node: Node; start: number }[] {
  const found: { node: Node; start: number }[] = []
  doc.descendants((node, pos) => {
    if (node.type.name === 'paragraph' || node.type.name === 'heading') {
      found.push({ node, start: pos + 1 })
      return false
    }
    return true
  })
  return found
}
