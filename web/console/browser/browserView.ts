import type { BrowserLocated, BrowserRecording, BrowserRun, BrowserTabs, PersonTabEntry, ScreencastFrame } from '../../../adapters/http/consoleBrowserApi.js'
import type { PanelApproval } from '../../../adapters/http/consolePanelsApi.js'
import { h } from '../dom.js'
import { actTarget, ApprovalBanner, browserApprovalsFor } from './approvalBanner.js'
import type { BrowserApi } from './browserApi.js'
import { LiveInput } from './liveInput.js'
import { onPicture, pictureRect, sameViewport, type FrameGeometry } from './liveFrame.js'
import { RecordControl } from './recordControl.js'
import { isActiveRun, RunsPanel } from './runsPanel.js'
import { SavedPanel, type SavedKind } from './savedPanel.js'

/**
 * The Browser view: the strip of every tab (the assistants', each marked with its assistant, and the person's),
 * the address bar, and the live view of the selected tab, where the person's clicks, wheel and keys go to the page.
 * Selecting "New tab" empties the address bar; the URL typed there opens one of the person's own tabs. Beside the
 * live view, the workflow runs on the shown tab (runsPanel.ts); a tab with a run under way is marked in the strip.
 * The "Saved" button shows the saved sessions and named profiles there too (savedPanel.ts); the Record button allows
 * an assistant's request to record its tab, and stops the recording, whose capture is listed there live
 * (recordControl.ts).
 */
export class BrowserView {
  readonly element: HTMLElement
  readonly #strip = h('div', { className: 'browser-tabs', attrs: { role: 'tablist', 'aria-label': 'Browser tabs' } })
  readonly #address = h('input', { className: 'browser-url', attrs: { type: 'text', 'aria-label': 'Address', spellcheck: 'false', placeholder: 'Type a web address and press Enter' } })
  readonly #note = h('span', { className: 'browser-note' })
  readonly #error = h('div', { className: 'browser-error', attrs: { role: 'alert', hidden: '' } })
  readonly #live = h('img', { className: 'browser-live', attrs: { alt: 'Live view of the tab', tabindex: '0', draggable: 'false', hidden: '', 'data-frames': '0' } })
  /** Outlines over the live view's picture (clipped to it): the elements a pending act request is about. */
  readonly #outlines = h('div', { className: 'browser-outlines', attrs: { 'aria-hidden': 'true', hidden: '' } })
  readonly #empty = h('p', { className: 'browser-empty', text: 'No tab open. Choose "New tab" and type an address, or wait for an assistant to open one.' })
  readonly #stage: HTMLElement
  readonly #banner: ApprovalBanner
  readonly #input: LiveInput
  readonly #runsPanel: RunsPanel
  readonly #record: RecordControl
  readonly #savedPanel = new SavedPanel((kind, name) => void this.#deleteSaved(kind, name))
  readonly #savedOpen = h('button', { className: 'browser-saved-open', text: 'Saved', title: 'Saved sessions and profiles', attrs: { type: 'button', 'aria-pressed': 'false' } })
  /** The column beside the live view: the shown tab's recording and runs, the saved state when asked for. */
  readonly #side = h('div', { className: 'browser-side', attrs: { hidden: '' } })
  #tabs: readonly PersonTabEntry[] = []
  #runs: readonly BrowserRun[] = []
  #recordings: readonly BrowserRecording[] = []
  #pending: readonly PanelApproval[] = []
  #enabled = true
  /** The shown tab; null with `#drafting` is the New tab state. */
  #selected: string | null = null
  #drafting = false
  #frames: EventSource | null = null
  #framesOf: string | null = null
  /** The frame the live view paints (the person clicks on what they see), and the one still loading. */
  #frame: FrameGeometry | null = null
  #loading: FrameGeometry | null = null
  #frameCount = 0
  /** The element a pending act request names on the shown tab, and where it was last found on the frames. */
  #target: OutlineTarget | null = null
  #located: { readonly target: OutlineTarget; readonly found: BrowserLocated } | null = null
  #locating: Promise<void> | null = null
  #locateAgain = false

