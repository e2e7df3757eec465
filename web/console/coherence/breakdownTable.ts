import type { CoherenceContextBreakdown, CoherenceEdgeState, CoherenceRow } from '../../../adapters/http/consoleCoherenceApi.js'
import { h } from '../dom.js'

/** What each state means to the person, in the badge's tooltip. */
const STATE_WORDS: Readonly<Record<CoherenceEdgeState, string>> = {
  'version-stale': 'its source changed since this document was made from it',
  'stale-valid': 'its source changed; a check found no contradiction',
  'stale-contradicted': 'its source changed and a check found a contradiction',
  'stale-unknown': 'its source changed; a check could not decide',
  waived: 'stale, waived for now',
  diverged: 'made from a revision its source has since left behind on another branch',
  'diverged-multi-head': 'its source has several current versions: merge them first',
  unpinnable: 'the revision it was made from cannot be found',
}

/** States a resolution cannot settle (the core refuses them): only Revise is offered. */
const UNRESOLVABLE = new Set<CoherenceEdgeState>(['diverged-multi-head', 'unpinnable'])

export interface BreakdownActions {
  acceptNewer(row: CoherenceRow): void
  waive(row: CoherenceRow, reason: string): void
  revise(row: CoherenceRow): void
}

/**
 * The breakdown: one table per context, a row per stale dependency edge — the derived document, the source it was
 * made from, the revision it was made from and the one current now — with the person's three answers: Accept newer
 * (the document still holds against the new source), Waive… (it is stale, knowingly; a reason is required) and
 * Revise (open the document to bring it up to date).
 */
export class BreakdownTable {
  readonly element = h('div', { className: 'coherence-breakdown' })
  /** The row whose Waive… form is open: while it is, polls do not rebuild the table under the person's typing. */
  private waiving: string | null = null
  private renderedKey = ''
  private last: readonly CoherenceContextBreakdown[] = []

  constructor(private readonly actions: BreakdownActions) {}

  get busy(): boolean {
    return this.waiving !== null
  }

  update(contexts: readonly CoherenceContextBreakdown[]): void {
    this.last = contexts
    const key = JSON.stringify(contexts)
    if (key === this.renderedKey || this.busy) return
    this.renderedKey = key
    this.element.replaceChildren(...contexts.map((context, index) => this.context(context, index === 0)))
  }

  private context(context: CoherenceContextBreakdown, primary: boolean): HTMLElement {
    const heading = h('h3', { text: `${context.name} context` })
    const problems = context.errors.length > 0 ? [h('p', { className: 'panel-note coherence-context-errors', text: `${context.degraded ? 'Degraded: ' : ''}${context.errors.join('; ')}` })] : []
    // Resolutions are judged in the default context: another context's rows can only be revised.
    const note = primary ? [] : [h('p', { className: 'panel-note', text: 'A context this workspace defines: accept newer and waive apply to the default context, so here you can revise.' })]
    const body = context.rows.length === 0
      ? h('p', { className: 'panel-empty coherence-clean', text: 'Nothing is stale: every derived document is current with its sources.' })
      : h(
          'table',
          { className: 'coherence-table' },
          h('thead', {}, h('tr', {}, ...['State', 'Document', 'Made from', 'Revision it used → now', ''].map((text) => h('th', { text })))),
          h('tbody', {}, ...context.rows.map((row) => this.row(row, primary))),
        )
    return h('section', { className: `coherence-context${primary ? '' : ' other'}`, attrs: { 'data-context': context.id } }, heading, ...problems, ...note, body)
  }

  private row(row: CoherenceRow, resolvable: boolean): HTMLElement {
    const id = `${row.txf}#${row.input}`
    const cells = h(
      'tr',
      { className: `coherence-row state-${row.state}`, attrs: { 'data-edge': id, 'data-state': row.state } },
      h('td', {}, h('span', { className: `coherence-badge state-${row.state}`, text: row.state, title: STATE_WORDS[row.state] })),
      h('td', { className: 'coherence-downstream' }, h('code', { text: row.downstreamPath ?? row.downstream })),
      h('td', { className: 'coherence-upstream' }, h('code', { text: row.upstreamPath ?? row.upstream }), row.role === 'contextual' ? h('span', { className: 'coherence-role', text: ' (a selection)' }) : ''),
      h('td', { className: 'coherence-revisions', title: `${row.pinned} → ${row.selected ?? '—'}${row.detail ? `\n${row.detail}` : ''}` }, shortRevision(row.pinned), ' → ', shortRevision(row.selected)),
      h('td', { className: 'coherence-actions' }, ...this.buttons(row, id, resolvable)),
    )
    return cells
  }

  private buttons(row: CoherenceRow, id: string, resolvable: boolean): Node[] {
    const revise = h('button', { className: 'coherence-revise', text: 'Revise', title: 'Open the document to bring it up to date', attrs: { type: 'button' }, onClick: () => this.actions.revise(row) })
    if (row.downstreamFile === null) revise.disabled = true
    if (!resolvable || UNRESOLVABLE.has(row.state)) return [revise]
    const accept = h('button', { className: 'coherence-accept primary', text: 'Accept newer', title: 'The document still holds against the source as it is now', attrs: { type: 'button' }, onClick: () => this.actions.acceptNewer(row) })
    if (row.state === 'waived') return [accept, revise]
    const waive = h('button', { className: 'coherence-waive', text: 'Waive…', title: 'Leave it stale knowingly, with a reason', attrs: { type: 'button' } })
    const cell = [accept, waive, revise]
    waive.addEventListener('click', () => {
      this.waiving = id
      const reason = h('input', { className: 'coherence-reason', attrs: { type: 'text', placeholder: 'Why it may stay as it is', 'aria-label': 'Reason for waiving', required: '' } })
      const form = h(
        'form',
        { className: 'coherence-waive-form' },
        reason,
        h('button', { className: 'primary', text: 'Waive', attrs: { type: 'submit' } }),
        h('button', { className: 'coherence-waive-cancel', text: 'Cancel', attrs: { type: 'button' }, onClick: () => this.closeWaive() }),
      )
      form.addEventListener('submit', (event) => {
        event.preventDefault()
        const text = reason.value.trim()
        if (text === '') return reason.focus()
        this.closeWaive()
        this.actions.waive(row, text)
      })
      waive.closest('td')?.replaceChildren(form)
      reason.focus()
    })
    return cell
  }

  private closeWaive(): void {
    this.waiving = null
    this.renderedKey = ''
    this.update(this.last)
  }
}

/** `rev1:3f2a…` → `3f2a9c1e`: enough to tell revisions apart at a glance (the full id is in the tooltip). */
function shortRevision(revision: string | null): string {
  if (revision === null) return '—'
  return revision.replace(/^rev1:/, '').slice(0, 8)
}
