import type { PanelApproval } from '../../../adapters/http/consolePanelsApi.js'
import { h } from '../dom.js'

/** What a pending browser request asks, in the banner's words. */
const ASKS: Readonly<Record<string, string>> = {
  browser_act: 'wants to act on this page',
  browser_execute_js: 'wants to run a script in this page',
  browser_attach: 'wants to read this tab of yours',
  browser_destination: 'wants to go to a new site',
}

/** The parts of a browser request's subject the banner shows (a JSON string written by the MCP layer). */
interface BrowserSubject {
  readonly tabId?: string
  readonly origin?: string
  readonly role?: string
  readonly name?: string
  readonly url?: string
  readonly verb?: string
}

function parseSubject(subject: string): BrowserSubject {
  try {
    const parsed: unknown = JSON.parse(subject)
    return typeof parsed === 'object' && parsed !== null ? (parsed as BrowserSubject) : {}
  } catch {
    return {}
  }
}

/** The pending browser requests about the shown tab: the person sees them over the page they concern. */
export function browserApprovalsFor(pending: readonly PanelApproval[], tabId: string | null): PanelApproval[] {
  if (tabId === null) return []
  return pending.filter((approval) => String(approval.kind).startsWith('browser_') && parseSubject(approval.subject).tabId === tabId)
}

/**
 * The banner over the live view while an assistant waits for the person's decision on this tab: who asks, what,
 * and on which element; the decision itself is made in the Approvals panel, which the button opens.
 */
export class ApprovalBanner {
  readonly element = h('div', { className: 'browser-approval', attrs: { role: 'alert', hidden: '' } })

  constructor(private readonly openApprovals: () => void) {}

  update(approvals: readonly PanelApproval[]): void {
    this.element.hidden = approvals.length === 0
    this.element.replaceChildren(...approvals.map((approval) => this.#line(approval)))
  }

  #line(approval: PanelApproval): HTMLElement {
    const subject = parseSubject(approval.subject)
    const target = subject.role !== undefined
      ? [' on the ', h('code', { className: 'browser-approval-target', text: `${subject.role}${subject.name ? ` "${subject.name}"` : ''}` })]
      : []
    const where = subject.url ?? subject.origin
    return h(
      'div',
      { className: 'browser-approval-item', attrs: { 'data-approval-id': approval.approvalId, 'data-kind': approval.kind } },
      h(
        'span',
        { className: 'browser-approval-text' },
        h('strong', { className: 'browser-approval-principal', text: approval.principal ?? 'An assistant' }),
        ` ${ASKS[approval.kind] ?? `asks for ${approval.kind}`}`,
        ...(subject.verb !== undefined ? [' (', h('code', { text: subject.verb }), ')'] : []),
        ...target,
        ...(where !== undefined ? [' at ', h('code', { className: 'browser-approval-where', text: where })] : []),
      ),
      h('button', { className: 'browser-approval-open', text: 'Review in Approvals', attrs: { type: 'button' }, onClick: () => this.openApprovals() }),
    )
  }
}
