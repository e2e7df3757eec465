import type { PanelSettingChange } from '../../../adapters/http/consolePanelsApi.js'
import { h } from '../dom.js'
import type { Shell } from '../shell.js'
import { AgentsPanel } from './agentsPanel.js'
import { ApprovalsPanel } from './approvalsPanel.js'
import { DivergenceBanner } from './divergenceBanner.js'
import type { PanelsApi } from './panelsApi.js'
import { SettingsPanel } from './settingsPanel.js'

const POLL_MS = 1000

export type PanelName = 'approvals' | 'settings' | 'agents'

/**
 * The person's panels, added to the console in one place: a menu in the top bar (Approvals with a badge of pending
 * requests, Settings, Agents) that opens a drawer on the right, and the divergence banner over the editor. It
 * touches nothing else of the shell, and polls on its own: approvals and divergences must show up whichever panel
 * is open, since an assistant waits on them.
 */
export function mountPanels(shell: Pick<Shell, 'modeSwitch' | 'tabStrip' | 'editorHost'>, api: PanelsApi): void {
  let open: PanelName | null = null
  const error = h('div', { className: 'panel-error', attrs: { role: 'alert', hidden: '' } })
  const report = (failure: unknown) => {
    error.hidden = false
    error.textContent = failure instanceof Error ? failure.message : String(failure)
  }
  const clearError = () => {
    error.hidden = true
    error.textContent = ''
  }

  const approvals = new ApprovalsPanel((approvalId, decision, scope) => {
    clearError()
    api.decide(approvalId, decision, scope).then(refreshApprovals, report)
  })
  const settings = new SettingsPanel((change: PanelSettingChange) => {
    clearError()
    // Re-rendered from the answer either way, so a refused value springs back to what is stored.
    api.setSetting(change).then((answer) => settings.update(answer), (failure) => {
      report(failure)
      void api.settings().then((answer) => settings.update(answer), report)
    })
  })
  const agents = new AgentsPanel(
    (name) => {
      clearError()
      api.addAgent(name).then((added) => {
        agents.showIssued(added)
        agents.update(added.agents)
      }, (failure) => agents.showError(failure instanceof Error ? failure.message : String(failure)))
    },
    (name) => {
      if (!confirm(`Revoke ${name}'s token? The client is refused from then on.`)) return
      clearError()
      api.revokeAgent(name).then((answer) => agents.update(answer.agents), report)
    },
    (name, session) => {
      clearError()
      api.endAgentSession(name, session).then((answer) => agents.update(answer.agents), report)
    },
  )
  const banner = new DivergenceBanner(shell.tabStrip, (docId, choice) => {
    api.resolveDivergence(docId, choice).then((answer) => banner.update(answer.divergences), () => undefined)
  })

  const badge = h('span', { className: 'panel-badge', attrs: { hidden: '', 'aria-label': 'pending approvals' } })
  const buttons: Record<PanelName, HTMLButtonElement> = {
    approvals: h('button', { className: 'panel-open', text: 'Approvals ', attrs: { type: 'button', 'data-panel': 'approvals' }, onClick: () => toggle('approvals') }, badge),
    settings: h('button', { className: 'panel-open', text: 'Settings', attrs: { type: 'button', 'data-panel': 'settings' }, onClick: () => toggle('settings') }),
    agents: h('button', { className: 'panel-open', text: 'Agents', attrs: { type: 'button', 'data-panel': 'agents' }, onClick: () => toggle('agents') }),
  }
  const sections: Record<PanelName, HTMLElement> = { approvals: approvals.element, settings: settings.element, agents: agents.element }
  const body = h('div', { className: 'drawer-body' })
  const drawer = h(
    'aside',
    { className: 'panel-drawer', attrs: { hidden: '', 'aria-label': 'Panels' } },
    h('button', { className: 'drawer-close', text: '×', title: 'Close', attrs: { type: 'button', 'aria-label': 'Close' }, onClick: () => toggle(null) }),
    error,
    body,
  )

  function toggle(name: PanelName | null): void {
    open = name === open ? null : name
    agents.forgetIssued()
    drawer.hidden = open === null
    clearError()
    for (const [panel, button] of Object.entries(buttons)) button.setAttribute('aria-pressed', String(panel === open))
    if (open === null) return
    body.replaceChildren(sections[open])
    if (open === 'settings') void api.settings().then((answer) => settings.update(answer), report)
    if (open === 'agents') void api.agents().then((answer) => agents.update(answer.agents), report)
    if (open === 'approvals') void refreshApprovals()
  }

  async function refreshApprovals(): Promise<void> {
    const answer = await api.approvals()
    approvals.update(answer)
    badge.textContent = String(answer.pending.length)
    badge.hidden = answer.pending.length === 0
  }

  async function poll(): Promise<void> {
    if (!menu.isConnected) return // signed out: the console's root was replaced
    // The agents' sessions come and go with their clients: the open Agents panel follows them.
    const agentSessions = open === 'agents' ? [api.agents().then((answer) => agents.update(answer.agents))] : []
    await Promise.all([refreshApprovals(), api.divergences().then((answer) => banner.update(answer.divergences)), ...agentSessions]).catch(() => undefined)
    setTimeout(() => void poll(), POLL_MS)
  }

  const menu = h('nav', { className: 'panel-menu', attrs: { 'aria-label': 'Panels' } }, buttons.approvals, buttons.settings, buttons.agents)
  shell.modeSwitch.before(menu)
  shell.editorHost.before(banner.element)
  // Inside the console's root, so signing out (which replaces the root's content) takes the drawer away too.
  ;(shell.modeSwitch.closest('header')?.parentElement ?? document.body).append(drawer)
  void poll()
}
