import * as Y from 'yjs'
import type { ConsoleCommentThread } from '../../../adapters/http/consoleCommentsApi.js'
import type { DocumentChanges } from '../../../adapters/http/consoleReviewApi.js'
import type { EditorDeletion, EditorHighlight, MountedEditor } from '../editor.js'
import type { ReviewApi } from '../review/reviewApi.js'
import { suggestionMarks } from '../review/suggestionMarks.js'

/** A comment's anchor, decoded: relative positions in `source`. */
interface Anchor {
  readonly id: string
  readonly start: Y.RelativePosition
  readonly end: Y.RelativePosition
  readonly title: string
}

const decode = (base64: string): Y.RelativePosition => Y.decodeRelativePosition(Uint8Array.from(atob(base64), (char) => char.charCodeAt(0)))

/** How many times in a row placing the marks waits for the editor before it waits for the next update instead. */
const MAX_PUT_OFF = 10

/** Fired on `document` whenever a document's pending changes were read again (the review bar follows it). */
export const CHANGES_READ = 'quire:changes-read'

/**
 * What the open editor marks in its text: the assistants' pending changes as suggestions (inserted text marked,
 * deleted text struck through where it was, who made it and when on hover; from the review API), and the anchored
 * text of the comment threads the Comments sidebar shows. Changes are read again when the document's changes move
 * (a new one, a keep or an undo on any node) and right after the person acts; all marks are placed again, in the
 * editor's own copy of the document, whenever it changes (a moment after, so a burst of typing places them once).
 */
export class Highlighter {
  private changes: DocumentChanges | null = null
  private anchors: readonly Anchor[] = []
  private activeComment: string | null = null
  private seen: number | undefined
  private timer: ReturnType<typeof setTimeout> | undefined
  private destroyed = false
  /** Reads issued, and the newest whose answer was taken (answers can arrive out of order). */
  private issued = 0
  private taken = 0
  /** Placements put off in a row because the editor could not place source offsets yet. */
  private putOff = 0
  /** The editor the last placement left marks in (none when it placed none). */
  private markedEditor: MountedEditor | undefined
  private readonly onUpdate = () => {
    this.putOff = 0
    this.schedule()
  }

  constructor(
    private readonly ydoc: Y.Doc,
    private readonly docId: string,
    private readonly editor: () => MountedEditor | undefined,
    private readonly api: ReviewApi,
  ) {
    ydoc.on('update', this.onUpdate)
  }

  /** The document's pending changes as last read (null before the first answer). */
  get pending(): DocumentChanges | null {
    return this.changes
  }

  /**
   * Where the document's AI changes last moved, as the console's state says (a change came, or was kept or undone):
   * the pending changes are read again when it moves. The person's typing does not move it; which of a change's
   * characters still stand is found in the editor's own copy of the document.
   */
  changesSeen(position: number): void {
    if (position === this.seen) return
    this.seen = position
    void this.refresh()
  }

  /** Reads the pending changes now (after the person kept or undid one). */
  async refresh(): Promise<void> {
    const ticket = ++this.issued
    try {
      const answer = await this.api.changes(this.docId)
      if (this.destroyed || ticket < this.taken) return
      this.taken = ticket
      this.take(answer)
    } catch {
      // Marks are a help, not the text: the next move of the log tries again.
    }
  }

  /** Takes the pending changes an action answered with. */
  take(changes: DocumentChanges): void {
    if (this.destroyed || changes.docId !== this.docId) return
    this.changes = changes
    document.dispatchEvent(new CustomEvent(CHANGES_READ, { detail: { docId: this.docId } }))
    this.schedule()
  }

  /** The threads the Comments sidebar shows (none while it is closed); resolved ones are not marked. */
  setComments(threads: readonly ConsoleCommentThread[]): void {
    this.anchors = threads
      .filter((thread) => thread.anchor !== null && thread.state !== 'resolved' && !thread.anchorLost)
      .map((thread) => ({ id: thread.id, start: decode(thread.anchor!.start), end: decode(thread.anchor!.end), title: `Comment: ${thread.body}` }))
    this.schedule()
  }

  /** The thread the person points at in the sidebar: its anchor is marked more strongly. */
  setActiveComment(id: string | null): void {
    if (id === this.activeComment) return
    this.activeComment = id
    this.schedule()
  }

  /** Places the marks again soon (the editor may not have taken the latest update yet). */
  schedule(): void {
    clearTimeout(this.timer)
    this.timer = setTimeout(() => this.apply(), 60)
  }

  destroy(): void {
    this.destroyed = true
    clearTimeout(this.timer)
    this.ydoc.off('update', this.onUpdate)
  }

  private apply(): void {
    const editor = this.editor()
    if (this.destroyed || !editor) return
    // Nothing to mark: placing no marks needs no map of the source (in WYSIWYG a pass over the whole document, after
    // every keystroke), only clearing the marks this editor still shows.
    if ((this.changes?.changes.length ?? 0) === 0 && this.anchors.length === 0) {
      if (this.markedEditor === editor) editor.setHighlights([], [])
      this.markedEditor = undefined
      this.putOff = 0
      return
    }
    const text = this.ydoc.getText('source')
    const source = text.toString()
    const map = editor.mapSource(source)
    // The editor has not taken the latest update yet (WYSIWYG mid-sync): try again a few times, then at the next update.
    if (!map) {
      if (++this.putOff < MAX_PUT_OFF) this.schedule()
      return
    }
    this.putOff = 0
    const { marks, deletions }: { marks: EditorHighlight[]; deletions: EditorDeletion[] } = suggestionMarks(this.changes?.changes ?? [], text, map)
    for (const anchor of this.anchors) {
      const start = Y.createAbsolutePositionFromRelativePosition(anchor.start, this.ydoc)
      const end = Y.createAbsolutePositionFromRelativePosition(anchor.end, this.ydoc)
      if (!start || !end || start.type !== text || end.type !== text || end.index <= start.index) continue
      const from = map.position(start.index)
      const to = Math.max(from, map.position(end.index, true))
      marks.push({ from, to, className: `comment-anchor${anchor.id === this.activeComment ? ' active' : ''}`, title: anchor.title })
    }
    editor.setHighlights(marks, deletions)
    this.markedEditor = marks.length + deletions.length > 0 ? editor : undefined
  }
}
