import type { DocumentChanges, ReviewChange } from '../../../adapters/http/consoleReviewApi.js'
import { h } from '../dom.js'
import type { ReviewActions } from './reviewActions.js'
import { changeTitle } from './suggestionMarks.js'

/**
 * The open document's pending AI changes, over the editor: how many, "Keep all", "Undo all by <assistant>" for each
 * assistant with one, and on request the list of changes, each hunk with what it deleted and inserted, with Keep and
 * Undo on each hunk and each change. Rebuilt only when the changes did, so a refresh never moves a button away
 * from the person's click.
 */
export class ReviewBar {
  readonly element = h('section', { className: 'review-bar', attrs: { hidden: '', 'aria-label': 'AI changes to review' } })
  private readonly notice = h('p', { className: 'review-notice', attrs: { role: 'status', hidden: '' } })
  private expanded = false
  private rendered = ''
  private current: DocumentChanges | null = null

  constructor(private readonly actions: ReviewActions) {
    actions.onActed((message) => {
      this.notice.hidden = message === ''
      this.notice.textContent = message
    })
  }

  /** Shows the pending changes of the open document (null: none is open). */
  update(changes: DocumentChanges | null): void {
    const key = JSON.stringify([changes?.docId, changes?.revision, changes?.changes.map((change) => [change.id, change.hunks.map((hunk) => hunk.state)]), this.expanded])
    if (key === this.rendered) return
    this.rendered = key
    if (changes?.docId !== this.current?.docId) this.notice.hidden = true
    this.current = changes
    const pending = changes?.changes ?? []
    this.element.hidden = pending.length === 0
    if (!changes || pending.length === 0) {
      this.element.replaceChildren(this.notice)
      return
    }
    const docId = changes.docId
    const agents = [...new Set(pending.map((change) => change.agent))]
    const summary = h(
      'div',
      { className: 'review-summary-line' },
      h('span', { className: 'review-count', text: `${pending.length} AI change${pending.length === 1 ? '' : 's'} to review` }),
      button('review-keep-all', 'Keep all', () => void this.actions.keepAll(docId, changes.revision), 'Keep every change shown here'),
      ...agents.map((agent) => {
        const undo = button('review-undo-by', `Undo all by ${agent}`, () => void this.actions.undoBy(docId, agent), `Undo every pending change ${agent} made here; your own typing stays`)
        undo.dataset.agent = agent
        return undo
      }),
      button('review-show', this.expanded ? 'Hide changes' : 'Show changes', () => {
        this.expanded = !this.expanded
        this.update(this.current)
      }),
    )
    const list = this.expanded ? [h('ol', { className: 'review-changes' }, ...pending.map((change) => this.changeItem(docId, change)))] : []
    this.element.replaceChildren(summary, this.notice, ...list)
  }

  private changeItem(docId: string, change: ReviewChange): HTMLElement {
    const hunks = change.hunks.filter((hunk) => hunk.state === 'pending')
    return h(
      'li',
      { className: 'review-change', attrs: { 'data-change': change.id } },
      h(
        'div',
        { className: 'review-change-head' },
        h('span', { className: 'review-who', text: changeTitle(change) }),
        button('review-keep-change', 'Keep', () => void this.actions.act(docId, 'keep', change.id), 'Keep this whole change'),
        button('review-undo-change', 'Undo', () => void this.actions.act(docId, 'undo', change.id), 'Undo this whole change; your own typing inside it stays'),
      ),
      h(
        'ol',
        { className: 'review-hunks' },
        ...hunks.map((hunk) =>
          h(
            'li',
            { className: 'review-hunk', attrs: { 'data-hunk': String(hunk.index) } },
            h('span', { className: 'review-hunk-text' }, ...(hunk.deleted ? [h('del', { text: hunk.deleted })] : []), ...(hunk.inserted ? [h('ins', { text: hunk.inserted })] : [])),
            button('review-keep', 'Keep', () => void this.actions.act(docId, 'keep', change.id, [hunk.index])),
            button('review-undo', 'Undo', () => void this.actions.act(docId, 'undo', change.id, [hunk.index])),
          ),
        ),
      ),
    )
  }
}

function button(className: string, text: string, onClick: () => void, title?: string): HTMLButtonElement {
  return h('button', { className, text, attrs: { type: 'button' }, onClick, ...(title === undefined ? {} : { title }) })
}
