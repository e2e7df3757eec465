import type { HistoryDiff, HistoryItem, HistoryRestorePreview, HistoryView } from '../../../adapters/http/consoleHistoryApi.js'
import { h } from '../dom.js'
import type { ReviewApi } from '../review/reviewApi.js'
import { renderDiff } from './diffView.js'
import { renderEntry } from './historyEntry.js'
import type { HistoryApi } from './historyApi.js'
import { renderRestoreConfirm, renderRestoreDone } from './restoreConfirm.js'

const POLL_MS = 1000

/**
 * The History sidebar of the open document: its entries newest first (saves, `(mcp)` saves, AI writes with what each
 * changed and Keep / Undo / Redo, restores, review marks, keeps and undos, the person's own editing sessions), a diff
 * of any two picked entries, "Restore this revision" on each (which first says what it would take out and asks, then
 * offers "Undo restore"), and "Mark all reviewed" with the unreviewed count. It polls while open, and re-renders only
 * when the history changed, so a poll never undoes the person's picks.
 */
export class HistorySidebar {
  readonly element = h('aside', { className: 'history-sidebar', attrs: { hidden: '', 'aria-label': 'History' } })
  private view: HistoryView | null = null
  private docId: string | null = null
  /** Positions of the picked entries (at most two, oldest pick first). */
  private picked: number[] = []
  private diff: HistoryDiff | null = null
  private error = ''
  private rendered = ''
  private timer: ReturnType<typeof setTimeout> | undefined
  /** The restore the person asked for, waiting for their answer, with what it would take out. */
  private confirming: HistoryRestorePreview | null = null
  /** The last restore made here, which "Undo restore" undoes. */
  private restored: { readonly revision: string; readonly change?: string; readonly undone: boolean } | null = null

  constructor(
    private readonly api: HistoryApi,
    private readonly review: ReviewApi,
    /** The document the console shows now, or null. */
    private readonly currentDoc: () => string | null,
  ) {}

  get isOpen(): boolean {
    return !this.element.hidden
  }

  toggle(): void {
    this.element.hidden = !this.element.hidden
    clearTimeout(this.timer)
    if (this.isOpen) void this.poll()
  }

  private async poll(): Promise<void> {
    if (!this.isOpen || !this.element.isConnected) return
    await this.refresh()
    this.timer = setTimeout(() => void this.poll(), POLL_MS)
  }

  private async refresh(): Promise<void> {
    const docId = this.currentDoc()
    if (docId !== this.docId) {
      this.docId = docId
      this.view = null
      this.picked = []
      this.diff = null
      this.error = ''
      this.confirming = null
      this.restored = null
    }
    if (docId === null) return this.render()
    try {
      const view = await this.api.history(docId)
      if (this.docId === docId) this.view = view
    } catch (failure) {
      this.error = messageOf(failure)
    }
    this.render()
  }

