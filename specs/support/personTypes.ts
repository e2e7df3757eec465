import * as Y from 'yjs'
import type { Engine } from '../../core/engine.js'

/**
 * The person types in an editor: `edit` changes a copy of the document's `source`, and what it changed reaches the
 * engine as a collaboration peer's update (actor `peer:<peer>`), as the console's keystrokes do.
 */
export async function personTypes(engine: Engine, docId: string, edit: (text: Y.Text) => void, peer = 'console-1'): Promise<void> {
  const state = (await engine.documents.get(docId))!
  const typist = new Y.Doc()
  Y.applyUpdate(typist, Y.encodeStateAsUpdate(state.ydoc))
  const before = Y.encodeStateVector(typist)
  edit(typist.getText('source'))
  const update = Y.encodeStateAsUpdate(typist, before)
  typist.destroy()
  await (await engine.commands.documents.applyPeerUpdates(docId, [update], { kind: 'peer', peer })).durable
}
