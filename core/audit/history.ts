import type { Engine } from '../engine.js'
import { describeActor } from '../events/actor.js'
import { documentStream } from '../documents/events.js'
import { DocumentState } from '../../projections/documents/documentState.js'

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
      if (event.type !== 'document.saved') continue
      const data = event.data as { path: string; length: number; reason: 'open' | 'save' | 'reload' }
      entries.push({
        position: event.position,
        at: event.at,
        reason: data.reason,
        actor: describeActor(event.actor),
        mcp: event.actor.kind === 'mcp',
        path: data.path,
        revision: state.revision,
        length: data.length,
      })
    }
  } finally {
    state.destroy()
  }
  return entries
}
