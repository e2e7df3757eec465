/**
 * The console's document-history API (types only: the browser bundle imports them too). Mounted under
 * `/console/api` behind the console's token check; everything recorded through it is the person's (`user`).
 *
 *   GET  /console/api/docs/:docId/history               → HistoryView
 *   GET  /console/api/docs/:docId/diff?from=REV&to=REV  → HistoryDiff
 *   GET  /console/api/docs/:docId/restore-preview?revision=REV         → HistoryRestorePreview
 *   POST /console/api/docs/:docId/restore {revision, expectedRevision?} → HistoryRestored
 *   POST /console/api/docs/:docId/review  {upToRevision}                → HistoryView
 *
 * Errors are `{error, message}`: 404 NOT_FOUND (no such document or revision), 409 STALE (the document changed
 * since the person looked), 400 otherwise.
 */

export type HistoryCommentState = 'open' | 'addressed' | 'resolved' | 'reopened' | 'deleted' | 'unknown'

/** Where the person's review left a change: `mixed` when some hunks are kept and others undone. */
export type HistoryChangeState = 'pending' | 'kept' | 'undone' | 'mixed'

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
  /** The change's id (`ch-…`): keep, undo and redo name it (consoleReviewApi.ts). */
  readonly change: string
  readonly state: HistoryChangeState
  /** What it changed, word by word: "replaced 'beta' with 'BETA', added ' delta'". */
  readonly summary: string
}

export interface HistoryRestoreItem extends HistoryItemBase {
  readonly kind: 'restore'
  readonly restored: string
  /** The restore's change, which the person can undo (absent when it changed nothing). */
  readonly change?: string
  readonly state?: HistoryChangeState
  readonly summary: string
}

/** The person kept, undid or redid a change (an assistant's, or their own restore), or some of its hunks. */
export interface HistoryReviewActionItem extends HistoryItemBase {
  readonly kind: 'review'
  readonly action: 'kept' | 'undone' | 'redone'
  readonly change: string
  /** Whose change: the agent's name, or `person` for a restore. */
  readonly agent: string
  readonly hunks: readonly number[]
  /** How many hunks the change has. */
  readonly of: number
}

/**
 * A session of the person's own typing: edits each within a few minutes of the last, no other change between them.
 * `position` and `at` are its first edit's, `until` its last's; `revision` the document's after its last.
 */
export interface HistoryEditsItem extends HistoryItemBase {
  readonly kind: 'edits'
  readonly until: number
  readonly edits: number
  /** The paragraphs it touched, from 1 (blocks of text between blank lines). */
  readonly paragraphs: readonly number[]
}

export interface HistoryReviewedItem extends HistoryItemBase {
  readonly kind: 'reviewed'
}

export type HistoryItem = HistorySaveItem | HistoryAiWriteItem | HistoryRestoreItem | HistoryReviewedItem | HistoryReviewActionItem | HistoryEditsItem

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
  /** The restore's change (`ch-…`), which "Undo restore" undoes; absent when nothing changed. */
  readonly change?: string
  readonly history: HistoryView
}

/**
 * What restoring `revision` would do, asked before it is done: the diff from the text now (`current`) to the
 * restored text, and the person's own editing sessions since that revision, whose typing the restore takes out.
 */
export interface HistoryRestorePreview {
  readonly revision: string
  readonly current: string
  readonly diff: HistoryDiff
  /** Newest first. */
  readonly yourEdits: readonly HistoryEditsItem[]
}
