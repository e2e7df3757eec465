/**
 * How changes and their hunks are shown to people and scripts (`quire review list`, the console). Types only, with no
 * imports: the console's bundle uses them through adapters/http/consoleReviewApi.ts.
 */

/** Characters by Yjs id, with their text. */
export interface TextRun {
  readonly client: number
  readonly clock: number
  readonly text: string
}

/** A change as people and scripts see it (`quire review list`, the console). */
export interface ChangeView {
  /** `ch-…`: keep, undo and redo name it. */
  readonly id: string
  readonly by: 'assistant' | 'person'
  /** The agent's name (the person's restores: `person`). */
  readonly agent: string
  readonly connection: string
  /** ISO 8601. */
  readonly at: string
  /** The revision it made. */
  readonly revision: string
  readonly operation: string
  readonly addresses: readonly string[]
  /** Characters inserted and deleted, over all its hunks. */
  readonly inserted: number
  readonly deleted: number
  /** `mixed` when some hunks are kept and others undone. */
  readonly state: 'pending' | 'kept' | 'undone' | 'mixed'
  readonly hunks: readonly HunkView[]
}

export interface HunkView {
  readonly index: number
  readonly state: 'pending' | 'kept' | 'undone'
  /** What the change inserted there, and what it deleted. */
  readonly inserted: string
  readonly deleted: string
  /**
   * The characters that stand for each now (an undone hunk: none inserted, the ones put back), for an editor to find
   * in its own copy of the document.
   */
  readonly insertedRuns: readonly TextRun[]
  readonly deletedRuns: readonly TextRun[]
}
