import * as decoding from 'lib0/decoding'
import type { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import { ASSISTANT_EDIT } from '../../core/documents/assistantEdit.js'

/** The origin under which the mirror side of an assistant's write is applied; the WYSIWYG undo history tracks it. */
export const ASSISTANT_ORIGIN = 'quire:assistant-edit'

/**
 * Receives the mirror side of assistants' writes (the server sends it as its own message type to connections that
 * ask with `undo=1`) and applies it under {@link ASSISTANT_ORIGIN}, between two undo boundaries, so the person can
 * undo an assistant's write into the tab they are looking at as one step (DOC.WRITE.12) without it merging with
 * their own typing.
 */
export function receiveAssistantEdits(provider: WebsocketProvider, ydoc: Y.Doc, undoManager: () => Y.UndoManager | undefined): void {
  provider.messageHandlers[ASSISTANT_EDIT] = (_encoder, decoder) => {
    const update = decoding.readVarUint8Array(decoder)
    undoManager()?.stopCapturing()
    Y.applyUpdate(ydoc, update, ASSISTANT_ORIGIN)
    undoManager()?.stopCapturing()
  }
}
