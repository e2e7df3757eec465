import * as Y from 'yjs'
import type { Patch, Trace } from '../adapters/trace/traceFile.js'

/**
 * The reference the ingest is measured against: the trace's edits applied to one plain in-memory Y.Doc, one
 * `doc.transact` per transaction, no update listener, nothing stored. Only sequential traces (one typist).
 */
export function applyTracePlain(trace: Trace): { doc: Y.Doc; milliseconds: number } {
  if (trace.kind !== 'sequential') throw new Error('the plain Y.Doc reference needs a sequential trace')
  const doc = new Y.Doc()
  const text = doc.getText('source')
  const txns = trace.txns
  // Positions are code points; they equal UTF-16 offsets until an astral character has been inserted.
  let astral = /[\uD800-\uDBFF]/.test(trace.startContent)
  const offset = (codePoint: number): number => (astral ? utf16Offset(text.toString(), codePoint) : codePoint)
  const started = performance.now()
  if (trace.startContent.length > 0) text.insert(0, trace.startContent)
  for (const txn of txns) {
    doc.transact(() => {
      for (const [position, deleteCount, insert] of txn.patches as readonly Patch[]) {
        const start = offset(position)
        if (deleteCount > 0) text.delete(start, offset(position + deleteCount) - start)
        if (insert.length > 0) {
          text.insert(start, insert)
          if (!astral && /[\uD800-\uDBFF]/.test(insert)) astral = true
        }
      }
    })
  }
  return { doc, milliseconds: performance.now() - started }
}

function utf16Offset(text: string, codePoint: number): number {
  let units = 0
  for (let points = 0; points < codePoint && units < text.length; points++) {
    const code = text.charCodeAt(units)
    units += code >= 0xd800 && code <= 0xdbff ? 2 : 1
  }
  return units
}
