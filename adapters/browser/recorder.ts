import { RecordingDraft, type ComposedRecording, type RecordingCounts } from '../../core/browser/workflow/recordDraft.js'
import type { WorkflowRecordingCommands } from '../../core/browser/workflow/recordCommands.js'
import type { RecordingEndReason } from '../../core/browser/workflow/recordEvents.js'
import { recordingOn } from '../../core/browser/workflow/recordState.js'
import { USER, type Actor } from '../../core/events/actor.js'
import { QuireError } from '../../core/errors.js'
import { newId } from '../../core/ids.js'
import type { BrowserEngine } from './engine.js'
import type { ArmedCapture } from './recorderCapture.js'

/**
 * `workflow_record`'s live part (BR.WORKFLOW_RECORD.*): for each tab being recorded, the armed capture and the draft
 * it feeds. Whether a recording may start is asked of the person before `start` (the MCP layer, through BrowserAccess:
 * a fresh `record` approval each time, APPR.4); each start and stop is decided and recorded by core
 * (`WorkflowRecordingCommands`); what the captured events become is core's `RecordingDraft`.
 *
 * A recording ends with `stop`, the person's stop in the console, or its tab closing. What it captured until then is
 * kept for the assistant's `stop` on that tab (once), so a closed tab loses nothing the person did.
 */

export interface RecordingView {
  readonly recordingId: string
  readonly tabId: string
  readonly principal: string
  readonly site: string
  readonly eventCount: number
  /** The steps so far as step text (`action: click "Publish" (button)`): what is being captured, for the person. */
  readonly steps: readonly string[]
}

/** What `stop` answers (BR.WORKFLOW_RECORD.5), with what the caps and unnamed events left out, when any. */
export interface StoppedRecording {
  readonly recordingId: string
  readonly tabId: string
  readonly source: string
  readonly inputs: readonly string[]
  readonly eventCount: number
  readonly dropped?: RecordingCounts['dropped']
}

interface Live {
  readonly recordingId: string
  readonly tabId: string
  readonly principal: string
  readonly site: string
  readonly draft: RecordingDraft
  capture: ArmedCapture | null
  ending: Promise<StoppedRecording> | null
  /** The assistant's stop took the workflow: nothing is kept for a later one. */
  handedOver: boolean
}

export interface RecorderDeps {
  readonly engine: BrowserEngine
  readonly recordings: WorkflowRecordingCommands
}

export class WorkflowRecorder {
  readonly #live = new Map<string, Live>()
  /** Recordings that ended without the assistant's stop (tab closed, the person stopped it), by tab, until it asks. */
  readonly #ended = new Map<string, { readonly principal: string; readonly stopped: StoppedRecording }>()
  readonly #listeners = new Set<() => void>()
  readonly #unsubscribe: () => void

