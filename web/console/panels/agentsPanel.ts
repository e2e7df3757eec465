import type { PanelAgent, PanelAgentAdded } from '../../../adapters/http/consolePanelsApi.js'
import { h } from '../dom.js'

/**
 * The agents panel: the AI clients given their own token (by name, when), a form to add one, and revoke. A new
 * token is shown once, right after it is issued, with a copy button: the daemon keeps only its hash, so closing the
 * panel loses it for good (add the agent again after revoking it).
 */
export class AgentsPanel {
  readonly element = h('section', { className: 'panel agents-panel', attrs: { 'aria-label': 'Agents' } })
  private readonly list = h('ul', { className: 'agent-list' })
  private readonly issued = h('div', { className: 'agent-issued' })
  private readonly nameInput = h('input', { attrs: { type: 'text', id: 'agent-name', placeholder: 'claude', autocomplete: 'off', 'aria-label': 'Agent name' } })

  constructor(
    private readonly onAdd: (name: string) => void,
    private readonly onRevoke: (name: string) => void,
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

  update(agents: readonly PanelAgent[]): void {
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
          ...(agent.revoked
            ? []
            : [h('button', { className: 'revoke', text: 'Revoke', attrs: { type: 'button' }, onClick: () => this.onRevoke(agent.name) })]),
        ),
      ),
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
