import * as Y from 'yjs'
import type { AiChange, AiChanges } from '../../../adapters/http/consoleAttributionApi.js'
import type { ConsoleCommentThread } from '../../../adapters/http/consoleCommentsApi.js'
import type { EditorHighlight, MountedEditor } from '../editor.js'
import { consoleRequest } from '../request.js'

/** A comment's anchor, decoded: relative positions in `source`. */
interface Anchor {
  readonly id: string
  readonly start: Y.RelativePosition
  readonly end: Y.RelativePosition
  readonly title: string
}

const decode = (base64: string): Y.RelativePosition => Y.decodeRelativePosition(Uint8Array.from(atob(base64), (char) => char.charCodeAt(0)))

/**
 * What the open editor marks in its text: the assistants' recent (unreviewed) changes, each with who made it, when
 * and the revision it made (on hover), and the anchored text of the comment threads the Comments sidebar shows.
 * Changes are fetched when the log moves; all marks are placed again, in the editor's own copy of
 * the document, whenever it changes (a moment after, so a burst of typing places them once).
 */
export class Highlighter {
  private changes: readonly AiChange[] = []
  private anchors: readonly Anchor[] = []
  private activeComment: string | null = null
  private seen: string | undefined
  private timer: ReturnType<typeof setTimeout> | undefined
  private destroyed = false
  private readonly onUpdate = () => this.schedule()

  constructor(
    private readonly ydoc: Y.Doc,
    private readonly docId: string,
    private readonly editor: () => MountedEditor | undefined,
  ) {
    ydoc.on('update', this.onUpdate)
  }

  /**
   * The log has moved (`revision@head` from the console's state): a new revision may bring an AI change, and a
   * review mark (which changes no revision) takes marks away. The server reads only what is new each time.
   */
  logSeen(key: string): void {
    if (key === this.seen) return
    this.seen = key
    void this.fetch()
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

  private async fetch(): Promise<void> {
    try {
      const answer = await consoleRequest<AiChanges>('GET', `/console/api/docs/${encodeURIComponent(this.docId)}/ai-changes`)
      if (this.destroyed) return
      this.changes = answer.changes
      this.schedule()
    } catch {
      // Marks are a help, not the text: the next revision tries again.
    }
  }

  private apply(): void {
    const editor = this.editor()
    if (this.destroyed || !editor) return
    const marks: EditorHighlight[] = []
    for (const change of this.changes) {
      const title = `${change.principal} (AI) · ${new Date(change.at).toLocaleString()} · ${change.revision}`
      for (const range of editor.rangesOfItems(change.inserted)) marks.push({ ...range, className: 'ai-change', title })
    }
    const text = this.ydoc.getText('source')
    const source = text.toString()
    for (const anchor of this.anchors) {
      const start = Y.createAbsolutePositionFromRelativePosition(anchor.start, this.ydoc)
      const end = Y.createAbsolutePositionFromRelativePosition(anchor.end, this.ydoc)
      if (!start || !end || start.type !== text || end.type !== text || end.index <= start.index) continue
      const range = editor.rangeOfSource(source, start.index, end.index)
      if (range) marks.push({ ...range, className: `comment-anchor${anchor.id === this.activeComment ? ' active' : ''}`, title: anchor.title })
    }
    editor.setHighlights(marks)
  }
}
