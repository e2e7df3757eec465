/**
 * The collaboration message type that carries the WYSIWYG mirror's side of an assistant's journaled write, beyond
 * y-websocket's own types (sync 0, awareness 1, auth 2, query-awareness 3). The console's WYSIWYG editor applies it
 * under an origin its undo history tracks, so the person undoes the assistant's write in one step of its own
 * (DOC.WRITE.12). Shared by the daemon that sends it and the console that receives it.
 */
export const ASSISTANT_EDIT = 100
