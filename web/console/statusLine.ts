import type { ConsoleTab } from '../../adapters/http/consoleApi.js'
import type { ConnectionState } from './documentSession.js'
import { h } from './dom.js'

export interface StatusView {
  /** The state API answered on the last poll. */
  readonly apiReachable: boolean
  /** The open document's connection, if a document is open. */
  readonly connection: ConnectionState | null
  readonly tab: ConsoleTab | null
}

/** The status line: the collaboration connection, and the open tab's revision and dirty flag (from the state API). */
export function renderStatus(line: HTMLElement, status: StatusView): void {
  const parts: Node[] = []
  if (!status.apiReachable) parts.push(h('span', { className: 'status-item offline', text: 'daemon unreachable' }))
  if (status.connection) {
    parts.push(h('span', { className: `status-item conn-${status.connection}`, text: status.connection, attrs: { 'data-status': 'connection' } }))
  }
  if (status.tab) {
    parts.push(h('span', { className: 'status-item', text: status.tab.revision ?? '—', attrs: { 'data-status': 'revision' } }))
    parts.push(h('span', { className: 'status-item', text: status.tab.dirty ? 'unsaved' : 'saved', attrs: { 'data-status': 'dirty' } }))
    if (status.tab.assistantChangeUnsaved) {
      parts.push(h('span', {
        className: 'status-item assistant-unsaved',
        text: 'an assistant\'s change is applied, not saved: save to write it with your edits',
        attrs: { 'data-status': 'assistant-unsaved', title: 'Assistants do not save your unsaved typing for you; saving writes everything in this tab.' },
      }))
    }
    parts.push(h('span', { className: 'status-item path', text: status.tab.path ?? 'untitled' }))
  }
  line.replaceChildren(...parts)
}
