import type { CoherenceBreakdown, CoherenceRow, CoherenceStatusView, CoherenceWorkspaces } from '../../../adapters/http/consoleCoherenceApi.js'
import { h } from '../dom.js'
import { BreakdownTable } from './breakdownTable.js'
import type { CoherenceApi } from './coherenceApi.js'
import { GrantsSection } from './grantsSection.js'

/**
 * The Coherence view: which derived documents (a chapter made from a character sheet) went stale because their
 * sources changed since, in the workspace picked; the person's answers to each; and the delegations that let an
 * assistant answer for them. Everything shown comes from the daemon's answers, re-read after every action.
 */
export class CoherenceView {
  readonly element: HTMLElement
  private readonly picker = h('select', { className: 'coherence-workspace', attrs: { 'aria-label': 'Workspace' } })
  private readonly status = h('div', { className: 'coherence-status', attrs: { role: 'status' } })
  private readonly tracking = h('p', { className: 'coherence-tracking', attrs: { hidden: '' } })
  private readonly error = h('div', { className: 'panel-error', attrs: { role: 'alert', hidden: '' } })
  private readonly breakdown: BreakdownTable
  private readonly grants: GrantsSection
  private root: string | null = null
  private workspacesKey = ''

  constructor(
    private readonly api: CoherenceApi,
    private readonly revise: (row: CoherenceRow) => void,
  ) {
    this.breakdown = new BreakdownTable({
      acceptNewer: (row) => this.act(async (root) => this.showBreakdown((await this.api.resolve({ root, txf: row.txf, input: row.input, resolution: 'accept-newer' })).breakdown)),
      waive: (row, reason) => this.act(async (root) => this.showBreakdown((await this.api.resolve({ root, txf: row.txf, input: row.input, resolution: 'waive', reason })).breakdown)),
      revise: (row) => this.revise(row),
    })
    this.grants = new GrantsSection({
      grant: (request) => this.act(async (root) => this.grants.update((await this.api.grant({ root, ...request })).grants)),
      revoke: (grant) => {
        if (!confirm(`Revoke ${grant.delegate}'s delegation? It authorizes nothing from then on.`)) return
        this.act(async (root) => this.grants.update(await this.api.revoke(root, grant.delegation)))
      },
    })
    this.picker.addEventListener('change', () => {
      this.root = this.picker.value
      void this.refresh()
    })
    this.element = h(
      'section',
      { className: 'panel coherence-view', attrs: { hidden: '', 'aria-label': 'Coherence' } },
      h('header', { className: 'coherence-head' }, h('h2', { text: 'Coherence' }), h('label', {}, 'Workspace ', this.picker), this.status),
      this.tracking,
      this.error,
      h('h3', { text: 'Stale documents' }),
      this.breakdown.element,
      this.grants.element,
    )
  }

  /** Re-reads everything: the workspaces, then the picked one's breakdown (a reconcile with its files) and grants. */
  async refresh(): Promise<void> {
    try {
      const workspaces = await this.api.workspaces()
      this.showWorkspaces(workspaces)
      if (this.root === null) {
        this.breakdown.update([])
        return
      }
      const root = this.root
      const [breakdown, grants] = await Promise.all([this.api.breakdown(root), this.api.grants(root)])
      if (root !== this.root) return
      this.showBreakdown(breakdown)
      this.grants.update(grants)
    } catch (failure) {
      this.report(failure)
    }
  }

  private showWorkspaces(answer: CoherenceWorkspaces): void {
    const roots = answer.workspaces.map((workspace) => workspace.root)
    if (this.root === null || !roots.includes(this.root)) this.root = roots[0] ?? null
    const key = JSON.stringify(roots)
    if (key !== this.workspacesKey) {
      this.workspacesKey = key
      this.picker.replaceChildren(...answer.workspaces.map((workspace) => h('option', { text: workspace.name, title: workspace.root, attrs: { value: workspace.root } })))
    }
    if (this.root !== null) this.picker.value = this.root
    this.picker.disabled = roots.length < 2
    this.tracking.hidden = answer.trackProvenance
    this.tracking.textContent = 'Saves are not being captured: turn on trackProvenance in Settings (or `quire settings set trackProvenance true`) so the ledger learns what each document was made from.'
    if (this.root === null) this.status.textContent = 'No workspace is open.'
  }

  private showBreakdown(breakdown: CoherenceBreakdown): void {
    if (breakdown.root !== this.root) return
    this.status.replaceChildren(...statusParts(breakdown.status))
    this.breakdown.update(breakdown.contexts)
  }

  /** Runs a change on the picked workspace; what went wrong (a refusal's own words) goes to the error line. */
  private act(change: (root: string) => Promise<void>): void {
    const root = this.root
    if (root === null) return
    this.clearError()
    change(root).then(() => this.refresh(), (failure: unknown) => {
      this.report(failure)
      void this.refresh()
    })
  }

  private report(failure: unknown): void {
    this.error.hidden = false
    this.error.textContent = failure instanceof Error ? failure.message : String(failure)
  }

  private clearError(): void {
    this.error.hidden = true
    this.error.textContent = ''
  }
}

function statusParts(status: CoherenceStatusView): Node[] {
  if (!status.initialized) return [h('span', { className: 'coherence-status-item', text: 'No ledger yet: it is made at the first captured save.' })]
  const item = (text: string, name: string) => h('span', { className: 'coherence-status-item', text, attrs: { 'data-status': name } })
  return [
    item(`${status.objects} ${status.objects === 1 ? 'document' : 'documents'} tracked`, 'objects'),
    item(`${status.open_items} stale`, 'open-items'),
    ...(status.quarantined > 0 ? [item(`${status.quarantined} unreadable ledger ${status.quarantined === 1 ? 'line' : 'lines'} quarantined`, 'quarantined')] : []),
  ]
}
