import type { PanelApproval, PanelApprovals, PanelApprovalScope } from '../../../adapters/http/consolePanelsApi.js'
import { h } from '../dom.js'

/** What the person is asked to allow, in words. */
const ASKS = {
  open_workspace: 'Open this folder as a workspace',
  save_as: 'Save a document to this new file',
  browser_act: 'Act on a web page',
  browser_execute_js: 'Run this script in a web page',
  browser_attach: 'Let the assistant use a tab you opened',
  browser_destination: 'Load a new site in your own browser profile',
  browser_record: 'Record what you do in an assistant\'s tab as a workflow (never what you type)',
  browser_session: 'Save or load a browser session (cookies and local storage)',
  browser_profile: 'Open a tab in a named browser profile, with its logins',
} as const

/** The button for each scope the person may give. */
const SCOPE_BUTTONS: Readonly<Record<PanelApprovalScope, string>> = {
  once: 'Allow once',
  site: 'Allow on this site',
  navigation: 'Allow until it navigates',
}

const STATUS_WORDS = {
  pending: 'waiting for you',
  approved: 'approved, not used yet',
  denied: 'denied — a denial stays decided; if the assistant asks again, you are asked anew',
  consumed: 'approved and used',
  expired: 'expired unused',
} as const

/**
 * The approvals panel: each pending request says what is asked (the canonical path), for which connection and
 * principal, and how long it has left, with Approve / Deny; decided ones are listed greyed out beneath. The list is
 * rebuilt only when a request or its status changed, and the countdowns tick in place, so a poll never replaces a
 * button under the person's click.
 */
export class ApprovalsPanel {
  readonly element = h('section', { className: 'panel approvals-panel', attrs: { 'aria-label': 'Approvals' } })
  private renderedKey = ''
  private clockOffset = 0

  constructor(private readonly onDecide: (approvalId: string, decision: 'approve' | 'deny', scope?: PanelApprovalScope) => void) {}

  update(approvals: PanelApprovals): void {
    this.clockOffset = approvals.now - Date.now()
    const all = [...approvals.pending, ...approvals.recent]
    const key = JSON.stringify(all.map((approval) => [approval.approvalId, approval.status, approval.expiresAt]))
    if (key !== this.renderedKey) {
      this.renderedKey = key
      this.element.replaceChildren(
        h('h2', { text: 'Approvals' }),
        approvals.pending.length === 0
          ? h('p', { className: 'panel-empty', text: 'No assistant is waiting for your approval.' })
          : h('ul', { className: 'approval-list' }, ...approvals.pending.map((approval) => this.item(approval))),
        ...(approvals.recent.length > 0
          ? [h('h3', { text: 'Recently decided' }), h('ul', { className: 'approval-list decided' }, ...approvals.recent.map((approval) => this.item(approval)))]
          : []),
      )
    }
    this.tick()
  }

  /** Refreshes every "expires in" line against the server's clock. */
  tick(): void {
    const now = Date.now() + this.clockOffset
    for (const line of this.element.querySelectorAll<HTMLElement>('[data-expires-at]')) {
      line.textContent = timeLeft(Number(line.dataset.expiresAt) - now)
    }
  }

  private item(approval: PanelApproval): HTMLElement {
    const pending = approval.status === 'pending'
    const who = approval.principal ?? 'anonymous'
    return h(
      'li',
      { className: `approval status-${approval.status}`, attrs: { 'data-approval-id': approval.approvalId, 'data-status': approval.status } },
      h('div', { className: 'approval-what', text: ASKS[approval.kind] }),
      h('code', { className: 'approval-subject', text: approval.subject }),
      ...(approval.origin !== null ? [h('div', { className: 'approval-origin' }, 'Site ', h('code', { text: approval.origin }))] : []),
      h(
        'div',
        { className: 'approval-who' },
        'Asked by ',
        h('strong', { className: 'approval-principal', text: who }),
        approval.principal === null ? ' (a connection without an agent token)' : ' (agent)',
        ' on connection ',
        h('code', { className: 'approval-connection', text: approval.connection }),
      ),
      h(
        'div',
        { className: 'approval-when' },
        h('span', { className: 'approval-status', text: STATUS_WORDS[approval.status] }),
        ...(approval.expiresAt !== null ? [' · ', h('span', { className: 'approval-expiry', attrs: { 'data-expires-at': String(approval.expiresAt) } })] : []),
      ),
      ...(pending
        ? [
            h(
              'div',
              { className: 'approval-actions' },
              ...(approval.scopes.length > 1
                ? approval.scopes.map((scope, index) =>
                    h('button', {
                      className: `approve${index === 0 ? ' primary' : ''}`,
                      text: SCOPE_BUTTONS[scope],
                      attrs: { type: 'button', 'data-scope': scope },
                      onClick: () => this.onDecide(approval.approvalId, 'approve', scope),
                    }),
                  )
                : [h('button', { className: 'approve primary', text: 'Approve', attrs: { type: 'button' }, onClick: () => this.onDecide(approval.approvalId, 'approve') })]),
              h('button', { className: 'deny', text: 'Deny', attrs: { type: 'button' }, onClick: () => this.onDecide(approval.approvalId, 'deny') }),
            ),
          ]
        : []),
    )
  }
}

/** "expires in 4:32" (minutes and seconds): an approval lapses five minutes after its last change unused. */
function timeLeft(ms: number): string {
  if (ms <= 0) return 'expired'
  const seconds = Math.ceil(ms / 1000)
  return `expires in ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`
}
