/**
 * The console's review-comments API (types only: the browser bundle imports them too). Mounted under
 * `/console/api` behind the console's token check; everything recorded through it is the person's (`user`).
 *
 *   GET  /console/api/docs/:docId/comments                      → ConsoleComments
 *   POST /console/api/docs/:docId/comments {from, to, body}     → ConsoleCommentCreated
 *   POST /console/api/docs/:docId/comments/:commentId/replies {body} → ConsoleComments
 *   POST /console/api/docs/:docId/comments/:commentId/resolve   → ConsoleComments
 *   POST /console/api/docs/:docId/comments/:commentId/reopen    → ConsoleComments
 *   POST /console/api/docs/:docId/comments/:commentId/delete    → ConsoleComments
 *
 * `from`/`to` are character offsets (UTF-16 code units) in the document's `source` text: the console comments on a
 * selection of its source editor, whose positions are exactly those. Errors are `{error, message}`: 404 NOT_FOUND or
 * INVALID_COMMENT, 409 STALE_COMMENT (the thread was deleted meanwhile), 400 otherwise.
 */

export type ConsoleCommentState = 'open' | 'addressed' | 'resolved' | 'reopened'

export interface ConsoleCommentReply {
  readonly id: string
  /** `user`, or `mcp:<principal>` for an assistant. */
  readonly author: string
  readonly body: string
  /** ISO 8601. */
  readonly at: string
}

export interface ConsoleCommentThread {
  readonly id: string
  /**
   * Where the thread is anchored: Yjs relative positions in `source` (`Y.encodeRelativePosition`, base64), so the
   * editor can highlight the anchored text in its own copy of the document wherever edits since have moved it.
   */
  readonly anchor: { readonly start: string; readonly end: string } | null
  readonly state: ConsoleCommentState
  readonly commentGen: string
  /** The text the thread is anchored to now (what it was when the anchor is lost). */
  readonly quote: string
  readonly quoteTruncated: boolean
  /** The anchored text was deleted: the quote is what it was. */
  readonly anchorLost: boolean
  readonly body: string
  readonly author: string
  /** ISO 8601. */
  readonly createdAt: string
  /** Oldest first. */
  readonly replies: readonly ConsoleCommentReply[]
}

export interface ConsoleComments {
  readonly docId: string
  /** Oldest thread first; deleted threads are not listed. */
  readonly threads: readonly ConsoleCommentThread[]
}

export interface ConsoleCommentCreated extends ConsoleComments {
  readonly comment: string
}