  private render(force = false): void {
    const key = JSON.stringify([this.docId, this.view, this.picked, this.diff?.from, this.diff?.to, this.error, this.confirming, this.restored])
    if (!force && key === this.rendered) return
    this.rendered = key
    const view = this.view
    const heading = h('h2', { className: 'history-title', text: 'History' })
    if (this.docId === null || view === null) {
      this.element.replaceChildren(heading, h('p', { className: 'history-empty', text: this.docId === null ? 'No document is open.' : 'Loading…' }))
      return
    }
    const review = h('button', {
      className: 'history-review primary',
      text: view.unreviewed === 0 ? 'All reviewed' : `Mark all reviewed (${view.unreviewed})`,
      attrs: { type: 'button', 'data-unreviewed': String(view.unreviewed) },
      onClick: () => void this.act(() => this.api.markReviewed(view.docId, view.revision).then((next) => void (this.view = next))),
    })
    review.disabled = view.unreviewed === 0
    const backlog = h('p', {
      className: `history-backlog${view.unreviewed >= view.limit ? ' full' : ''}`,
      text: `${view.unreviewed} unreviewed AI change${view.unreviewed === 1 ? '' : 's'} (assistants are refused at ${view.limit})`,
    })
    const list = h(
      'ol',
      { className: 'history-list' },
      ...view.entries.map((entry) =>
        renderEntry(entry, {
          selected: this.picked.includes(entry.position),
          current: entry.revision === view.revision,
          onSelect: (selected) => void this.pick(entry, selected),
          onRestore: () => void this.askRestore(view, entry.revision),
          onReview: (action, change) => void this.act(() => this.review.act(view.docId, action, change).then(() => this.reload(view.docId))),
        }),
      ),
    )
    const hint = h('p', { className: 'history-hint', text: this.picked.length < 2 ? 'Pick two entries to compare their revisions.' : '' })
    const error = h('p', { className: 'history-error', text: this.error, attrs: { role: 'alert' } })
    error.hidden = this.error === ''
    const diff = this.diff ? renderDiff(this.diff, () => this.clearPicks()) : null
    const asking = this.confirming ? [renderRestoreConfirm(this.confirming, () => void this.restore(view, this.confirming!.revision), () => this.cancelRestore())] : []
    const restored = this.restored ? [renderRestoreDone(this.restored, () => void this.undoRestore(view.docId), () => this.dismissRestored())] : []
    this.element.replaceChildren(heading, backlog, review, error, ...restored, ...asking, hint, ...(diff ? [diff] : []), list)
  }

  /** "Restore this revision": first what it would take out, and the question. */
  private async askRestore(view: HistoryView, revision: string): Promise<void> {
    this.restored = null
    await this.act(async () => {
      this.confirming = await this.api.restorePreview(view.docId, revision)
    })
    this.element.querySelector('.restore-confirm')?.scrollIntoView({ block: 'nearest' })
  }

  private cancelRestore(): void {
    this.confirming = null
    this.render()
  }

  /** The person said yes: restored as a new change, checked against the revision the question showed. */
  private async restore(view: HistoryView, revision: string): Promise<void> {
    const expected = this.confirming?.current ?? view.revision
    this.confirming = null
    await this.act(async () => {
      const answer = await this.api.restore(view.docId, revision, expected)
      this.view = answer.history
      this.restored = { revision, ...(answer.change === undefined ? {} : { change: answer.change }), undone: false }
    })
  }

  private async undoRestore(docId: string): Promise<void> {
    const restored = this.restored
    if (!restored?.change) return
    await this.act(async () => {
      await this.review.act(docId, 'undo', restored.change!)
      this.restored = { ...restored, undone: true }
      await this.reload(docId)
    })
  }

  private dismissRestored(): void {
    this.restored = null
    this.render()
  }

  private async reload(docId: string): Promise<void> {
    const view = await this.api.history(docId)
    if (this.docId === docId) this.view = view
  }

  private async pick(entry: HistoryItem, selected: boolean): Promise<void> {
    this.picked = this.picked.filter((position) => position !== entry.position)
    if (selected) this.picked = [...this.picked, entry.position].slice(-2)
    this.diff = null
    this.render()
    const view = this.view
    if (!view || this.picked.length < 2) return
    const [a, b] = this.picked.map((position) => view.entries.find((candidate) => candidate.position === position)!)
    const [older, newer] = a!.position < b!.position ? [a!, b!] : [b!, a!]
    await this.act(async () => {
      this.diff = await this.api.diff(view.docId, older.revision, newer.revision)
    })
  }

  private clearPicks(): void {
    this.picked = []
    this.diff = null
    this.render()
  }

  /** Runs a request, shows its failure (a STALE restore: the document changed, look again), then refreshes. */
  private async act(request: () => Promise<void>): Promise<void> {
    this.error = ''
    try {
      await request()
    } catch (failure) {
      this.error = messageOf(failure)
    }
    this.render()
  }
}

const messageOf = (failure: unknown): string => (failure instanceof Error ? failure.message : String(failure))