  constructor(private readonly api: BrowserApi, openApprovals: () => void, allow: (approvalId: string) => Promise<unknown>) {
    this.#banner = new ApprovalBanner(openApprovals)
    this.#runsPanel = new RunsPanel((runId) => this.#cancelRun(runId), openApprovals)
    this.#record = new RecordControl((approvalId) => this.#reported(async () => {
      await allow(approvalId)
      this.#pending = this.#pending.filter((approval) => approval.approvalId !== approvalId)
      this.#updateSide()
    }), (tabId) => this.#reported(async () => {
      await this.api.stopRecording(tabId)
      await this.refreshRecordings()
    }))
    this.#input = new LiveInput(this.#live, () => this.#frame, (input) => this.#selected === null ? Promise.resolve() : this.api.input(this.#selected, input), (error) => this.#report(error))
    const form = h(
      'form',
      { className: 'browser-address' },
      this.#address,
      h('button', { className: 'browser-go', text: 'Go', attrs: { type: 'submit' } }),
      this.#note,
      this.#record.button,
      this.#savedOpen,
    )
    this.#savedOpen.addEventListener('click', () => void this.#toggleSaved())
    this.#side.append(this.#record.panel, this.#runsPanel.element, this.#savedPanel.element)
    form.addEventListener('submit', (event) => {
      event.preventDefault()
      void this.#go()
    })
    this.#stage = h('div', { className: 'browser-stage' }, this.#banner.element, this.#live, this.#outlines, this.#empty)
    this.#live.addEventListener('load', () => this.#painted())
    new ResizeObserver(() => this.#drawOutlines()).observe(this.#live)
    this.element = h(
      'section',
      { className: 'browser-view', attrs: { hidden: '', 'aria-label': 'Browser' } },
      this.#strip,
      form,
      this.#error,
      h(
        'div',
        { className: 'browser-body' },
        this.#stage,
        this.#side,
      ),
    )
  }

  /** The tab shown, for the tests and the approvals banner. */
  get selected(): string | null {
    return this.#selected
  }

  update(answer: BrowserTabs): void {
    this.#tabs = answer.tabs
    this.#enabled = answer.enabled
    if (this.#selected !== null && !this.#tabs.some((tab) => tab.tabId === this.#selected)) this.#selected = null
    // Nothing chosen yet (or the chosen tab closed): the tab in front, as the assistants see it.
    if (this.#selected === null && !this.#drafting) this.#selected = (this.#tabs.find((tab) => tab.front) ?? this.#tabs[0])?.tabId ?? null
    this.#render()
  }

  /** The workflow runs (newest first): the shown tab's beside the live view, the strip's marks for the others. */
  showRuns(runs: readonly BrowserRun[]): void {
    this.#withMarks(() => (this.#runs = runs))
  }

  /** The recordings under way: the shown tab's capture beside the live view, the strip's marks for the others. */
  showRecordings(recordings: readonly BrowserRecording[]): void {
    this.#withMarks(() => (this.#recordings = recordings))
  }

  async refreshRecordings(): Promise<void> {
    this.showRecordings((await this.api.recordings()).recordings)
  }

  /** Applies `change`; the strip is drawn again only when a tab's run or recording mark changed. */
  #withMarks(change: () => void): void {
    const marks = () => this.#tabs.map((tab) => `${tab.tabId}:${this.#runningOn(tab)}:${this.#recordedOn(tab)}`).join()
    const before = marks()
    change()
    if (marks() !== before) this.#render()
    else this.#updateSide()
  }

  #recordedOn(tab: PersonTabEntry): boolean {
    return this.#recordings.some((recording) => recording.tabId === tab.tabId && recording.principal === tab.principal)
  }

  #updateSide(): void {
    const tab = this.#current()
    this.#runsPanel.update(this.#runs, tab)
    this.#record.update(this.#recordings, this.#pending, tab)
    this.#side.hidden = this.#runsPanel.element.hidden && this.#savedPanel.element.hidden && this.#record.panel.hidden
  }

  /** Runs one of the person's actions, its refusal shown over the view (and passed on, so its button resets). */
  async #reported(work: () => Promise<void>): Promise<void> {
    this.#clearError()
    try {
      await work()
    } catch (error) {
      this.#report(error)
      throw error
    }
  }

  /** Lists the saved sessions and profiles while they are shown (the poll calls it every time). */
  async refreshSaved(): Promise<void> {
    if (this.#savedPanel.element.hidden) return
    this.#savedPanel.update(await this.api.saved())
  }

  async #toggleSaved(): Promise<void> {
    const show = this.#savedPanel.element.hidden
    this.#savedOpen.setAttribute('aria-pressed', String(show))
    this.#savedPanel.element.hidden = !show
    this.#updateSide()
    await this.refreshSaved().catch((error: unknown) => this.#report(error))
  }

  async #deleteSaved(kind: SavedKind, name: string): Promise<void> {
    const what = kind === 'session' ? `the saved session "${name}"` : `the profile "${name}" with its logins`
    if (!confirm(`Delete ${what}? Assistants can no longer load it.`)) return
    this.#clearError()
    try {
      await this.api.deleteSaved(kind, name)
    } catch (error) {
      this.#report(error)
    }
    await this.refreshSaved().catch((error: unknown) => this.#report(error))
  }

  async refreshRuns(): Promise<void> {
    this.showRuns((await this.api.runs()).runs)
  }

  #runningOn(tab: PersonTabEntry): boolean {
    return this.#runs.some((run) => run.tabId === tab.tabId && run.principal === tab.principal && isActiveRun(run))
  }

  #cancelRun(runId: string): Promise<void> {
    return this.#reported(async () => {
      await this.api.cancelRun(runId)
      await this.refreshRuns()
    })
  }

  async showApprovals(pending: readonly PanelApproval[]): Promise<void> {
    const tab = this.#current()
    this.#pending = pending
    this.#updateSide()
    const about = browserApprovalsFor(pending, tab)
    this.#banner.update(about)
    const target = about.map(actTarget).find((found) => found !== null)
    this.#target = tab && target ? { tabId: tab.tabId, ...target } : null
    this.#drawOutlines()
    await this.#locate()
  }

  /**
   * Asks the engine where the target is now: one question at a time, and one more when asked meanwhile (a frame
   * showed the page moved while the answer was on its way).
   */
  #locate(): Promise<void> {
    if (this.#locating) {
      this.#locateAgain = true
      return this.#locating
    }
    const run = async (): Promise<void> => {
      do {
        this.#locateAgain = false
        const target = this.#target
        if (!target) return
        // A failed question changes nothing: the boxes drawn stay only as long as the frames show the page there.
        const found = await this.api.locate(target.tabId, target.role, target.name).catch(() => null)
        if (found) this.#located = { target, found }
        this.#drawOutlines()
      } while (this.#locateAgain)
    }
    this.#locating = run().finally(() => (this.#locating = null))
    return this.#locating
  }

  /**
   * Draws the target's boxes over the picture, only while the painted frame shows the page where they were measured:
   * an outline from before a scroll or a zoom would sit on something else.
   */
  #drawOutlines(): void {
    const target = this.#target
    const located = this.#located
    const frame = this.#frame
    const picture = this.#live.hidden ? null : pictureRect(this.#live)
    const shown = target !== null && located !== null && frame !== null && picture !== null && this.#framesOf === target.tabId
      && sameTarget(located.target, target) && sameViewport(located.found.viewport, frame.viewport)
    this.#outlines.hidden = !shown
    if (!shown) return void this.#outlines.replaceChildren()
    // The layer covers the picture exactly, in the stage's scrolled content (it is positioned in the stage).
    const stage = this.#stage.getBoundingClientRect()
    place(this.#outlines, {
      left: picture.left - stage.left - this.#stage.clientLeft + this.#stage.scrollLeft,
      top: picture.top - stage.top - this.#stage.clientTop + this.#stage.scrollTop,
      width: picture.width,
      height: picture.height,
    })
    this.#outlines.replaceChildren(...located.found.boxes.map((box) => place(h('div', { className: 'browser-outline' }), onPicture(box, frame, picture))))
  }

  /** Leaves the view: no frames stream while nobody looks. */
  hide(): void {
    this.#stopFrames()
  }

  #render(): void {
    const buttons = this.#tabs.map((tab) => this.#tabButton(tab))
    const newTab = h('button', {
      className: `browser-new${this.#drafting ? ' active' : ''}`, text: '+ New tab',
      attrs: { type: 'button', role: 'tab', 'aria-selected': String(this.#drafting) },
      onClick: () => this.#select(null),
    })
    if (!this.#enabled) newTab.setAttribute('disabled', '')
    this.#strip.replaceChildren(...buttons, newTab)

    const tab = this.#current()
    const human = tab?.automationMode === 'human'
    if (document.activeElement !== this.#address) this.#address.value = tab?.url ?? ''
    // Assistants' tabs are theirs to steer: the person watches and takes over the page, but the address is read-only.
    this.#address.readOnly = !(this.#drafting || human) || !this.#enabled
    this.#note.textContent = !this.#enabled
      ? 'The Embedded browser setting is off.'
      : tab === undefined ? '' : human ? (tab.loading ? 'Loading…' : '') : `${tab.principal ?? 'An assistant'}'s tab${tab.automationMode === 'ai-shared' ? ' (your profile)' : ' (sandbox)'}${tab.loading ? ' · loading…' : ''}`
    this.#empty.hidden = tab !== undefined
    this.#live.hidden = tab === undefined
    if (tab === undefined) this.#stopFrames()
    else if (this.#framesOf !== tab.tabId) this.#startFrames(tab.tabId)
    this.#updateSide()
  }

  #tabButton(tab: PersonTabEntry): HTMLElement {
    const selected = tab.tabId === this.#selected
    const who = tab.automationMode === 'human' ? 'You' : (tab.principal ?? 'AI')
    const button = h(
      'div',
      {
        className: `browser-tab mode-${tab.automationMode}${selected ? ' active' : ''}`,
        title: tab.url,
        attrs: { role: 'tab', tabindex: '0', 'aria-selected': String(selected), 'data-tab-id': tab.tabId, 'data-mode': tab.automationMode },
        onClick: () => this.#select(tab.tabId),
      },
      h('span', { className: 'browser-tab-owner', text: who }),
      h('span', { className: 'browser-tab-title', text: tab.title || tab.url || 'New tab' }),
      ...(this.#runningOn(tab) ? [h('span', { className: 'browser-tab-run', text: 'run', title: 'A workflow runs on this tab' })] : []),
      ...(this.#recordedOn(tab) ? [h('span', { className: 'browser-tab-rec', text: 'rec', title: 'What you do on this tab is being recorded' })] : []),
    )
    if (tab.automationMode === 'human') {
      const close = h('button', { className: 'browser-tab-close', text: '×', title: 'Close tab', attrs: { type: 'button', 'aria-label': 'Close tab' } })
      close.addEventListener('click', (event) => {
        event.stopPropagation()
        this.api.close(tab.tabId).then(() => this.refresh(), (error: unknown) => this.#report(error))
      })
      button.append(close)
    }
    return button
  }

  #current(): PersonTabEntry | undefined {
    return this.#drafting ? undefined : this.#tabs.find((tab) => tab.tabId === this.#selected)
  }

  #select(tabId: string | null): void {
    this.#clearError()
    this.#drafting = tabId === null
    this.#selected = tabId
    this.#input.reset()
    this.#render()
    if (this.#drafting) {
      this.#address.value = ''
      this.#address.focus()
    }
  }

  async #go(): Promise<void> {
    this.#clearError()
    const url = withScheme(this.#address.value.trim())
    if (url === '') return
    try {
      const tab = this.#current()
      const answer = this.#drafting || tab === undefined ? await this.api.open(url) : await this.api.navigate(tab.tabId, url)
      this.#drafting = false
      this.#selected = answer.tab.tabId
      this.#address.blur()
      await this.refresh()
    } catch (error) {
      this.#report(error)
    }
  }

  async refresh(): Promise<void> {
    this.update(await this.api.tabs())
  }

  #startFrames(tabId: string): void {
    this.#stopFrames()
    this.#framesOf = tabId
    this.#frame = null
    this.#loading = null
    this.#frameCount = 0
    this.#drawOutlines()
    const frames = this.api.frames(tabId)
    this.#frames = frames
    frames.addEventListener('frame', (event) => {
      const { jpegBase64, ...frame } = JSON.parse((event as MessageEvent<string>).data) as ScreencastFrame
      this.#loading = frame
      this.#live.src = `data:image/jpeg;base64,${jpegBase64}`
      // How many frames of which tab the view showed: what a test (or a curious person) can check it by.
      this.#live.dataset.framesOf = tabId
      this.#live.dataset.frames = String(++this.#frameCount)
    })
    frames.addEventListener('closed', () => {
      // The tab is gone (or the browser stopped): the list says what is left.
      this.#stopFrames()
      void this.refresh().catch(() => undefined)
    })
  }

  /**
   * A frame's picture is in the img: from now on the person sees (and clicks on) the page where that frame shows it,
   * which the view says in data-scroll-x, data-scroll-y and data-scale. The outlines follow; a page that moved since
   * they were measured has them measured again.
   */
  #painted(): void {
    const frame = this.#loading
    if (!frame) return
    this.#frame = frame
    this.#live.dataset.scrollX = String(frame.viewport.scrollX)
    this.#live.dataset.scrollY = String(frame.viewport.scrollY)
    this.#live.dataset.scale = String(frame.viewport.scale)
    if (this.#target && this.#located && !sameViewport(this.#located.found.viewport, frame.viewport)) void this.#locate()
    this.#drawOutlines()
  }

  #stopFrames(): void {
    this.#frames?.close()
    this.#frames = null
    this.#framesOf = null
  }

  #report(error: unknown): void {
    this.#error.hidden = false
    this.#error.textContent = error instanceof Error ? error.message : String(error)
  }

  #clearError(): void {
    this.#error.hidden = true
    this.#error.textContent = ''
  }
}

interface OutlineTarget {
  readonly tabId: string
  readonly role: string
  readonly name: string
}

const sameTarget = (a: OutlineTarget, b: OutlineTarget): boolean => a.tabId === b.tabId && a.role === b.role && a.name === b.name

function place<T extends HTMLElement>(element: T, rect: { left: number; top: number; width: number; height: number }): T {
  element.style.left = `${rect.left}px`
  element.style.top = `${rect.top}px`
  element.style.width = `${rect.width}px`
  element.style.height = `${rect.height}px`
  return element
}

/** What a person types in an address bar: `example.org` means https://example.org. */
function withScheme(typed: string): string {
  if (typed === '' || /^[a-z][a-z0-9+.-]*:/i.test(typed)) return typed
  return `https://${typed}`
}
