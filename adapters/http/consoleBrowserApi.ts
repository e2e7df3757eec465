/**
 * The console's Browser view API: the person's tabs and the assistants', the live view of one, and the person's
 * hands on it (types only: the browser bundle imports them too). Behind the console's token check like the rest of
 * `/console/api/*` (adapters/http/console.ts): an assistant's token never reaches it.
 *
 *   GET  /console/api/browser/tabs                       → BrowserTabs
 *   POST /console/api/browser/tabs  {url}                → BrowserTabOpened   (a human tab, in the person's profile)
 *   POST /console/api/browser/tabs/:tabId/navigate {url} → BrowserTabOpened   (human tabs only)
 *   POST /console/api/browser/tabs/:tabId/close          → BrowserTabClosed   (human tabs only)
 *   GET  /console/api/browser/tabs/:tabId/frames         → text/event-stream: `frame` events (ScreencastFrame as
 *                                                          JSON: the JPEG, its size in DIPs, where the page is in
 *                                                          it), then one `closed` event when the tab is gone
 *   POST /console/api/browser/tabs/:tabId/input  {input} → BrowserInputSent   (any tab: the person takes over)
 *   GET  /console/api/browser/tabs/:tabId/locate?role=R&name=N → BrowserLocated (where an asked-for element is)
 *   GET  /console/api/browser/runs                       → BrowserRuns        (workflow runs of this daemon's life)
 *   POST /console/api/browser/runs/:runId/cancel         → BrowserRunCancelled (never gated, like workflow_cancel)
 *   GET  /console/api/browser/saved                      → BrowserSaved       (saved sessions and named profiles)
 *   POST /console/api/browser/sessions/:name/delete      → BrowserSavedDeleted
 *   POST /console/api/browser/profiles/:name/delete      → BrowserSavedDeleted (409 PROFILE_IN_USE while a tab of it is open)
 *   GET  /console/api/browser/recordings                 → BrowserRecordings  (the recordings under way, steps so far)
 *   POST /console/api/browser/tabs/:tabId/recording/stop → BrowserRecordingStopped (404 RECORDING_NOT_FOUND)
 *
 * Errors are `{error, message}` (ConsoleError): 400 bad input, 404 no such tab or run, 409 BROWSER_DISABLED (the Embedded
 * browser setting is off), 503 BROWSER_UNAVAILABLE.
 */
export type { AutomationMode, FrameBox, FrameViewport, PersonInput, PersonTabEntry, ScreencastFrame } from '../browser/personSide.js'
import type { LocatedOnFrames, PersonTabEntry } from '../browser/personSide.js'
import type { BrowserPosture } from '../../core/settings/events.js'
import type { RunStatus } from '../../core/browser/workflow/runs/events.js'
import type { PendingApproval, StepStatus } from '../../core/browser/workflow/runs/state.js'
import type { StepKind } from '../../core/browser/workflow/types.js'

export interface BrowserTabs {
  readonly tabs: readonly PersonTabEntry[]
  /** The Embedded browser setting: off, nothing can be opened (the list still shows what is open). */
  readonly enabled: boolean
  /** The posture assistants' new tabs open in. */
  readonly posture: BrowserPosture
}

export interface BrowserTabOpened {
  readonly tab: PersonTabEntry
}

export interface BrowserTabClosed {
  readonly tabId: string
  readonly closed: true
}

export interface BrowserInputSent {
  readonly sent: true
}

export interface BrowserFramesClosed {
  /** Why the stream ended: the tab closed, or the browser stopped. */
  readonly reason: string
}

/**
 * The element boxes of a role and exact name, to outline on the live view, at most 5: in the frames' DIPs, with the
 * viewport they were measured at (drawn only over frames whose `viewport` is the same).
 */
export type BrowserLocated = LocatedOnFrames

/** One step of a run as the console shows it: what kind, how far it got and why (never its text: inputs go in it). */
export interface BrowserRunStep {
  readonly index: number
  readonly kind: StepKind
  /** Changes the site (the completed-writes ledger skips it on a repeat). */
  readonly write: boolean
  readonly status: StepStatus
  readonly attempts: number
  readonly reasonCode?: string
  readonly reason?: string
}

/** A workflow run on an assistant's tab, as `browser_read.workflow_status` folds it, plus who started it and when. */
export interface BrowserRun {
  readonly runId: string
  readonly tabId: string
  /** The assistant whose tab it runs on. */
  readonly principal: string
  readonly connection: string
  readonly site: string
  /** The workflow's declared inputs, by name only. */
  readonly inputNames: readonly string[]
  readonly status: RunStatus
  readonly reasonCode?: string
  readonly reason?: string
  /** The step the person must approve before the run goes on. */
  readonly pendingApproval?: PendingApproval
  readonly pausedAt?: string
  readonly resumedFrom?: string
  readonly steps: readonly BrowserRunStep[]
  readonly startedAt: number
  readonly endedAt?: number
}

export interface BrowserRuns {
  /** Newest first, at most 50 (consoleBrowserRuns.ts). */
  readonly runs: readonly BrowserRun[]
}

export interface BrowserRunCancelled {
  readonly runId: string
  readonly status: RunStatus
  /** `already-terminal`: it had ended before the person's cancel reached it; it stays as it ended. */
  readonly outcome: 'cancelled' | 'already-terminal'
}

/** A session saved by `browser.session_save`: its handle and the origin it belongs to, never a cookie or a value. */
export interface BrowserSavedSession {
  readonly name: string
  readonly origin: string
}

/** A named profile (`browser.open {profile}`): its name and the origins opened in it, never a login. */
export interface BrowserSavedProfile {
  readonly name: string
  readonly origins: readonly string[]
}

export interface BrowserSaved {
  readonly sessions: readonly BrowserSavedSession[]
  readonly profiles: readonly BrowserSavedProfile[]
}

export interface BrowserSavedDeleted {
  readonly name: string
  /** false: there was none by that name (already deleted). */
  readonly deleted: boolean
}

/** A `workflow_record` recording under way on an assistant's tab: what is being captured, as step text. */
export interface BrowserRecording {
  readonly recordingId: string
  readonly tabId: string
  /** The assistant that asked for it (and gets the workflow with its stop). */
  readonly principal: string
  readonly site: string
  readonly eventCount: number
  /** The steps so far (`action: click "Publish" (button)`): locators only, never a typed value. */
  readonly steps: readonly string[]
}

export interface BrowserRecordings {
  readonly recordings: readonly BrowserRecording[]
}

export interface BrowserRecordingStopped {
  readonly tabId: string
  readonly stopped: true
}
