import type { PersonTabEntry } from '../../../adapters/http/consoleBrowserApi.js'
import type { PanelApproval } from '../../../adapters/http/consolePanelsApi.js'
import { h } from '../dom.js'

/**
 * The tab a browser request names in its subject (core/browser/requests.ts words it: "use tab tab-3 (…)", "load … in
 * your browser profile (tab tab-4)", "run a script on … (tab tab-5):"); an act request names none.
 */
function tabNamed(subject: string): string | null {
  return /\(tab (tab-\d+)\)|\buse tab (tab-\d+) /.exec(subject)?.slice(1).find((id) => id !== undefined) ?? null
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin
  } catch {
    return null
  }
}

/**
 * The pending browser requests about the shown tab: those naming it, and the act requests (which name no tab) on its
 * page's origin from the assistant whose tab it is (from any assistant, on the person's own tab it was attached to).
 */
export function browserApprovalsFor(pending: readonly PanelApproval[], tab: PersonTabEntry | undefined): PanelApproval[] {
  if (tab === undefined) return []
  const origin = originOf(tab.url)
  return pending.filter((approval) => {
    if (!String(approval.kind).startsWith('browser_')) return false
    const named = tabNamed(approval.subject)
    if (named !== null) return named === tab.tabId
    const whose = tab.automationMode === 'human' || approval.principal === tab.principal
    return whose && origin !== null && approval.origin === origin
  })
}

/** The element an act request names by role and name (`click button "Save" on …`), to outline on the live view. */
export function actTarget(approval: PanelApproval): { role: string; name: string } | null {
  if (approval.kind !== 'browser_act') return null
  const match = /^(?:click|type|scroll|key|style) ([a-z]+) ("(?:[^"\\]|\\.)*")/.exec(approval.subject)
  if (!match) return null
  try {
    return { role: match[1]!, name: JSON.parse(match[2]!) as string }
  } catch {
    return null
  }
}

/**
 * The banner over the live view while an assistant waits for the person's decision about this tab: who asks and, in
 * the words the person will approve, what (the element's role and name for an act). The decision is made in the
 * Approvals panel, which the button opens, where the scopes and the full script of an execute_js are.
 */
export class ApprovalBanner {
  readonly element = h('div', { className: 'browser-approval', attrs: { role: 'alert', hidden: '' } })

  constructor(private readonly openApprovals: () => void) {}

  update(approvals: readonly PanelApproval[]): void {
    this.element.hidden = approvals.length === 0
    this.element.replaceChildren(...approvals.map((approval) => this.#line(approval)))
  }

  #line(approval: PanelApproval): HTMLElement {
    // An execute_js subject goes on with the script: the banner says what is asked, the panel shows the script.
    const asked = approval.subject.split('\n', 1)[0]!.replace(/:$/, '')
    return h(
      'div',
      { className: 'browser-approval-item', attrs: { 'data-approval-id': approval.approvalId, 'data-kind': approval.kind } },
      h(
        'span',
        { className: 'browser-approval-text' },
        h('strong', { className: 'browser-approval-principal', text: approval.principal ?? 'An assistant' }),
        ' asks to ',
        h('code', { className: 'browser-approval-subject', text: asked }),
      ),
      h('button', { className: 'browser-approval-open', text: 'Review in Approvals', attrs: { type: 'button' }, onClick: () => this.openApprovals() }),
    )
  }
}
