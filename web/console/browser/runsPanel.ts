import type { BrowserRun, BrowserRunStep, PersonTabEntry } from '../../../adapters/http/consoleBrowserApi.js'
import { h } from '../dom.js'

/** A step as the person reads it: `waiting` is a step held for them (an approval) or for the assistant (a pause). */
export type StepShown = 'pending' | 'running' | 'done' | 'failed' | 'skipped' | 'waiting'

export function stepShown(run: BrowserRun, step: BrowserRunStep): StepShown {
  if (step.status === 'success') return 'done'
  if (step.status === 'paused') return 'waiting'
  if (step.status === 'running' && run.pendingApproval?.step === step.index) return 'waiting'
  return step.status
}

const RUN_WORDS: Readonly<Record<BrowserRun['status'], string>> = {
  running: 'Running',
  paused: 'Paused',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
  superseded: 'Superseded',
}

const ACTIVE: ReadonlySet<BrowserRun['status']> = new Set(['running', 'paused'])
export const isActiveRun = (run: BrowserRun): boolean => ACTIVE.has(run.status)

/** Older runs of the tab listed under the newest, folded. */
const EARLIER_SHOWN = 5

/**
 * The workflow runs on the shown tab, beside its live view: the newest run's steps as they go (status per step, the
 * step waiting for the person's approval highlighted, with the button that opens the Approvals panel where it is
 * decided, as the banner over the live view has), the run's status and reason, and Cancel while it has not ended.
 * Rebuilt only when what it shows changed, so a poll never replaces the Cancel button under the person's click.
 */
export class RunsPanel {
  readonly element = h('aside', { className: 'browser-runs', attrs: { 'aria-label': 'Workflow runs', hidden: '' } })
  #renderedKey = ''
  /** Runs whose cancel is on its way: their button stays disabled until the list shows them ended. */
  readonly #cancelling = new Set<string>()

  constructor(
    private readonly onCancel: (runId: string) => Promise<unknown>,
    private readonly openApprovals: () => void,
  ) {}

  update(runs: readonly BrowserRun[], tab: PersonTabEntry | undefined): void {
    const mine = tab === undefined || tab.automationMode === 'human' ? [] : runs.filter((run) => run.tabId === tab.tabId && run.principal === tab.principal)
    for (const runId of this.#cancelling) if (!mine.some((run) => run.runId === runId && isActiveRun(run))) this.#cancelling.delete(runId)
    const key = JSON.stringify([mine, [...this.#cancelling]])
    if (key === this.#renderedKey) return
    this.#renderedKey = key
    this.element.hidden = mine.length === 0
    const [newest, ...earlier] = mine
    if (newest === undefined) return void this.element.replaceChildren()
    this.element.replaceChildren(
      h('h2', { className: 'browser-runs-title', text: 'Workflow runs' }),
      this.#run(newest, true),
      ...(earlier.length > 0
        ? [h('details', { className: 'browser-runs-earlier' }, h('summary', { text: `Earlier runs on this tab (${earlier.length})` }), ...earlier.slice(0, EARLIER_SHOWN).map((run) => this.#run(run, false)))]
        : []),
    )
  }

  #run(run: BrowserRun, newest: boolean): HTMLElement {
    const active = isActiveRun(run)
    const cancelling = this.#cancelling.has(run.runId)
    const cancel = h('button', { className: 'browser-run-cancel', text: cancelling ? 'Cancelling…' : 'Cancel', attrs: { type: 'button' }, onClick: () => this.#cancel(run.runId, cancel) })
    if (cancelling) cancel.disabled = true
    return h(
      'article',
      { className: `browser-run status-${run.status}${newest ? ' newest' : ''}`, attrs: { 'data-run-id': run.runId, 'data-status': run.status } },
      h(
        'header',
        { className: 'browser-run-head' },
        h('span', { className: 'browser-run-status', text: RUN_WORDS[run.status] }),
        h('span', { className: 'browser-run-about' }, h('code', { className: 'browser-run-site', text: run.site || '(no site)' }), ` · ${run.principal} · ${clock(run.startedAt)}`),
        ...(active ? [cancel] : []),
      ),
      ...(run.inputNames.length > 0 ? [h('div', { className: 'browser-run-inputs', text: `Inputs: ${run.inputNames.join(', ')}` })] : []),
      ...(run.reason !== undefined || run.reasonCode !== undefined
        ? [h('div', { className: 'browser-run-reason', text: run.reason ?? run.reasonCode ?? '', attrs: { 'data-reason-code': run.reasonCode ?? '' } })]
        : []),
      h('ol', { className: 'browser-run-steps' }, ...run.steps.map((step) => this.#step(run, step))),
    )
  }

  #step(run: BrowserRun, step: BrowserRunStep): HTMLElement {
    const shown = stepShown(run, step)
    const approval = run.status === 'running' && run.pendingApproval?.step === step.index ? run.pendingApproval : undefined
    const attrs: Record<string, string> = { 'data-index': String(step.index), 'data-status': shown }
    if (approval !== undefined) attrs['data-approval-id'] = approval.approvalId
    const words = approval !== undefined ? 'waiting for your approval' : step.status === 'paused' ? 'waiting for the assistant or you' : shown
    return h(
      'li',
      { className: `browser-run-step step-${shown}${approval !== undefined ? ' awaiting-approval' : ''}`, attrs },
      h('span', { className: 'browser-run-step-index', text: String(step.index) }),
      h('span', { className: 'browser-run-step-kind', text: step.write ? `${step.kind} (writes)` : step.kind }),
      h('span', { className: 'browser-run-step-status', text: words }),
      ...(step.attempts > 1 ? [h('span', { className: 'browser-run-step-attempts', text: `${step.attempts} tries` })] : []),
      ...(approval !== undefined
        ? [
            h(
              'div',
              { className: 'browser-run-approval' },
              h('code', { className: 'browser-run-approval-subject', text: asked(approval) }),
              h('button', { className: 'browser-approval-open', text: 'Review in Approvals', attrs: { type: 'button' }, onClick: () => this.openApprovals() }),
            ),
          ]
        : step.reason !== undefined || step.reasonCode !== undefined
          ? [h('div', { className: 'browser-run-step-reason', text: step.reason ?? step.reasonCode ?? '', attrs: { 'data-reason-code': step.reasonCode ?? '' } })]
          : []),
    )
  }

  #cancel(runId: string, button: HTMLButtonElement): void {
    this.#cancelling.add(runId)
    button.disabled = true
    button.textContent = 'Cancelling…'
    this.onCancel(runId).catch(() => {
      this.#cancelling.delete(runId)
      button.disabled = false
      button.textContent = 'Cancel'
    })
  }
}

/** What the step asks, in the words of the approval it waits on: `click button "Publish" on https://site`. */
function asked(approval: NonNullable<BrowserRun['pendingApproval']>): string {
  const target = approval.target !== undefined ? ` ${approval.target.role} ${JSON.stringify(approval.target.name)}` : ''
  return `${approval.operation}${target} on ${approval.url}`
}

function clock(at: number): string {
  return new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })
}
