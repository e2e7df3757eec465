import * as encoding from 'lib0/encoding'

/**
 * A message type beyond y-websocket's (sync 0, awareness 1, auth 2, query-awareness 3): the WYSIWYG mirror's side
 * of an assistant's journaled write, `[ASSISTANT_EDIT, varUint8Array(update)]`. Only peers that ask for it
 * (`undo=1`, the console's WYSIWYG editor) receive it, instead of the plain update message: they apply it under their
 * own origin so their undo history holds the assistant's write as one step of its own (DOC.WRITE.12). Every other
 * peer gets a stock `[0, 2, update]` and never sees this type.
 */
export const ASSISTANT_EDIT = 100

export function assistantEditMessage(update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder()
  encoding.writeVarUint(encoder, ASSISTANT_EDIT)
  encoding.writeVarUint8Array(encoder, update)
  return encoding.toUint8Array(encoder)
}
