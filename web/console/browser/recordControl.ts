import type { BrowserRecording, PersonTabEntry } from '../../../adapters/http/consoleBrowserApi.js'
import type { PanelApproval } from '../../../adapters/http/consolePanelsApi.js'
import { h } from '../dom.js'

/** The assistant's pending request to record the shown tab (core/browser/requests.ts words it "… on tab tab-3 (…"). */
export function recordRequestFor(pending: readonly PanelApproval[], tab: PersonTabEntry | undefined): PanelApproval | undefined {
  if (tab === undefined || tab.automationMode === 'human') return undefined
  return pending.find((approval) => approval.kind === 'browser_record' && approval.principal === tab.principal && approval.subject.includes(` tab ${tab.tabId} (`))
}

type RecordState =
  | { readonly kind: 'none' }
  | { readonly kind: 'idle' }
  | { readonly kind: 'asked'; readonly approval: PanelApproval }
  | { readonly kind: 'recording'; readonly recording: BrowserRecording }

/**
 * The Record button of an assistant's tab and, while it records, what is being captured, live (workflow_record).
 * A recording is the assistant's request that the person allows: while the assistant asks to record the shown tab,
 * Record allows it (that one request, once, as Approve in the Approvals panel does), and the assistant's retry
 * starts it; while it records, the button stops it and the column beside the live view lists the steps captured so
 * far (locators only: a typed value is never captured). With no request, there is nothing to allow: the button
 * says how a recording starts.
 */
export class RecordControl {
  readonly button = h('button', { className: 'browser-record', text: '● Record', attrs: { type: 'button', hidden: '' } })
  readonly panel = h('section', { className: 'browser-recording', attrs: { 'aria-label': 'Recording', hidden: '' } })
  #state: RecordState = { kind: 'none' }
  #renderedKey = ''

  constructor(
    private readonly onAllow: (approvalId: string) => Promise<unknown>,
    private readonly onStop: (tabId: string) => Promise<unknown>,
  ) {
    this.button.addEventListener('click', () => void this.#press())
  }

  update(recordings: readonly BrowserRecording[], pending: readonly PanelApproval[], tab: PersonTabEntry | undefined): void {
    const recording = tab === undefined || tab.automationMode === 'human' ? undefined : recordings.find((entry) => entry.tabId === tab.tabId && entry.principal === tab.principal)
    const approval = recordRequestFor(pending, tab)
    this.#state =
      tab === undefined || tab.automationMode === 'human' ? { kind: 'none' }
      : recording !== undefined ? { kind: 'recording', recording }
      : approval !== undefined ? { kind: 'asked', approval }
      : { kind: 'idle' }
    this.#renderButton()
    this.#renderPanel()
  }

  #renderButton(): void {
    const state = this.#state
    this.button.hidden = state.kind === 'none'
    this.button.dataset.state = state.kind
    this.button.setAttribute('aria-pressed', String(state.kind === 'recording'))
    this.button.textContent = state.kind === 'recording' ? '■ Stop recording' : '● Record'
    this.button.disabled = state.kind === 'idle'
    this.button.title =
      state.kind === 'recording' ? 'Stop capturing what you do on this tab; the assistant still gets the workflow'
      : state.kind === 'asked' ? `Allow ${state.approval.principal ?? 'the assistant'} to ${state.approval.subject}`
      : 'An assistant starts recording its tab with browser.workflow_record; you allow it here'
  }

  #renderPanel(): void {
    const state = this.#state
    const key = JSON.stringify(state.kind === 'recording' ? state.recording : null)
    if (key === this.#renderedKey) return
    this.#renderedKey = key
    this.panel.hidden = state.kind !== 'recording'
    if (state.kind !== 'recording') return void this.panel.replaceChildren()
    const { recording } = state
    this.panel.replaceChildren(
      h('h2', { className: 'browser-side-title', text: 'Recording' }),
      h(
        'p',
        { className: 'browser-recording-about' },
        h('strong', { text: recording.principal }),
        ' records what you do on this tab as the workflow ',
        h('code', { text: recording.site }),
        ': the elements you click and the fields you edit, never what you type. ',
        h('span', { className: 'browser-recording-count', attrs: { 'data-events': String(recording.eventCount) }, text: `${recording.eventCount} ${recording.eventCount === 1 ? 'event' : 'events'}` }),
      ),
      // Before the first event the draft's one step is its "nothing was recorded" stand-in: not something captured.
      recording.eventCount === 0
        ? h('p', { className: 'browser-saved-empty', text: 'Nothing captured yet: click and edit fields on the live view.' })
        : h('ol', { className: 'browser-recording-steps' }, ...recording.steps.map((step) => h('li', { className: 'browser-recording-step' }, h('code', { text: step })))),
    )
  }

  async #press(): Promise<void> {
    const state = this.#state
    if (state.kind !== 'recording' && state.kind !== 'asked') return
    this.button.disabled = true
    try {
      if (state.kind === 'recording') await this.onStop(state.recording.tabId)
      else await this.onAllow(state.approval.approvalId)
    } catch {
      // Shown over the view by the caller; the button is the person's to press again.
    } finally {
      this.button.disabled = false
    }
  }
}
