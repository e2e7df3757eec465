import { DocumentChanged, docIdOfStream, DOCUMENT_STREAM_PREFIX, JournalRecorded } from '../../core/documents/events.js'
import { dataOf } from '../../core/events/schema.js'
import type { RecordedEvent } from '../../core/log/eventLog.js'
import type { FoldContext } from '../readModel/readModel.js'
import { decodeJson, encodeJson } from '../readModel/store.js'

/** Whether a journaled write changed the document: `pending` until the log says. */
export type WriteOutcome = 'applied' | 'not-applied' | 'pending'

/**
 * Decides, from the log alone, whether each journaled write (an assistant's write, a restore) applied. A write
 * records its journal entry first and its change after; writes to one document take turns, and one the document
 * changed under while it was recorded is aborted. So the next content change of the document, or its next journal
 * entry, settles the entry before it: applied when that change names it, otherwise it never applied (aborted,
 * refused, or its change rolled back by the log). `key` is where the model keeps each document's open entry.
 */
export async function foldWriteOutcome(event: RecordedEvent, context: FoldContext, key: (docId: string) => string, settle: (journal: number, outcome: WriteOutcome) => Promise<void>): Promise<void> {
  if (!event.stream.startsWith(DOCUMENT_STREAM_PREFIX)) return
  const open = key(docIdOfStream(event.stream))
  if (event.type === JournalRecorded.type) {
    const before = await context.get(open)
    if (before !== undefined) await settle(decodeJson<number>(before), 'not-applied')
    context.put(open, encodeJson(event.position))
    return
  }
  if (event.type !== DocumentChanged.type) return
  const { journal } = dataOf(event, DocumentChanged)
  const before = await context.get(open)
  if (before !== undefined) {
    const waiting = decodeJson<number>(before)
    context.delete(open)
    await settle(waiting, waiting === journal ? 'applied' : 'not-applied')
    if (waiting === journal) return
  }
  // A journal entry applied later than the next change (on recovery, say) is applied after all.
  if (journal !== undefined) await settle(journal, 'applied')
}
