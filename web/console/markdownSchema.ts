/**
 * The ProseMirror schema of the WYSIWYG editor: the core's, so the editor and the server-side bridge read the
 * `prosemirror` mirror the same way (DESIGN §4). The one place the console names it.
 */
export { markdownSchema } from '../../core/markdown/schema.js'
