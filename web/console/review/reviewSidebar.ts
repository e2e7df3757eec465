import type { ReviewList, ReviewListItem } from '../../../adapters/http/consoleReviewApi.js'
import { h } from '../dom.js'
import type { ReviewActions } from './reviewActions.js'

/** How the Review list shows a document: the tab open on it. */
export interface ReviewNavigation {
  openTab(tabId: string): Promise<void>
}

/**
 * The Review list: every assistant's pending change on every open document, newest first, each with who made it, in
 * which document, when, and what it changed, with Open (the document in the editor, its suggestions shown), Keep and
 * Undo. A column beside the editor like History's; re-rendered only when the list changed.
 */
export class ReviewSidebar {
  readonly element = h('aside', { className: 'review-sidebar', attrs: { hidden: '', 'aria-label': 'Review' } })
  private rendered = ''

  constructor(
    private readonly actions: ReviewActions,
    private readonly navigation: ReviewNavigation,
  ) {}

  get isOpen(): boolean {
    return !this.element.hidden
  }

  update(list: ReviewList | null, error = ''): void {
    const key = JSON.stringify([list?.changes.map((change) => [change.id, change.docId, change.tabId, change.summary]), error])
    if (key === this.rendered) return
    this.rendered = key
    const changes = list?.changes ?? []
    this.element.replaceChildren(
      h('h2', { className: 'review-title', text: 'Review' }),
      ...(error ? [h('p', { className: 'review-error', text: error, attrs: { role: 'alert' } })] : []),
      list === null
        ? h('p', { className: 'review-empty', text: 'Loading…' })
        : changes.length === 0
          ? h('p', { className: 'review-empty', text: 'No AI change is waiting for your review.' })
          : h('ol', { className: 'review-items' }, ...changes.map((change) => this.item(change))),
    )
  }

  private item(change: ReviewListItem): HTMLElement {
    const open = h('button', { className: 'review-item-open', text: 'Open', attrs: { type: 'button' }, onClick: () => void this.navigation.openTab(change.tabId) })
    return h(
      'li',
      { className: 'review-item', attrs: { 'data-change': change.id, 'data-doc': change.docId } },
      h(
        'div',
        { className: 'review-item-head' },
        h('span', { className: 'review-item-agent', text: change.agent }),
        h('span', { className: 'review-item-in', text: 'in' }),
        h('span', { className: 'review-item-doc', text: change.title, title: change.path ?? change.title }),
        h('span', { className: 'review-item-when', text: new Date(change.at).toLocaleTimeString() }),
      ),
      h('div', { className: 'review-item-summary', text: change.summary }),
      h(
        'div',
        { className: 'review-item-actions' },
        open,
        h('button', { className: 'review-item-keep', text: 'Keep', attrs: { type: 'button' }, onClick: () => void this.actions.act(change.docId, 'keep', change.id) }),
        h('button', { className: 'review-item-undo', text: 'Undo', attrs: { type: 'button' }, onClick: () => void this.actions.act(change.docId, 'undo', change.id) }),
      ),
    )
  }
}
