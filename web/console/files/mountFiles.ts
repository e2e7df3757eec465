import type { ConsoleTab } from '../../../adapters/http/consoleApi.js'
import { h } from '../dom.js'
import type { Shell } from '../shell.js'
import { FilesApi } from './filesApi.js'
import { FileTree } from './fileTree.js'
import { TabActions } from './tabActions.js'

export interface FilesHost {
  window(): string
  activeTab(): ConsoleTab | null
  /** What the editor showing this tab holds now (a base64 Yjs state vector), null when none here shows it. */
  editorState(tabId: string): string | null
  refresh(): void
}

export interface MountedFiles {
  readonly tree: FileTree
  readonly actions: TabActions
}

/**
 * The console as the person's editor, added in one place: the file tree left of the editor, New / Save / Save as in
 * the top bar (Ctrl/⌘+S saves, Shift too saves as), and a line under the tab strip for what went wrong. The tab
 * strip's close buttons call `actions.close`.
 */
export function mountFiles(shell: Pick<Shell, 'modeSwitch' | 'tabStrip' | 'editorHost'>, host: FilesHost): MountedFiles {
  const api = new FilesApi()
  const error = h('div', { className: 'files-message', attrs: { role: 'alert', hidden: '' } })
  const report = (message: string | null) => {
    error.hidden = message === null
    error.textContent = message ?? ''
  }
  const tree = new FileTree(api, {
    window: host.window,
    activePath: () => host.activeTab()?.path ?? null,
    refresh: host.refresh,
  })
  const actions = new TabActions(api, {
    window: host.window,
    activeTab: host.activeTab,
    editorState: host.editorState,
    suggestedFolder: () => tree.firstRoot(),
    refresh: host.refresh,
    report,
  })
  const button = (className: string, text: string, title: string, onClick: () => void) =>
    h('button', { className: `file-action ${className}`, text, title, attrs: { type: 'button' }, onClick })
  const group = h(
    'div',
    { className: 'file-actions', attrs: { role: 'group', 'aria-label': 'File' } },
    button('file-new', 'New', 'A new untitled document', () => void actions.newDocument()),
    button('file-save', 'Save', 'Save (Ctrl+S)', () => void actions.save()),
    button('file-save-as', 'Save as…', 'Save to a new file (Ctrl+Shift+S)', () => void actions.saveAs()),
  )
  shell.modeSwitch.parentElement?.querySelector('.spacer')?.before(group)
  shell.tabStrip.after(error)
  const main = shell.editorHost.closest('.main')
  main?.before(tree.element)
  tree.start()
  return { tree, actions }
}
