import { h } from '../dom.js'
import type { DocumentSession } from '../documentSession.js'
import type { Shell } from '../shell.js'
import { CommentsApi } from './commentsApi.js'
import { CommentsSidebar } from './commentsSidebar.js'

/**
 * Adds review comments to the console in one place: a "Comments" toggle in the top bar (next to History), the
 * sidebar beside the editor (a column of the console's body like History's, so the two never overlap), and
 * Mod-Alt-m, which comments on the editor's selection. Touches nothing else of the shell.
 */
export function mountComments(shell: Pick<Shell, 'modeSwitch' | 'editorHost'>, currentSession: () => DocumentSession | null): void {
  const sidebar = new CommentsSidebar(new CommentsApi(), currentSession)
  const pressed = () => toggle.setAttribute('aria-pressed', String(sidebar.isOpen))
  const toggle = h('button', {
    className: 'comments-toggle',
    text: 'Comments',
    attrs: { type: 'button', 'aria-pressed': 'false', 'aria-controls': 'comments-sidebar' },
    onClick: () => {
      sidebar.toggle()
      pressed()
    },
  })
  sidebar.element.id = 'comments-sidebar'
  // Right of History's toggle when it is there (History inserts itself just before the mode switch).
  shell.modeSwitch.before(toggle)
  const main = shell.editorHost.closest('.main')
  if (main) main.after(sidebar.element)
  else shell.editorHost.after(sidebar.element)

  // Capture phase, so an editor's own keymap never swallows it; `code`, since Alt changes `key` on macOS.
  document.addEventListener(
    'keydown',
    (event) => {
      if (!toggle.isConnected || !(event.ctrlKey || event.metaKey) || !event.altKey || event.code !== 'KeyM') return
      event.preventDefault()
      event.stopPropagation()
      sidebar.addComment()
      pressed()
    },
    true,
  )
}
