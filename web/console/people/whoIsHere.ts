import type { ConsolePresence, PresenceAssistant, PresenceEditor } from '../../../adapters/http/consolePresenceApi.js'
import { h } from '../dom.js'
import { consoleRequest } from '../request.js'

const POLL_MS = 1000

/** "12 s ago", "3 min ago", or the time of day for anything older than an hour. */
export function ago(at: number, now: number): string {
  const seconds = Math.max(0, Math.round((now - at) / 1000))
  if (seconds < 60) return `${seconds} s ago`
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`
  return new Date(at).toLocaleTimeString()
}

/**
 * Who is here, under the file tree: the assistants connected now (agent, connection, since when, the tab each last
 * read or wrote, and when), and the person's editors in every window, this page marked. Polled every second.
 */
export class WhoIsHere {
  readonly element = h('section', { className: 'who', attrs: { 'aria-label': 'Who is here' } })
  private rendered = ''

  constructor(
    private readonly ownClientId: () => number | null,
    /** Shows another window of the person's in this page (a click on its row). */
    private readonly showWindow: (label: string) => void,
  ) {}

  start(): void {
    void this.poll()
  }

  private async poll(): Promise<void> {
    // Signed out: the page replaced the console, and nothing is left to show.
    if (this.rendered !== '' && !this.element.isConnected) return
    try {
      this.render(await consoleRequest<ConsolePresence>('GET', '/console/api/presence'))
    } catch {
      // The console's own poll reports an unreachable daemon or a lost session.
    }
    setTimeout(() => void this.poll(), POLL_MS)
  }

  private render(presence: ConsolePresence): void {
    const own = this.ownClientId()
    // Second-granular, so "12 s ago" moves on while nothing else changes.
    const key = JSON.stringify([presence.assistants, presence.editors, own, Math.floor(presence.now / 1000)])
    if (key === this.rendered) return
    this.rendered = key
    const assistants = presence.assistants.map((assistant) => this.assistantRow(assistant, presence.now))
    const editors = presence.editors.map((editor) => this.editorRow(editor, editor.clientId === own))
    this.element.replaceChildren(
      h('h2', { className: 'who-heading', text: 'Assistants' }),
      ...(assistants.length > 0 ? assistants : [h('p', { className: 'who-empty', text: 'No assistant is connected.' })]),
      h('h2', { className: 'who-heading', text: 'Your windows' }),
      ...(editors.length > 0 ? editors : [h('p', { className: 'who-empty', text: 'No editor is open.' })]),
    )
  }

  private assistantRow(assistant: PresenceAssistant, now: number): HTMLElement {
    const name = assistant.principal ?? 'you (person token)'
    const last = assistant.lastTab
    return h(
      'div',
      { className: 'who-assistant', attrs: { 'data-connection': assistant.connection, 'data-principal': assistant.principal ?? '' } },
      h('div', { className: 'who-line' }, h('span', { className: 'who-name', text: name }), h('span', { className: 'who-conn', text: assistant.connection })),
      h('div', { className: 'who-detail', text: `connected ${ago(assistant.since, now)}` }),
      ...(last
        ? [h('div', { className: `who-detail who-last op-${last.op}`, attrs: { 'data-tab-id': last.tabId }, text: `${last.op === 'write' ? 'wrote' : 'read'} ${last.title}${last.open ? '' : ' (closed)'} · ${ago(last.at, now)}` })]
        : assistant.lastCall
          ? [h('div', { className: 'who-detail', text: `${assistant.lastCall.name} · ${ago(assistant.lastCall.at, now)}` })]
          : []),
    )
  }

  private editorRow(editor: PresenceEditor, self: boolean): HTMLElement {
    return h(
      'button',
      {
        className: `who-editor${self ? ' self' : ''}`,
        title: self ? 'This page' : `Show window ${editor.window} here`,
        attrs: { type: 'button', 'data-window': editor.window, 'data-tab-id': editor.tab.tabId },
        onClick: () => this.showWindow(editor.window),
      },
      h('span', { className: 'who-name', text: editor.window }),
      h('span', { className: 'who-detail', text: ` ${editor.tab.title} · ${editor.mode === 'wysiwyg' ? 'WYSIWYG' : 'source'}${editor.focused ? ' · focused' : ''}${self ? ' · this page' : ''}` }),
    )
  }
}
