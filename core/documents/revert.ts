import * as Y from 'yjs'
import type { IdRef, TextRun } from './textChanges.js'

/**
 * The Yjs side of undoing and redoing a change, by character id: delete the characters a change made that the text
 * still shows (never another character, even one typed inside them), and put text back where characters it had
 * were (their tombstones keep their place in a Y.Text, so the place survives whatever was edited around it). Run
 * inside one transaction on the document's Y.Doc (DocumentState.transactLocalWith).
 */

/** Deletes the characters of `runs` that `text` still shows; returns how many were deleted. */
export function deleteShown(transaction: Y.Transaction, text: Y.Text, runs: readonly TextRun[]): number {
  let count = 0
  for (const run of runs) {
    const end = run.clock + run.text.length
    let clock = run.clock
    while (clock < end) {
      const struct = itemAt(transaction, run.client, clock, end)
      if (!struct) break
      if (struct instanceof Y.Item && struct.parent === text && !struct.deleted) {
        struct.delete(transaction)
        count += struct.length
      }
      clock = struct.id.clock + struct.length
    }
  }
  // As Yjs's own UndoManager does after deleting items directly: the text's index cache no longer holds.
  if (count > 0) resetSearchMarkers(text)
  return count
}

/**
 * Puts each run's text back where its characters stand (deleted: their tombstones), in document order, and returns
 * the runs of the characters it inserted (the document's own client, with the text each holds). A part of a run whose
 * characters cannot be found, or are shown already, is left out. With `at`, the whole text goes where character `at`
 * stands instead: a replacement's text goes back where the text that replaced it was, after whatever was typed just
 * before it.
 */
export function putBack(text: Y.Text, runs: readonly TextRun[], at?: IdRef): TextRun[] {
  const doc = text.doc!
  const created: { client: number; clock: number; text: string }[] = []
  if (at !== undefined) {
    const whole = runs.map((run) => run.text).join('')
    const index = indexOf(doc, at)
    if (index === null || whole.length === 0) return putBack(text, runs)
    const clock = Y.getState(doc.store, doc.clientID)
    text.insert(index, whole)
    return [{ client: doc.clientID, clock, text: whole }]
  }
  for (const run of runs) {
    const end = run.clock + run.text.length
    let clock = run.clock
    while (clock < end) {
      const found = Y.getItem(doc.store, Y.createID(run.client, clock)) as Y.Item | Y.GC | undefined
      if (!found) break
      const pieceEnd = Math.min(end, found.id.clock + found.length)
      if (found instanceof Y.Item && found.parent === text && found.deleted) {
        const piece = run.text.slice(clock - run.clock, pieceEnd - run.clock)
        const index = indexOf(doc, { client: run.client, clock })
        if (index !== null && piece.length > 0) {
          const at = Y.getState(doc.store, doc.clientID)
          text.insert(index, piece)
          const last = created[created.length - 1]
          if (last && last.client === doc.clientID && last.clock + last.text.length === at) last.text += piece
          else created.push({ client: doc.clientID, clock: at, text: piece })
        }
      }
      clock = pieceEnd
    }
  }
  return created
}

/** Whether the character `id` is still shown (null: the text's start or end, which always is). */
export function isShown(doc: Y.Doc, id: IdRef | null): boolean {
  if (id === null) return true
  const found = Y.getItem(doc.store, Y.createID(id.client, id.clock)) as Y.Item | Y.GC | undefined
  return found instanceof Y.Item && !found.deleted
}

/** The index in its text of the place of character `id` (shown or deleted), or null when it is not in a live text. */
function indexOf(doc: Y.Doc, id: IdRef): number | null {
  const position = Y.createRelativePositionFromJSON({ item: { client: id.client, clock: id.clock }, assoc: 0 })
  return Y.createAbsolutePositionFromRelativePosition(position, doc)?.index ?? null
}

/** The struct holding clock `clock` of `client`, split to start there (and end by `end`); undefined when missing. */
function itemAt(transaction: Y.Transaction, client: number, clock: number, end: number): Y.Item | Y.GC | undefined {
  const structs = transaction.doc.store.clients.get(client)
  if (!structs || Y.getState(transaction.doc.store, client) <= clock) return undefined
  const struct = Y.getItemCleanStart(transaction, Y.createID(client, clock)) as Y.Item | Y.GC
  if (struct instanceof Y.Item && struct.id.clock + struct.length > end) Y.getItemCleanEnd(transaction, transaction.doc.store, Y.createID(client, end - 1))
  return struct
}

function resetSearchMarkers(text: Y.Text): void {
  const markers = (text as unknown as { _searchMarker: unknown[] | null })._searchMarker
  if (markers) markers.length = 0
}
