import type { ConsoleTab } from '../../../adapters/http/consoleApi.js'
import { ask } from './dialog.js'
import type { FilesApi } from './filesApi.js'

export interface TabActionsHost {
  window(): string
  /** The tab the window shows. */
  activeTab(): ConsoleTab | null
  /** What the editor showing this tab holds now (a base64 Yjs state vector), null when no editor here shows it. */
  editorState(tabId: string): string | null
  /** A folder to suggest for an untitled document's first save (the first workspace). */
  suggestedFolder(): string | null
  refresh(): void
  report(message: string | null): void
}

/**
 * A tab's commands as the person gives them: new, save (Ctrl/⌘+S), save as, close. Closing asks the questions the
 * tool answers with: DIRTY (save first, or discard) and DIVERGENT (the file changed on disk: close without saving,
 * or keep the tab); PINNED is said, not asked. An untitled document's save is a save as.
 */
export class TabActions {
  constructor(
    private readonly api: FilesApi,
    private readonly host: TabActionsHost,
  ) {
    document.addEventListener('keydown', (event) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 's') {
        // While a question is open, the answer comes first.
        if (document.querySelector('.dialog-backdrop')) return event.preventDefault()
        // The browser's own "save page" is never what the person means here.
        event.preventDefault()
        void (event.shiftKey ? this.saveAs() : this.save())
      }
    })
  }

  async newDocument(): Promise<void> {
    await this.attempt(async () => {
      await this.api.newTab(this.host.window())
      this.host.refresh()
    })
  }

  async save(tab = this.host.activeTab()): Promise<boolean> {
    if (!tab) return false
    if (tab.path === null) return this.saveAs(tab)
    return this.attempt(async () => {
      await this.api.save(tab.tabId, this.host.editorState(tab.tabId))
      this.host.refresh()
    })
  }

  async saveAs(tab = this.host.activeTab()): Promise<boolean> {
    if (!tab) return false
    const folder = tab.path ? tab.path.slice(0, tab.path.lastIndexOf('/')) : this.host.suggestedFolder()
    const name = tab.path ? tab.path.slice(tab.path.lastIndexOf('/') + 1) : `${tab.title}${tab.kind === 'yaml-workflow' ? '.yml' : '.md'}`
    const answer = await ask({
      title: 'Save as',
      message: 'Save to a new file (never over an existing one).',
      input: { label: 'Path', value: folder ? `${folder}/${name}` : name },
      choices: [{ value: 'save', label: 'Save', primary: true }],
    })
    if (answer.choice !== 'save' || answer.text.trim() === '') return false
    return this.attempt(async () => {
      await this.api.saveAs(tab.tabId, answer.text.trim(), this.host.editorState(tab.tabId))
      this.host.refresh()
    })
  }

  async close(tab: ConsoleTab): Promise<void> {
    await this.attempt(async () => {
      const outcome = await this.api.close(tab.tabId, false)
      if (outcome.closed) return this.host.refresh()
      if (outcome.reason === 'PINNED') return this.host.report(`${tab.title} is pinned; unpin it to close it.`)
      if (outcome.reason === 'DIRTY') {
        const answer = await ask({
          title: 'Unsaved changes',
          message: `${tab.title} has changes that are not saved.`,
          choices: [
            { value: 'save', label: 'Save and close', primary: true },
            { value: 'discard', label: 'Close without saving' },
          ],
        })
        if (answer.choice === 'cancel') return
        if (answer.choice === 'save' && !(await this.save(tab))) return
        const closed = await this.api.close(tab.tabId, answer.choice === 'discard')
        if (!closed.closed) this.host.report(`${tab.title} was not closed (${closed.reason}).`)
        return this.host.refresh()
      }
      const answer = await ask({
        title: 'Changed on disk',
        message: `${tab.path ?? tab.title} was changed by another program while this tab has unsaved changes. Closing now drops the tab's version; the file keeps the other program's.`,
        choices: [{ value: 'discard', label: 'Close, keep the file on disk' }],
      })
      if (answer.choice !== 'discard') return
      await this.api.close(tab.tabId, true)
      this.host.refresh()
    })
  }

  private async attempt(action: () => Promise<void>): Promise<boolean> {
    this.host.report(null)
    try {
      await action()
      return true
    } catch (failure) {
      this.host.report(failure instanceof Error ? failure.message : String(failure))
      return false
    }
  }
}
