import type { ConsoleComments } from '../../../adapters/http/consoleCommentsApi.js'
import { h } from '../dom.js'
import type { DocumentSession } from '../documentSession.js'
import type { CommentDecision, CommentsApi } from './commentsApi.js'
import { renderThread } from './threadView.js'

const POLL_MS = 1000

/** A range of the source text the person picked to comment on, with the text it covers (shown while writing). */
interface Draft {
  readonly docId: string
  readonly from: number
  readonly to: number
  readonly quote: string
}

/**
 * The Comments sidebar of the open document: its threads oldest first (state, quoted text, replies, the person's
 * decisions) and "Add comment" on the editor's selection. It polls while open, and re-renders only when the
 * threads changed, keeping whatever the person is typing in a reply box across a re-render.
 *
 * A thread anchors to a range of `source`: the source editor's selection is one already, and a WYSIWYG selection is
 * placed in the Markdown by `sourceRangeOf` (exact for plain text, widened to its block across markup).
 */
export class CommentsSidebar {
  readonly element = h('aside', { className: 'comments-sidebar', attrs: { hidden: '', 'aria-label': 'Comments' } })
  private view: ConsoleComments | null = null
  private docId: string | null = null
  private draft: Draft | null = null
  private error = ''
  private rendered = ''
  private timer: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly api: CommentsApi,
    /** The document session the console shows now, or null. */
    private readonly currentSession: () => DocumentSession | null,
  ) {}

  get isOpen(): boolean {
    return !this.element.hidden
  }

  toggle(open = !this.isOpen): void {
    this.element.hidden = !open
    clearTimeout(this.timer)
    if (this.isOpen) void this.poll()
    else this.currentSession()?.highlights.setComments([])
  }

  /**
   * Starts a comment on the editor's current selection (the button and Mod-Alt-m): opens the sidebar with a box
   * for the comment under the quoted text, or says why it cannot (no selection, an editor still syncing).
   */
  addComment(): void {
    const session = this.currentSession()
    const editor = session?.mountedEditor
    this.error = ''
    if (!session || !editor) this.error = 'Open a document to comment on it.'
    else {
      const source = session.ydoc.getText('source').toString()
      const range = editor.selectionInSource(source)
      if (!range) this.error = 'The editor is still catching up with the document; try again in a moment.'
      else if (range.from === range.to) this.error = 'Select the text to comment on first.'
      else this.draft = { docId: session.tab.docId, from: range.from, to: range.to, quote: source.slice(range.from, range.to) }
    }
    if (!this.isOpen) this.toggle(true)
    this.render(true)
    this.element.querySelector<HTMLTextAreaElement>('.comment-new-input')?.focus()
  }

  private async poll(): Promise<void> {
    if (!this.isOpen || !this.element.isConnected) return
    await this.refresh()
    this.timer = setTimeout(() => void this.poll(), POLL_MS)
  }

  private async refresh(): Promise<void> {
    const docId = this.currentSession()?.tab.docId ?? null
    if (docId !== this.docId) {
      this.docId = docId
      this.view = null
      if (this.draft?.docId !== docId) this.draft = null
    }
    if (docId === null) return this.render()
    try {
      const view = await this.api.threads(docId)
      if (this.docId === docId) this.view = view
      // The open threads' anchors are marked in the editor while the sidebar shows them.
      const session = this.currentSession()
      if (this.isOpen && session?.tab.docId === docId) session.highlights.setComments(view.threads)
    } catch (failure) {
      this.error = messageOf(failure)
    }
    this.render()
  }

  private render(force = false): void {
    const key = JSON.stringify([this.docId, this.view, this.draft, this.error])
    if (!force && key === this.rendered) return
    this.rendered = key
    const typed = this.typedReplies()
    const heading = h('h2', { className: 'comments-title', text: 'Comments' })
    const add = h('button', {
      className: 'comments-add primary',
      text: 'Add comment',
      title: 'Comment on the selected text (Ctrl/⌘-Alt-M)',
      attrs: { type: 'button' },
      onClick: () => this.addComment(),
    })
    const error = h('p', { className: 'comments-error', text: this.error, attrs: { role: 'alert' } })
    error.hidden = this.error === ''
    const parts: HTMLElement[] = [heading, add, error]
    if (this.draft && this.draft.docId === this.docId) parts.push(this.renderDraft(this.draft))
    if (this.docId === null || this.view === null) {
      parts.push(h('p', { className: 'comments-empty', text: this.docId === null ? 'No document is open.' : 'Loading…' }))
    } else if (this.view.threads.length === 0) {
      parts.push(h('p', { className: 'comments-empty', text: 'No comments yet. Select text and add one.' }))
    } else {
      const docId = this.docId
      parts.push(
        h(
          'ol',
          { className: 'comments-list' },
          ...this.view.threads.map((thread) =>
            renderThread(thread, {
              onReply: (body) =>
                void this.act(async () => {
                  const answer = await this.api.reply(docId, thread.id, body)
                  this.clearReply(thread.id)
                  return answer
                }),
              onDecide: (decision: CommentDecision) => {
                if (decision === 'delete' && !confirm('Delete this comment thread?')) return
                void this.act(() => this.api.decide(docId, thread.id, decision))
              },
            }),
          ),
        ),
      )
    }
    this.element.replaceChildren(...parts)
    for (const thread of this.element.querySelectorAll<HTMLElement>('.comment-thread')) {
      const point = (id: string | null) => () => this.currentSession()?.highlights.setActiveComment(id)
      thread.addEventListener('mouseenter', point(thread.dataset.commentId ?? null))
      thread.addEventListener('mouseleave', point(null))
      thread.addEventListener('focusin', point(thread.dataset.commentId ?? null))
    }
    this.restoreReplies(typed)
  }

  private renderDraft(draft: Draft): HTMLElement {
    const input = h('textarea', { className: 'comment-new-input', attrs: { rows: '3', placeholder: 'Your comment…', 'aria-label': 'New comment' } })
    const submit = () => {
      const body = input.value.trim()
      if (body === '') return
      void this.act(async () => {
        this.view = await this.api.create(draft.docId, draft.from, draft.to, body)
        this.draft = null
      })
    }
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) submit()
    })
    return h(
      'div',
      { className: 'comment-new' },
      h('blockquote', { className: 'comment-quote', text: draft.quote }),
      input,
      h(
        'div',
        { className: 'comment-actions' },
        h('button', { className: 'comment-new-submit primary', text: 'Comment', attrs: { type: 'button' }, onClick: submit }),
        h('button', { className: 'comment-new-cancel', text: 'Cancel', attrs: { type: 'button' }, onClick: () => { this.draft = null; this.render() } }),
      ),
    )
  }

  /** Runs a request whose answer is the new list, shows its failure, then re-renders. */
  private async act(request: () => Promise<ConsoleComments | void>): Promise<void> {
    this.error = ''
    try {
      const answer = await request()
      if (answer) this.view = answer
    } catch (failure) {
      this.error = messageOf(failure)
    }
    this.render()
  }

  /** Empties a thread's reply box once its reply is recorded (before the re-render keeps what it holds). */
  private clearReply(commentId: string): void {
    for (const thread of this.element.querySelectorAll<HTMLElement>('.comment-thread')) {
      const input = thread.querySelector<HTMLTextAreaElement>('.comment-reply-input')
      if (thread.dataset.commentId === commentId && input) input.value = ''
    }
  }

  /** What the person has typed in reply boxes (and which box had focus), so a re-render does not lose it. */
  private typedReplies(): { readonly texts: Map<string, string>; readonly focused: string | null; readonly draft: string } {
    const texts = new Map<string, string>()
    let focused: string | null = null
    for (const input of this.element.querySelectorAll<HTMLTextAreaElement>('.comment-thread .comment-reply-input')) {
      const id = input.closest<HTMLElement>('.comment-thread')?.dataset.commentId
      if (!id) continue
      if (input.value !== '') texts.set(id, input.value)
      if (document.activeElement === input) focused = id
    }
    const draft = this.element.querySelector<HTMLTextAreaElement>('.comment-new-input')?.value ?? ''
    return { texts, focused, draft }
  }

  private restoreReplies(typed: ReturnType<CommentsSidebar['typedReplies']>): void {
    for (const input of this.element.querySelectorAll<HTMLTextAreaElement>('.comment-thread .comment-reply-input')) {
      const id = input.closest<HTMLElement>('.comment-thread')?.dataset.commentId
      if (!id) continue
      const text = typed.texts.get(id)
      if (text !== undefined) input.value = text
      if (typed.focused === id) input.focus()
    }
    const draft = this.element.querySelector<HTMLTextAreaElement>('.comment-new-input')
    if (draft && typed.draft !== '') draft.value = typed.draft
  }
}

const messageOf = (failure: unknown): string => (failure instanceof Error ? failure.message : String(failure))
