import type { HistoryDiff, HistoryItem, HistoryView } from '../../../adapters/http/consoleHistoryApi.js'
import { h } from '../dom.js'
import { renderDiff } from './diffView.js'
import { renderEntry } from './historyEntry.js'
import type { HistoryApi } from './historyApi.js'

const POLL_MS = 1000

/**
 * The History sidebar of the open document: its entries newest first (saves, `(mcp)` saves, AI writes, restores,
 * review marks), a diff of any two picked entries, "Restore this revision" on each, and "Mark all reviewed" with
 * the unreviewed count. It polls while open, and re-renders only when the history changed, so a poll never undoes
 * the person's picks.
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

  constructor(
    private readonly api: HistoryApi,
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
    const key = JSON.stringify([this.docId, this.view, this.picked, this.diff?.from, this.diff?.to, this.error])
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
          onRestore: () => void this.act(() => this.api.restore(view.docId, entry.revision, view.revision).then((answer) => void (this.view = answer.history))),
        }),
      ),
    )
    const hint = h('p', { className: 'history-hint', text: this.picked.length < 2 ? 'Pick two entries to compare their revisions.' : '' })
    const error = h('p', { className: 'history-error', text: this.error, attrs: { role: 'alert' } })
    error.hidden = this.error === ''
    const diff = this.diff ? renderDiff(this.diff, () => this.clearPicks()) : null
    this.element.replaceChildren(heading, backlog, review, error, hint, ...(diff ? [diff] : []), list)
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
