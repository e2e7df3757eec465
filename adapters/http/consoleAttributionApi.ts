/**
 * The assistants' recent changes to a document, for the editor to highlight (types only: the browser bundle imports
 * them too). Mounted under `/console/api` behind the console's sign-in.
 *
 *   GET /console/api/docs/:docId/ai-changes → AiChanges
 *
 * A change names the Yjs items its assistant's write inserted (`{client, clock, length}`: runs of ids), in `source`
 * and in the WYSIWYG mirror (the bridge's follow-up of that write). The editor finds those items in its own copy of
 * the document, so a highlight covers exactly the characters still there from that write, wherever edits since have
 * moved them; items since deleted are simply not found.
 */

export interface IdRun {
  readonly client: number
  readonly clock: number
  readonly length: number
}

export interface AiChange {
  /** The agent's name (`anonymous` for a connection on the person's token). */
  readonly principal: string
  readonly connection: string
  /** ms since the epoch. */
  readonly at: number
  /** The document's revision once this change landed. */
  readonly revision: string
  readonly inserted: readonly IdRun[]
}

export interface AiChanges {
  readonly docId: string
  /** Unreviewed AI changes, oldest first (the person's "Mark all reviewed" clears them), at most the latest 50. */
  readonly changes: readonly AiChange[]
}
