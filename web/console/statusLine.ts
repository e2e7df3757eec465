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
    parts.push(h('span', { className: 'status-item path', text: status.tab.path ?? 'untitled' }))
  }
  line.replaceChildren(...parts)
}
