import * as encoding from 'lib0/encoding'

import { ASSISTANT_EDIT } from '../../core/documents/assistantEdit.js'

/**
 * The message `[ASSISTANT_EDIT, varUint8Array(update)]`: the WYSIWYG mirror's side of an assistant's journaled write.
 * Only peers that ask for it (`undo=1`, the console's WYSIWYG editor) receive it, instead of the plain update message;
 * every other peer gets a stock `[0, 2, update]` and never sees this type.
 */
export function assistantEditMessage(update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder()
  encoding.writeVarUint(encoder, ASSISTANT_EDIT)
  encoding.writeVarUint8Array(encoder, update)
  return encoding.toUint8Array(encoder)
}
