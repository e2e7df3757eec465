import * as Y from 'yjs'
import type { ReviewChange } from '../../../adapters/http/consoleReviewApi.js'
import type { EditorDeletion, EditorHighlight, SourcePositions } from '../editor.js'
import { rangesInText } from '../highlights/itemRanges.js'

/** Who made a change, when, and the revision it made: what a suggestion shows on hover. */
export const changeTitle = (change: ReviewChange): string => `${change.agent} (AI) · ${new Date(change.at).toLocaleString()} · ${change.revision}`

/**
 * The pending hunks of `changes` as suggestions in an editor: the characters each inserted that still stand, marked,
 * and what each deleted, drawn struck through at the place of its characters' tombstones. Both are found by Yjs id
 * in the editor's own copy of the document (`source`), so they sit where those characters are now, whatever was
 * typed since; `map` turns offsets of `source` into the editor's positions.
 */
export function suggestionMarks(changes: readonly ReviewChange[], text: Y.Text, map: SourcePositions): { marks: EditorHighlight[]; deletions: EditorDeletion[] } {
  const marks: EditorHighlight[] = []
  const deletions: EditorDeletion[] = []
  for (const change of changes) {
    const title = changeTitle(change)
    for (const hunk of change.hunks) {
      if (hunk.state !== 'pending') continue
      const data = { change: change.id, hunk: String(hunk.index) }
      const runs = hunk.insertedRuns.map(({ client, clock, text: inserted }) => ({ client, clock, length: inserted.length }))
      for (const range of rangesInText(text, runs)) {
        const from = map.position(range.from)
        const to = map.position(range.to, true)
        if (from < to) marks.push({ from, to, className: 'ai-change suggestion-inserted', title, data })
      }
      const deleted = hunk.deletedRuns.map((run) => run.text).join('')
      const at = deleted === '' ? null : tombstoneIndex(text, hunk.deletedRuns[0]!)
      if (at !== null) deletions.push({ at: map.position(at), text: deleted, title, data })
    }
  }
  return { marks, deletions }
}

/** Where a deleted character stood in `text` (the index of the place its tombstone holds), null when it is not there. */
function tombstoneIndex(text: Y.Text, id: { readonly client: number; readonly clock: number }): number | null {
  const doc = text.doc
  if (!doc) return null
  const relative = Y.createRelativePositionFromJSON({ item: { client: id.client, clock: id.clock }, assoc: 0 })
  const absolute = Y.createAbsolutePositionFromRelativePosition(relative, doc)
  return absolute !== null && absolute.type === text ? absolute.index : null
}
