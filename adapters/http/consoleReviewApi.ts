/**
 * The console's review of AI changes (DESIGN §11; types only: the browser bundle imports them too). Mounted under
 * `/console/api` behind the console's sign-in; everything done through it is the person's (`user`).
 *
 *   GET  /console/api/docs/:docId/changes[?all=1]                          → DocumentChanges (pending only unless all)
 *   POST /console/api/docs/:docId/changes/keep     {change, hunks?}        → ReviewActed
 *   POST /console/api/docs/:docId/changes/undo     {change, hunks?}        → ReviewActed
 *   POST /console/api/docs/:docId/changes/redo     {change, hunks?}        → ReviewActed
 *   POST /console/api/docs/:docId/changes/keep-all {upToRevision}          → ReviewActed   ("Keep all")
 *   POST /console/api/docs/:docId/changes/undo-by  {agent, connection?, since?} → ReviewActed ("Undo all by …")
 *   GET  /console/api/review                                               → ReviewList (every open document)
 *
 * `change` is a change's id (`ch-…`), `hunks` indexes of its hunks (all when absent). Errors are `{error, message}`:
 * 404 NOT_FOUND (no such document or change), 400 otherwise (not a change id, a hunk it does not have, nothing
 * left to do, a body of the wrong shape).
 */

import type { ChangeView, HunkView } from '../../core/review/views.js'

/** One place a change changed the text, with what it changed in words ("replaced 'beta' with 'BETA'"). */
export interface ReviewHunk extends HunkView {
  readonly summary: string
}

/** A change as the console shows it, with what it changed in words ("replaced 'beta' with 'BETA', added ' delta'"). */
export interface ReviewChange extends Omit<ChangeView, 'hunks'> {
  readonly hunks: readonly ReviewHunk[]
  readonly summary: string
}

export interface DocumentChanges {
  readonly docId: string
  /** The document's revision now: what "Keep all" keeps up to, so it never keeps a change the person has not seen. */
  readonly revision: string
  /** Oldest first. */
  readonly changes: readonly ReviewChange[]
}

export interface ReviewActed {
  readonly docId: string
  /** The document's revision after it (a keep changes no text, and leaves it as it was). */
  readonly revision: string
  /** Each change acted on: the hunks done, and those left, with why (a hunk whose surroundings are gone). */
  readonly acted: readonly {
    readonly change: string
    readonly done: readonly number[]
    readonly skipped: readonly { readonly index: number; readonly reason: string }[]
  }[]
  /** The document's pending changes now. */
  readonly pending: DocumentChanges
}

/** One pending change in the Review list, with the document it is in. */
export interface ReviewListItem extends ReviewChange {
  readonly docId: string
  /** The file's name, or the untitled document's title. */
  readonly title: string
  readonly path: string | null
  /** A tab open on the document (one in the main window when there is one). */
  readonly tabId: string
}

export interface ReviewList {
  /** Every assistant's pending change on every document open in a tab (in any window), newest first. */
  readonly changes: readonly ReviewListItem[]
}
