import * as Y from 'yjs'
import { QuireError } from '../errors.js'
import type { Thread } from './commentsState.js'
import { MAX_QUOTE_CHARS } from './limits.js'

export interface Anchor {
  readonly start: Uint8Array
  readonly end: Uint8Array
  readonly quote: string
  readonly quoteTruncated: boolean
}

/** What `list` shows a thread anchored to: the text there now, or the creation-time quote once it is gone. */
export interface AnchoredQuote {
  readonly quote: string
  readonly quoteTruncated: boolean
  /** The anchored text was deleted (the quote is the one taken when the thread was opened). */
  readonly anchorLost: boolean
}

/** At most MAX_QUOTE_CHARS UTF-16 units, never splitting a surrogate pair. */
export function capQuote(text: string): { quote: string; quoteTruncated: boolean } {
  if (text.length <= MAX_QUOTE_CHARS) return { quote: text, quoteTruncated: false }
  let cut = MAX_QUOTE_CHARS
  const last = text.charCodeAt(cut - 1)
  if (last >= 0xd800 && last <= 0xdbff) cut--
  return { quote: text.slice(0, cut), quoteTruncated: true }
}

/**
 * Anchors a thread to a non-empty `[from, to)` of `source` (character offsets, UTF-16 units): the start sticks to the first
 * character of the range and the end to the last, so text typed at either edge stays outside the range.
 */
export function createAnchor(text: Y.Text, from: number, to: number): Anchor {
  const length = text.length
  if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to < from || to > length) {
    throw new QuireError('INVALID_ARGUMENT', `the anchor must satisfy 0 <= from <= to <= ${length} (got from ${from}, to ${to})`)
  }
  // A thread is about some text: an empty range has nothing to quote and nothing to highlight.
  if (to === from) throw new QuireError('INVALID_ARGUMENT', 'select some text to comment on (from must be before to)')
  const start = Y.encodeRelativePosition(Y.createRelativePositionFromTypeIndex(text, from, 0))
  const end = Y.encodeRelativePosition(Y.createRelativePositionFromTypeIndex(text, to, -1))
  return { start, end, ...capQuote(text.toString().slice(from, to)) }
}

/** Resolves a thread's anchor against the document as it is now (`content` is `text`'s string, computed once per list). */
export function anchoredQuote(thread: Thread, text: Y.Text | undefined, content: string): AnchoredQuote {
  const lost = { quote: thread.quote, quoteTruncated: thread.quoteTruncated, anchorLost: true }
  if (!text?.doc) return lost
  try {
    const start = Y.createAbsolutePositionFromRelativePosition(Y.decodeRelativePosition(thread.anchor.start), text.doc)
    const end = Y.createAbsolutePositionFromRelativePosition(Y.decodeRelativePosition(thread.anchor.end), text.doc)
    if (!start || !end || start.type !== text || end.type !== text) return lost
    if (thread.quote.length > 0 && start.index >= end.index) return lost
    return { ...capQuote(content.slice(start.index, Math.max(start.index, end.index))), anchorLost: false }
  } catch {
    return lost
  }
}
