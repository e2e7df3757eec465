import type { PanelAgent, PanelAgentAdded } from '../../../adapters/http/consolePanelsApi.js'
import type { McpSessionListing } from '../../../adapters/http/mcpSessionListing.js'
import { h } from '../dom.js'

/**
 * The agents panel: the AI clients given their own token (by name, when), a form to add one, and revoke. Under each
 * agent, its MCP sessions open on the daemon now, each with an End button (what `quire agent end-session` does: that
 * client is cut off, the token stays live). A new token is shown once, right after it is issued, with a copy button:
 * the daemon keeps only its hash, so closing the panel loses it for good (add the agent again after revoking it).
 */
export class AgentsPanel {
  readonly element = h('section', { className: 'panel agents-panel', attrs: { 'aria-label': 'Agents' } })
  private readonly list = h('ul', { className: 'agent-list' })
  private readonly issued = h('div', { className: 'agent-issued' })
  /** What the list shows now, as JSON. */
  private shown = ''
  private readonly nameInput = h('input', { attrs: { type: 'text', id: 'agent-name', placeholder: 'claude', autocomplete: 'off', 'aria-label': 'Agent name' } })

  constructor(
    private readonly onAdd: (name: string) => void,
    private readonly onRevoke: (name: string) => void,
    private readonly onEndSession: (name: string, session: string) => void,
  ) {
    const form = h(
      'form',
      { className: 'agent-add' },
      h('label', { text: 'New agent ', attrs: { for: 'agent-name' } }),
      this.nameInput,
      h('button', { className: 'primary', text: 'Add agent', attrs: { type: 'submit' } }),
    )
    form.addEventListener('submit', (event) => {
      event.preventDefault()
      const name = this.nameInput.value.trim()
      if (name) this.onAdd(name)
    })
    this.element.append(
      h('h2', { text: 'Agents' }),
      h('p', { className: 'panel-note', text: 'Give each AI client its own token, so its name is on everything it does.' }),
      form,
      this.issued,
      this.list,
    )
  }

  /**
   * Shows `agents`. The open panel is refreshed every second, so a list that did not change is left as it is: a
   * button the person is pressing must not be replaced under the pointer.
   */
  update(agents: readonly PanelAgent[]): void {
    const shown = JSON.stringify(agents)
    if (shown === this.shown) return
    this.shown = shown
    if (agents.length === 0) {
      this.list.replaceChildren(h('li', { className: 'panel-empty', text: 'No agent has a token yet.' }))
      return
    }
    this.list.replaceChildren(
      ...agents.map((agent) =>
        h(
          'li',
          { className: `agent${agent.revoked ? ' revoked' : ''}`, attrs: { 'data-agent': agent.name } },
          h('strong', { text: agent.name }),
          h('span', { className: 'agent-added', text: `${agent.revoked ? 'revoked · ' : ''}added ${new Date(agent.addedAt).toLocaleString()}` }),
          ...(agent.revoked ? [] : [h('span', { className: 'agent-sessions-count', text: sessionsCount(agent.sessions.length) })]),
          ...(agent.revoked
            ? []
            : [h('button', { className: 'revoke', text: 'Revoke', attrs: { type: 'button' }, onClick: () => this.onRevoke(agent.name) })]),
          ...(agent.sessions.length === 0
            ? []
            : [h('ul', { className: 'agent-sessions' }, ...agent.sessions.map((session) => this.sessionItem(agent.name, session)))]),
        ),
      ),
    )
  }

  private sessionItem(agent: string, session: McpSessionListing): HTMLLIElement {
    const time = (at: number) => new Date(at).toLocaleTimeString()
    const via = session.bridgePid === null ? [] : [`quire mcp, pid ${session.bridgePid}`]
    const details = [session.client ?? 'unnamed client', ...via, `opened ${time(session.openedAt)}`, `last request ${time(session.lastRequestAt)}`]
    return h(
      'li',
      { className: 'agent-session', attrs: { 'data-session': session.session } },
      h('code', { text: session.session }),
      h('span', { className: 'agent-session-details', text: details.join(' · ') }),
      h('button', {
        className: 'end-session', text: 'End', title: 'End this session: the client is cut off and starts a new one; the token stays live',
        attrs: { type: 'button' }, onClick: () => this.onEndSession(agent, session.session),
      }),
    )
  }

  /** The token just issued: shown here once, never fetched again. */
  showIssued(added: PanelAgentAdded): void {
    this.nameInput.value = ''
    const token = h('code', { className: 'agent-token', text: added.token })
    const copy = h('button', {
      className: 'copy', text: 'Copy', attrs: { type: 'button' },
      onClick: () => {
        void navigator.clipboard?.writeText(added.token).then(() => (copy.textContent = 'Copied'), () => (copy.textContent = 'Select and copy it'))
      },
    })
    this.issued.replaceChildren(
      h(
        'div',
        { className: 'agent-token-box', attrs: { 'data-agent': added.name } },
        h('div', { text: `The token for ${added.name}. It is shown only this once: copy it into the client’s configuration now.` }),
        h('div', { className: 'agent-token-line' }, token, copy),
        h('button', { className: 'dismiss', text: 'I have copied it', attrs: { type: 'button' }, onClick: () => this.issued.replaceChildren() }),
      ),
    )
  }

  /** Drops a shown token (the drawer closed or moved on): the person had their one look. */
  forgetIssued(): void {
    this.issued.replaceChildren()
  }

  showError(message: string): void {
    this.issued.replaceChildren(h('div', { className: 'panel-error', text: message }))
  }
}

const sessionsCount = (open: number): string => (open === 0 ? 'no open MCP sessions' : `${open} open MCP session${open === 1 ? '' : 's'}`)
