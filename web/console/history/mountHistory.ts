import { h } from '../dom.js'
import type { Shell } from '../shell.js'
import { ReviewApi } from '../review/reviewApi.js'
import { HistoryApi } from './historyApi.js'
import { HistorySidebar } from './historySidebar.js'

/**
 * Adds document history to the console in one place: a "History" toggle in the top bar and the sidebar to the right
 * of the editor, for whichever document the console shows (`currentDoc`). Touches nothing else of the shell.
 */
export function mountHistory(shell: Pick<Shell, 'modeSwitch' | 'editorHost'>, currentDoc: () => string | null): void {
  const sidebar = new HistorySidebar(new HistoryApi(), new ReviewApi(), currentDoc)
  const toggle = h('button', {
    className: 'history-toggle',
    text: 'History',
    attrs: { type: 'button', 'aria-pressed': 'false', 'aria-controls': 'history-sidebar' },
    onClick: () => {
      sidebar.toggle()
      toggle.setAttribute('aria-pressed', String(sidebar.isOpen))
    },
  })
  sidebar.element.id = 'history-sidebar'
  shell.modeSwitch.before(toggle)
  // Beside the editor's column, inside the console's body, so signing out takes it away with the rest.
  const main = shell.editorHost.closest('.main')
  if (main) main.after(sidebar.element)
  else shell.editorHost.after(sidebar.element)
}
