import type { CoherenceGrant, CoherenceGrantRequest, CoherenceGrants, CoherenceScopeName, GrantDays } from '../../../adapters/http/consoleCoherenceApi.js'
import { h } from '../dom.js'

/** A delegation always ends: these are the only lifetimes offered, a week first (spec §5.4.7: never "forever"). */
const LIFETIMES: ReadonlyArray<{ readonly days: GrantDays; readonly label: string }> = [
  { days: 7, label: '7 days' },
  { days: 1, label: '1 day' },
  { days: 30, label: '30 days' },
]

const SCOPES: ReadonlyArray<{ readonly scope: CoherenceScopeName; readonly label: string }> = [
  { scope: 'accept-newer', label: 'Accept newer' },
  { scope: 'waive', label: 'Waive' },
]

const STANDING_WORDS = { live: 'live', expired: 'expired', revoked: 'revoked' } as const

export interface GrantActions {
  grant(request: Omit<CoherenceGrantRequest, 'root'>): void
  revoke(grant: CoherenceGrant): void
}

/**
 * Delegations: the grants that let one assistant (by the name its token was made with) resolve stale edges for the
 * person, each with its scope, its expiry, its standing and — the audit — every resolution it authorized across its
 * supersession chain; Revoke ends one at once. The form grants a new one: an agent with a live token, what it may do,
 * and for how long.
 */
export class GrantsSection {
  readonly element = h('section', { className: 'coherence-grants', attrs: { 'aria-label': 'Delegations' } })
  private readonly list = h('div', { className: 'coherence-grant-list' })
  private readonly agent = h('select', { className: 'coherence-grant-agent', attrs: { 'aria-label': 'Agent' } })
  private readonly lifetime = h('select', { className: 'coherence-grant-days', attrs: { 'aria-label': 'Expires after' } })
  private readonly scopes = SCOPES.map(({ scope, label }) => ({
    scope,
    box: h('input', { attrs: { type: 'checkbox', value: scope, checked: '', 'data-scope': scope } }),
    label,
  }))
  private renderedKey = ''
  private agentsKey = ''

  constructor(private readonly actions: GrantActions) {
    for (const { days, label } of LIFETIMES) this.lifetime.append(h('option', { text: label, attrs: { value: String(days) } }))
    const form = h(
      'form',
      { className: 'coherence-grant-form' },
      h('label', {}, 'Let ', this.agent),
      ...this.scopes.map(({ box, label }) => h('label', { className: 'coherence-grant-scope' }, box, ` ${label}`)),
      h('label', {}, 'for ', this.lifetime),
      h('button', { className: 'primary', text: 'Grant', attrs: { type: 'submit' } }),
    )
    form.addEventListener('submit', (event) => {
      event.preventDefault()
      const scope = this.scopes.filter(({ box }) => box.checked).map(({ scope: name }) => name)
      if (this.agent.value === '' || scope.length === 0) return
      this.actions.grant({ delegate: this.agent.value, scope, days: Number(this.lifetime.value) as GrantDays })
    })
    this.element.append(
      h('h3', { text: 'Delegations' }),
      h('p', { className: 'panel-note', text: 'An assistant may resolve stale edges only under a grant you make here; it always expires.' }),
      form,
      this.list,
    )
  }

  update(answer: CoherenceGrants): void {
    const agentsKey = JSON.stringify(answer.agents)
    if (agentsKey !== this.agentsKey) {
      this.agentsKey = agentsKey
      const chosen = this.agent.value
      this.agent.replaceChildren(
        ...(answer.agents.length === 0 ? [h('option', { text: 'no agent has a token', attrs: { value: '' } })] : answer.agents.map((name) => h('option', { text: name, attrs: { value: name } }))),
      )
      if (answer.agents.includes(chosen)) this.agent.value = chosen
    }
    const key = JSON.stringify(answer.grants)
    if (key === this.renderedKey) return
    this.renderedKey = key
    if (answer.grants.length === 0) {
      this.list.replaceChildren(h('p', { className: 'panel-empty', text: 'No delegations: only you resolve stale edges.' }))
      return
    }
    this.list.replaceChildren(
      h(
        'table',
        { className: 'coherence-table coherence-grant-table' },
        h('thead', {}, h('tr', {}, ...['Agent', 'May', 'Expires', 'Standing', 'Authorized', ''].map((text) => h('th', { text })))),
        h('tbody', {}, ...answer.grants.flatMap((grant) => this.grant(grant))),
      ),
    )
  }

  private grant(grant: CoherenceGrant): HTMLElement[] {
    const scope = grant.scope.length === 0 ? '—' : grant.scope.map((name) => SCOPES.find((each) => each.scope === name)?.label ?? name).join(', ')
    const row = h(
      'tr',
      { className: `coherence-grant standing-${grant.standing}`, attrs: { 'data-delegation': grant.delegation, 'data-standing': grant.standing } },
      h('td', {}, h('strong', { className: 'coherence-grant-delegate', text: grant.delegate })),
      h('td', { className: 'coherence-grant-may', text: scope }),
      h('td', { className: 'coherence-grant-expires', text: new Date(grant.expires).toLocaleString(), title: grant.expires }),
      h('td', {}, h('span', { className: `coherence-standing standing-${grant.standing}`, text: STANDING_WORDS[grant.standing] }), grant.conflicts > 0 ? h('span', { className: 'coherence-conflicts', text: ` · ${grant.conflicts} conflicting`, title: 'Another clone changed this grant at the same time' }) : ''),
      h('td', { className: 'coherence-grant-authorized', text: String(grant.authorized.length) }),
      h('td', {}, ...(grant.standing === 'revoked' ? [] : [h('button', { className: 'coherence-revoke', text: 'Revoke', attrs: { type: 'button' }, onClick: () => this.actions.revoke(grant) })])),
    )
    if (grant.authorized.length === 0) return [row]
    const audit = h(
      'tr',
      { className: 'coherence-audit', attrs: { 'data-audit-of': grant.delegation } },
      h(
        'td',
        { attrs: { colspan: '6' } },
        h(
          'ul',
          {},
          ...grant.authorized.map((resolution) =>
            h(
              'li',
              { attrs: { 'data-entry': resolution.entryId } },
              `${new Date(resolution.time).toLocaleString()} · ${resolution.kind === 'waiver' ? 'waived' : 'accepted newer'} by ${resolution.actor} · edge `,
              h('code', { text: `${resolution.txf.slice(0, 8)}#${resolution.input}`, title: `${resolution.txf}#${resolution.input}, resolved against ${resolution.resolvedAgainst}` }),
              resolution.reason === null ? '' : ` — “${resolution.reason}”`,
            ),
          ),
        ),
      ),
    )
    return [row, audit]
  }
}