  constructor(private readonly deps: RecorderDeps) {
    this.#unsubscribe = deps.engine.onEvent((event) => {
      if (event.type !== 'tab-closed') return
      const live = this.#live.get(event.tabId)
      if (live !== undefined) void this.#end(live, 'tab-closed', USER).catch(() => undefined)
    })
  }

  /** Refuses, before the person is asked anything, a start on a tab that is being recorded already. */
  assertNotRecording(tabId: string): void {
    if (this.#live.has(tabId) || recordingOn(this.deps.recordings.state, tabId) !== undefined) {
      throw new QuireError('RECORDING_ACTIVE', `${tabId} is being recorded already; stop that recording first (workflow_record {recordOp: "stop"})`, { tabId })
    }
  }

  /**
   * Arms the capture on the assistant's tab `tabId` (AI-owned only: the engine refuses the person's own tabs) and
   * records the start with the approval the person gave for it.
   */
  async start(request: { principal: string; connection: string; tabId: string; site: string; approvalId: string; actor: Actor }): Promise<{ recordingId: string; tabId: string; site: string }> {
    const { principal, tabId, site } = request
    this.assertNotRecording(tabId)
    const place = this.deps.engine.tabPlace(principal, tabId)
    const recordingId = newId('rec')
    const live: Live = { recordingId, tabId, principal, site, draft: new RecordingDraft(place.url), capture: null, ending: null, handedOver: false }
    this.#live.set(tabId, live)
    try {
      live.capture = await this.deps.engine.armCapture(principal, tabId, {
        page: (url, byPage) => this.#changed(() => live.draft.visit(url, { byPage })),
        event: (event) => this.#changed(() => live.draft.capture(event)),
        unlocatable: () => this.#changed(() => live.draft.capture({ kind: 'click', role: '', name: '' })),
      })
      await this.deps.recordings.apply(
        { type: 'start', recordingId, tabId, principal, connection: request.connection, site, origin: new URL(place.url).origin, approvalId: request.approvalId },
        request.actor,
      )
    } catch (error) {
      this.#live.delete(tabId)
      await live.capture?.disarm()
      throw error
    }
    this.#notify()
    return { recordingId, tabId, site }
  }

  /** The assistant's stop: the workflow of what the person did (BR.WORKFLOW_RECORD.5); never gated. */
  async stop(principal: string, tabId: string | undefined, actor: Actor): Promise<StoppedRecording> {
    const chosen = tabId ?? this.#onlyRecordingOf(principal)
    const live = chosen === undefined ? undefined : this.#live.get(chosen)
    if (live !== undefined && live.principal === principal) return this.#end(live, 'stopped', actor, { handOver: true })
    const ended = chosen === undefined ? undefined : this.#ended.get(chosen)
    if (chosen !== undefined && ended !== undefined && ended.principal === principal) {
      this.#ended.delete(chosen)
      return ended.stopped
    }
    throw new QuireError('RECORDING_NOT_FOUND', chosen === undefined ? 'you have no recording under way, or several: name the tab with tabId' : `no recording on ${chosen}; start one with workflow_record {recordOp: "start"}`)
  }

  /** The person's stop from the console: the capture ends at once; the assistant's `stop` still gets the workflow. */
  async stopByPerson(tabId: string): Promise<void> {
    const live = this.#live.get(tabId)
    if (live === undefined) throw new QuireError('RECORDING_NOT_FOUND', `no recording on ${tabId}`)
    await this.#end(live, 'stopped', USER)
  }

  /** Every recording under way, for the person watching: which tab, whose, and the steps captured so far. */
  list(): RecordingView[] {
    return [...this.#live.values()].map((live) => ({
      recordingId: live.recordingId,
      tabId: live.tabId,
      principal: live.principal,
      site: live.site,
      eventCount: live.draft.counts.eventCount,
      steps: live.draft.stepTexts(),
    }))
  }

  /** Calls `listener` whenever a recording starts, captures something or ends; returns the unsubscriber. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** Disarms every capture (the daemon is closing); their recordings are ended as interrupted when the log is next opened. */
  async close(): Promise<void> {
    this.#unsubscribe()
    const live = [...this.#live.values()]
    this.#live.clear()
    await Promise.all(live.map((entry) => entry.capture?.disarm()))
  }

  #onlyRecordingOf(principal: string): string | undefined {
    const tabs = [...this.#live.values(), ...[...this.#ended].map(([tabId, ended]) => ({ tabId, principal: ended.principal }))]
      .filter((entry) => entry.principal === principal)
      .map((entry) => entry.tabId)
    return tabs.length === 1 ? tabs[0] : undefined
  }

  #end(live: Live, reason: RecordingEndReason, actor: Actor, options: { handOver?: boolean } = {}): Promise<StoppedRecording> {
    if (options.handOver === true) live.handedOver = true
    live.ending ??= (async () => {
      await live.capture?.disarm()
      const composed: ComposedRecording = live.draft.compose(live.site)
      const { dropped } = composed.counts
      const stopped: StoppedRecording = {
        recordingId: live.recordingId,
        tabId: live.tabId,
        source: composed.source,
        inputs: composed.inputs,
        eventCount: composed.eventCount,
        ...(dropped.pageCap + dropped.sessionCap + dropped.unlocatable > 0 ? { dropped } : {}),
      }
      try {
        await this.deps.recordings.apply({ type: 'stop', recordingId: live.recordingId, reason, counts: composed.counts }, actor)
      } finally {
        this.#live.delete(live.tabId)
        this.#notify()
      }
      return stopped
    })()
    return live.ending.then((stopped) => {
      if (live.handedOver) this.#ended.delete(live.tabId)
      else this.#ended.set(live.tabId, { principal: live.principal, stopped })
      return stopped
    })
  }

  #changed(change: () => unknown): void {
    change()
    this.#notify()
  }

  #notify(): void {
    for (const listener of this.#listeners) listener()
  }
}
