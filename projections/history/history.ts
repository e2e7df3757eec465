import type { Engine } from '../../core/engine.js'
import { describeActor } from '../../core/events/actor.js'
import { documentStream, DocumentSaved } from '../../core/documents/events.js'
import { dataOf } from '../../core/events/schema.js'
import { DocumentState } from '../../core/documents/documentState.js'

export interface HistoryEntry {
  readonly position: number
  readonly at: number
  /** `save` by a person or an assistant, `open` when first read from disk, `reload` when the disk's text came in. */
  readonly reason: 'open' | 'save' | 'reload'
  readonly actor: string
  /** An AI client's save: shown as `(mcp)` and never merged or skipped (SAVE.4–5). */
  readonly mcp: boolean
  readonly path: string
  readonly revision: string
  readonly length: number
}

/**
 * A document's history: every time its text was saved to, or taken from, a file, with the revision the text had
 * then (so `quire replay --at` shows it). Folded from the log on demand.
 */
export async function documentHistory(engine: Engine, docId: string): Promise<HistoryEntry[]> {
  const state = new DocumentState(docId)
  const entries: HistoryEntry[] = []
  try {
    for await (const event of engine.store.readStream(documentStream(docId))) {
      state.apply(event)
      if (event.type !== DocumentSaved.type) continue
      const data = dataOf(event, DocumentSaved)
      entries.push({
        position: event.position,
        at: event.at,
        reason: data.reason,
        actor: describeActor(event.actor),
        mcp: event.actor.kind === 'mcp',
        path: data.path,
        // The revision the file holds: an edit that landed while the save wrote the file is not in it.
        revision: data.revision ?? state.revision,
        length: data.length,
      })
    }
  } finally {
    state.destroy()
  }
  return entries
}

export { documentTimeline } from './timeline.js'
export type { AddressedComment, AiWriteEntry, CommentState, CommentStateResolver, RestoreEntry, ReviewActionEntry, ReviewedEntry, SaveEntry, TimelineEntry, TimelineOptions } from './timeline.js'
export type { EditSessionEntry } from './editSessions.js'
