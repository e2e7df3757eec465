import * as Y from 'yjs'
import type { DocumentState } from '../../core/documents/documentState.js'
import { DocumentChanged } from '../../core/documents/events.js'
import { dataOf } from '../../core/events/schema.js'
import type { RecordedEvent } from '../../core/log/eventLog.js'

/** Two of the person's edits further apart than this belong to two sessions. */
export const SESSION_GAP_MS = 5 * 60_000

/**
 * A session of the person's own typing (any of their editor windows): edits one after another, each within a few
 * minutes of the last, with no other change to the text between them.
 */
export interface EditSessionEntry {
  readonly kind: 'edits'
  /** The log position of the session's first edit. */
  readonly position: number
  /** When its first edit was made, and its last (ms since the epoch). */
  readonly at: number
  readonly until: number
  readonly actor: 'user'
  /** The document's revision after its last edit. */
  readonly revision: string
  /** How many edits (content events) it holds. */
  readonly edits: number
  /** The paragraphs it touched, from 1: top-level blocks of the text as the session left it, split at blank lines. */
  readonly paragraphs: readonly number[]
}

type Open = { -readonly [K in keyof EditSessionEntry]: EditSessionEntry[K] } & { touched: Y.RelativePosition[] }

/**
 * Groups the person's edits into sessions while a document's stream is folded: call `before` with each event before
 * the state folds it, and `after` once it has. An edit is a peer's content change (the person's editors are the only
 * peers that write), together with the `system` follow-up that carries it to the other side (a WYSIWYG edit reaches
 * the text that way). The places an edit touches are kept as positions that follow later edits, and turned into
 * paragraph numbers once, when the session ends, on the text as it left it.
 */
export class EditSessions {
  private open: Open | undefined
  private collecting = false
  private lastWasPerson = false
  private readonly observer = (event: Y.YTextEvent) => this.observe(event)

  constructor(
    private readonly state: DocumentState,
    /** Receives each session as it starts (filled in as it goes; one that touches no text is left out). */
    private readonly started: (entry: EditSessionEntry) => void,
  ) {
    state.text.observe(this.observer)
  }

  before(event: RecordedEvent): void {
    const follows = this.lastWasPerson
    this.lastWasPerson = false
    if (event.type !== DocumentChanged.type) return
    const journal = dataOf(event, DocumentChanged).journal
    if (event.actor.kind === 'peer') {
      if (this.open && event.at - this.open.until > SESSION_GAP_MS) this.close()
      this.open ??= this.start(event)
      this.open.until = event.at
      this.open.edits += 1
      this.collecting = this.lastWasPerson = true
    } else if (event.actor.kind === 'system' && journal === undefined) {
      // The bridge's follow-up of the person's edit; or a change of the system's own (the mirror built), no one's edit.
      this.collecting = this.lastWasPerson = follows && this.open !== undefined
    } else {
      this.close()
    }
  }

  after(): void {
    if (this.collecting && this.open) this.open.revision = this.state.revision
    this.collecting = false
  }

  /** The stream is folded: the last session ends. */
  finish(): void {
    this.close()
    this.state.text.unobserve(this.observer)
  }

  private start(event: RecordedEvent): Open {
    const open: Open = { kind: 'edits', position: event.position, at: event.at, until: event.at, actor: 'user', revision: this.state.revision, edits: 0, paragraphs: [], touched: [] }
    this.started(open)
    return open
  }

  private observe(event: Y.YTextEvent): void {
    if (!this.collecting || !this.open) return
    const text = this.state.text
    let index = 0
    for (const op of event.delta) {
      if (op.retain !== undefined) index += op.retain
      else if (op.insert !== undefined) {
        const length = typeof op.insert === 'string' ? op.insert.length : 1
        this.open.touched.push(Y.createRelativePositionFromTypeIndex(text, index), Y.createRelativePositionFromTypeIndex(text, index + length - 1))
        index += length
      } else if (op.delete !== undefined) this.open.touched.push(Y.createRelativePositionFromTypeIndex(text, index))
    }
  }

  private close(): void {
    const open = this.open
    this.open = undefined
    this.collecting = false
    if (!open || open.touched.length === 0) return
    const paragraphOf = paragraphIndex(this.state.content)
    const found = new Set<number>()
    for (const relative of open.touched) {
      const absolute = Y.createAbsolutePositionFromRelativePosition(relative, this.state.ydoc)
      if (absolute && absolute.type === this.state.text) found.add(paragraphOf(absolute.index))
    }
    open.paragraphs = [...found].sort((a, b) => a - b)
    open.touched = []
  }
}

/**
 * The paragraph (from 1) an offset of `text` lies in: blocks are runs of non-blank lines; an offset in the blank
 * lines between two belongs to the one before.
 */
export function paragraphIndex(text: string): (offset: number) => number {
  const starts: number[] = []
  let previousBlank = true
  for (let start = 0; start <= text.length; ) {
    const newline = text.indexOf('\n', start)
    const end = newline < 0 ? text.length : newline
    const blank = text.slice(start, end).trim() === ''
    if (!blank && previousBlank) starts.push(start)
    previousBlank = blank
    if (newline < 0) break
    start = newline + 1
  }
  return (offset) => {
    let low = 0
    let high = starts.length
    while (low < high) {
      const middle = (low + high) >> 1
      if (starts[middle]! <= offset) low = middle + 1
      else high = middle
    }
    return Math.max(1, low)
  }
}
