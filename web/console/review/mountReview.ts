import type { ReviewList } from '../../../adapters/http/consoleReviewApi.js'
import { h } from '../dom.js'
import type { DocumentSession } from '../documentSession.js'
import { CHANGES_READ } from '../highlights/highlighter.js'
import type { Shell } from '../shell.js'
import { ReviewActions } from './reviewActions.js'
import { ReviewApi } from './reviewApi.js'
import { ReviewBar } from './reviewBar.js'
import { ReviewSidebar, type ReviewNavigation } from './reviewSidebar.js'
import { showSuggestionCards } from './suggestionCard.js'

const POLL_MS = 1000

export interface ReviewContext extends ReviewNavigation {
  /** The open document's session, or null. */
  session(): DocumentSession | null
  /**
   * Where the AI changes of every document open in a tab last moved, as the console's state last said (null before
   * the first answer): the list is read again when it changes, not at each keystroke.
   */
  changesKey(): string | null
}

/**
 * Adds the review of AI changes to the console in one place: the open document's review bar over the editor, the
 * card a suggestion opens in the editor, and the Review list (a "Review" toggle in the top bar, with a badge of
 * pending changes, and its column beside the editor). Touches nothing else of the shell.
 */
export function mountReview(shell: Pick<Shell, 'modeSwitch' | 'editorHost'>, context: ReviewContext): void {
  const api = new ReviewApi()
  const actions = new ReviewActions(api, () => context.session())
  const bar = new ReviewBar(actions)
  const sidebar = new ReviewSidebar(actions, context)
  const badge = h('span', { className: 'review-badge', attrs: { hidden: '', 'aria-label': 'pending AI changes' } })
  const toggle = h(
    'button',
    {
      className: 'review-toggle',
      text: 'Review ',
      attrs: { type: 'button', 'aria-pressed': 'false', 'aria-controls': 'review-sidebar' },
      onClick: () => {
        sidebar.element.hidden = !sidebar.element.hidden
        toggle.setAttribute('aria-pressed', String(sidebar.isOpen))
        if (sidebar.isOpen) void readList()
      },
    },
    badge,
  )
  sidebar.element.id = 'review-sidebar'
  shell.modeSwitch.before(toggle)
  shell.editorHost.before(bar.element)
  const main = shell.editorHost.closest('.main')
  if (main) main.after(sidebar.element)
  else shell.editorHost.after(sidebar.element)
  showSuggestionCards(shell.editorHost, () => context.session(), actions)

  const showBar = () => bar.update(context.session()?.highlights.pending ?? null)
  document.addEventListener(CHANGES_READ, showBar)

  let listedAt: string | null = null
  async function readList(): Promise<void> {
    let list: ReviewList | null = null
    let error = ''
    try {
      list = await api.list()
    } catch (failure) {
      error = failure instanceof Error ? failure.message : String(failure)
    }
    if (list) {
      badge.textContent = String(list.changes.length)
      badge.hidden = list.changes.length === 0
    }
    sidebar.update(list, error)
  }
  // What the person did here shows at once; what happened elsewhere, when a document's changes move.
  actions.onActed(() => void readList())

  async function poll(): Promise<void> {
    if (!toggle.isConnected) return // signed out: the console's root was replaced
    showBar()
    const key = context.changesKey()
    if (key !== null && key !== listedAt) {
      listedAt = key
      await readList()
    }
    setTimeout(() => void poll(), POLL_MS)
  }
  void poll()
}
