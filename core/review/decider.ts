import type * as Y from 'yjs'
import type { Actor } from '../events/actor.js'
import { QuireError } from '../errors.js'
import type { EventInput } from '../log/eventLog.js'
import { changeToken, type AiChange, type ChangeHunk, type HunkState } from '../documents/aiChanges.js'
import type { DocumentState } from '../documents/documentState.js'
import { deleteShown, isShown, putBack } from '../documents/revert.js'
import type { IdRef, TextRun } from '../documents/textChanges.js'

/** What the person does to a change (DESIGN §11). */
export type ReviewAction = 'keep' | 'undo' | 'redo'

/** The hunk states each action takes a hunk from. */
const FROM: Readonly<Record<ReviewAction, readonly HunkState[]>> = { keep: ['pending'], undo: ['pending', 'kept'], redo: ['undone'] }

const NOTHING: Readonly<Record<ReviewAction, string>> = {
  keep: 'nothing to keep: every hunk chosen is already kept or undone',
  undo: 'nothing to undo: every hunk chosen is already undone',
  redo: 'nothing to redo: no hunk chosen is undone',
}

/**
 * The hunks of change `id` that `action` applies to: `indexes` (all when undefined), less those already where the
 * action would take them. NOT_FOUND for a change the document does not have; INVALID_ARGUMENT for a hunk it does not
 * have, or when nothing is left to do.
 */
export function chooseHunks(state: DocumentState, id: number, action: ReviewAction, indexes: readonly number[] | undefined): { change: AiChange; chosen: number[] } {
  const change = state.aiChange(id)
  if (!change) throw new QuireError('NOT_FOUND', `${changeToken(id)} is not a change of document ${state.docId} (quire review list shows its changes)`)
  for (const index of indexes ?? []) {
    if (!Number.isInteger(index) || index < 0 || index >= change.hunks.length) {
      throw new QuireError('INVALID_ARGUMENT', `${changeToken(id)} has ${change.hunks.length} hunk${change.hunks.length === 1 ? '' : 's'} (0 to ${change.hunks.length - 1}); there is no hunk ${index}`)
    }
  }
  const chosen = (indexes ?? change.hunks.map((_, index) => index)).filter((index) => FROM[action].includes(change.hunks[index]!.state))
  if (chosen.length === 0 && !(action === 'keep' && change.hunks.length === 0)) throw new QuireError('INVALID_ARGUMENT', `${changeToken(id)}: ${NOTHING[action]}`)
  return { change, chosen: [...new Set(chosen)].sort((a, b) => a - b) }
}

/** Why a hunk could not be undone, for the person. */
export interface SkippedHunk {
  readonly index: number
  readonly reason: string
}

/**
 * Whether undoing `hunk` would put its deleted text back cleanly: not when the text on both sides of the place it was
 * deleted from has been deleted since (the text would land inside something that is gone).
 */
function undoRefusal(doc: Y.Doc, hunk: ChangeHunk): string | undefined {
  if (hunk.deleted.length === 0) return undefined
  if (isShown(doc, hunk.before) || isShown(doc, hunk.after)) return undefined
  return 'the text around what it deleted has been deleted since, so putting it back would land inside text that is gone'
}

/** Undoes hunks `chosen` of `change` in `transaction`: the `review.undone` event, and what was undone and skipped. */
export function undoChange(
  transaction: Y.Transaction,
  text: Y.Text,
  change: AiChange,
  chosen: readonly number[],
  actor: Actor,
): { readonly events: EventInput[]; readonly undone: number[]; readonly skipped: SkippedHunk[] } {
  const done: { index: number; restored: TextRun[] }[] = []
  const skipped: SkippedHunk[] = []
  for (const index of chosen) {
    const hunk = change.hunks[index]!
    const refusal = undoRefusal(transaction.doc, hunk)
    if (refusal) {
      skipped.push({ index, reason: refusal })
      continue
    }
    deleteShown(transaction, text, hunk.inserted)
    done.push({ index, restored: putBack(text, hunk.deleted, firstOf(hunk.inserted)) })
  }
  const events: EventInput[] =
    done.length === 0 ? [] : [{ type: 'review.undone', actor, data: { change: change.id, hunks: done, ...(skipped.length > 0 ? { skipped } : {}) } }]
  return { events, undone: done.map(({ index }) => index), skipped }
}

/** Redoes hunks `chosen` of `change`: deletes what the undo put back and puts the change's own text back. */
export function redoChange(transaction: Y.Transaction, text: Y.Text, change: AiChange, chosen: readonly number[], actor: Actor): { readonly events: EventInput[]; readonly redone: number[] } {
  const done: { index: number; inserted: TextRun[] }[] = []
  for (const index of chosen) {
    const hunk = change.hunks[index]!
    deleteShown(transaction, text, hunk.restored)
    // Each piece back at its own place: whatever was typed inside the change's text stays inside it.
    done.push({ index, inserted: putBack(text, hunk.inserted) })
  }
  return { events: [{ type: 'review.redone', actor, data: { change: change.id, hunks: done } }], redone: done.map(({ index }) => index) }
}

/** The first character of runs, where a replacement's text goes back (undefined: none). */
const firstOf = (runs: readonly TextRun[]): IdRef | undefined => (runs[0] ? { client: runs[0].client, clock: runs[0].clock } : undefined)

/** Keeps hunks `chosen` of `change` (the whole change when it has no hunk). */
export function keepChange(change: AiChange, chosen: readonly number[], actor: Actor): EventInput[] {
  const all = chosen.length === change.hunks.length
  return [{ type: 'review.kept', actor, data: { change: change.id, ...(all ? {} : { hunks: [...chosen] }) } }]
}
