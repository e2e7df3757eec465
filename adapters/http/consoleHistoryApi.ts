/**
 * The console's document-history API (types only: the browser bundle imports them too). Mounted under
 * `/console/api` behind the console's token check; everything recorded through it is the person's (`user`).
 *
 *   GET  /console/api/docs/:docId/history               → HistoryView
 *   GET  /console/api/docs/:docId/diff?from=REV&to=REV  → HistoryDiff
 *   POST /console/api/docs/:docId/restore {revision, expectedRevision?} → HistoryRestored
 *   POST /console/api/docs/:docId/review  {upToRevision}                → HistoryView
 *
 * Errors are `{error, message}`: 404 NOT_FOUND (no such document or revision), 409 STALE (the document changed
 * since the person looked), 400 otherwise.
 */

export type HistoryCommentState = 'open' | 'addressed' | 'resolved' | 'reopened' | 'deleted' | 'unknown'

interface HistoryItemBase {
  readonly position: number
  /** Milliseconds since the epoch. */
  readonly at: number
  readonly actor: string
  /** The document's revision once the entry took effect (a review mark: the revision reviewed up to). */
  readonly revision: string
}

export interface HistorySaveItem extends HistoryItemBase {
  readonly kind: 'save'
  readonly reason: 'open' | 'save' | 'reload'
  /** An assistant's save: the sidebar labels it `(mcp)` (SAVE.4–5). */
  readonly mcp: boolean
  readonly path: string
  readonly length: number
}

export interface HistoryAiWriteItem extends HistoryItemBase {
  readonly kind: 'ai-write'
  readonly operation: 'write' | 'transform' | 'apply_patch' | 'selection_set'
  readonly agent: string
  readonly detail?: string
  readonly addresses: ReadonlyArray<{ readonly id: string; readonly state?: HistoryCommentState }>
  readonly reviewed: boolean
}

export interface HistoryRestoreItem extends HistoryItemBase {
  readonly kind: 'restore'
  readonly restored: string
}

export interface HistoryReviewedItem extends HistoryItemBase {
  readonly kind: 'reviewed'
}

export type HistoryItem = HistorySaveItem | HistoryAiWriteItem | HistoryRestoreItem | HistoryReviewedItem

export interface HistoryView {
  readonly docId: string
  /** The document's current revision: what "Mark all reviewed" reviews up to, and a restore's expected revision. */
  readonly revision: string
  /** Applied AI writes not yet reviewed, and the `reviewBacklogLimit` at which `document.write` refuses. */
  readonly unreviewed: number
  readonly limit: number
  /** Newest first. */
  readonly entries: readonly HistoryItem[]
}

export interface HistoryDiffLine {
  readonly kind: 'same' | 'removed' | 'added'
  readonly text: string
  readonly fromLine?: number
  readonly toLine?: number
}

export interface HistoryDiff {
  readonly from: string
  readonly to: string
  readonly added: number
  readonly removed: number
  readonly lines: readonly HistoryDiffLine[]
}

export interface HistoryRestored {
  /** The revision the restore produced (the current one when the text already was the restored text). */
  readonly revision: string
  readonly changed: boolean
  readonly history: HistoryView
}
