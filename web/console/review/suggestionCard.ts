import type { ReviewChange } from '../../../adapters/http/consoleReviewApi.js'
import { h } from '../dom.js'
import type { DocumentSession } from '../documentSession.js'
import type { ReviewActions } from './reviewActions.js'
import { changeTitle } from './suggestionMarks.js'

/**
 * The card a suggestion opens when the person clicks it in the editor (its inserted text or its struck-through
 * deletion): who made the change and when, what this hunk changed, Keep and Undo for the hunk, and for the whole
 * change when it has more than one pending hunk. It closes on Escape, on a click elsewhere, and once the person acts.
 */
export function showSuggestionCards(host: HTMLElement, session: () => DocumentSession | null, actions: ReviewActions): void {
  const card = h('div', { className: 'suggestion-card', attrs: { role: 'dialog', 'aria-label': 'AI suggestion', hidden: '' } })
  ;(host.closest('.app') ?? document.body).append(card)
  const close = () => {
    card.hidden = true
  }
  host.addEventListener('click', (event) => {
    const mark = (event.target as HTMLElement | null)?.closest<HTMLElement>('[data-change][data-hunk]') ?? null
    const open = session()
    const change = mark && open?.highlights.pending?.changes.find((candidate) => candidate.id === mark.dataset.change)
    const hunk = change?.hunks.find((candidate) => String(candidate.index) === mark?.dataset.hunk)
    if (!mark || !open || !change || !hunk) return close()
    const docId = open.tab.docId
    const act = (action: 'keep' | 'undo', hunks?: number[]) => {
      close()
      void actions.act(docId, action, change.id, hunks)
    }
    card.replaceChildren(
      h('div', { className: 'suggestion-who', text: changeTitle(change) }),
      h('div', { className: 'suggestion-what', text: hunk.summary }),
      h(
        'div',
        { className: 'suggestion-actions' },
        h('button', { className: 'suggestion-keep primary', text: 'Keep', attrs: { type: 'button' }, onClick: () => act('keep', [hunk.index]) }),
        h('button', { className: 'suggestion-undo', text: 'Undo', attrs: { type: 'button' }, title: 'Undo this part of the change; your own typing stays', onClick: () => act('undo', [hunk.index]) }),
        ...(pendingHunks(change) > 1
          ? [
              h('button', { className: 'suggestion-keep-change', text: 'Keep whole change', attrs: { type: 'button' }, onClick: () => act('keep') }),
              h('button', { className: 'suggestion-undo-change', text: 'Undo whole change', attrs: { type: 'button' }, onClick: () => act('undo') }),
            ]
          : []),
      ),
    )
    const rect = mark.getBoundingClientRect()
    card.style.left = `${Math.round(Math.min(rect.left, window.innerWidth - 340))}px`
    card.style.top = `${Math.round(rect.bottom + 8)}px`
    card.hidden = false
    // The hover card would sit under it, saying less.
    for (const tip of document.querySelectorAll<HTMLElement>('.mark-tip')) tip.hidden = true
  })
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') close()
  })
  document.addEventListener('mousedown', (event) => {
    const target = event.target as HTMLElement | null
    if (!card.contains(target) && !target?.closest('[data-change][data-hunk]')) close()
  })
  host.addEventListener('scroll', close, true)
}

const pendingHunks = (change: ReviewChange): number => change.hunks.filter((hunk) => hunk.state === 'pending').length
