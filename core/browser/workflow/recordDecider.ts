import type { Actor } from '../../events/actor.js'
import { QuireError } from '../../errors.js'
import type { EventInput } from '../../log/eventLog.js'
import type { RecordingEndReason } from './recordEvents.js'
import type { RecordingCounts } from './recordDraft.js'
import { recordingOn, type RecordingsState } from './recordState.js'

/**
 * The `browser-recordings` stream's decide. A recording starts only with the approval the person gave for it (the
 * adapter got it from BrowserAccess and it is used up: APPR.4), one per tab; it ends once, with its counts.
 */
export type RecordCommand =
  | {
      readonly type: 'start'
      readonly recordingId: string
      readonly tabId: string
      readonly principal: string
      readonly connection: string
      readonly site: string
      readonly origin: string
      readonly approvalId: string
      readonly actor: Actor
    }
  | { readonly type: 'stop'; readonly recordingId: string; readonly reason: RecordingEndReason; readonly counts: RecordingCounts; readonly actor: Actor }
  /** The log was opened by a new process: a recording it shows under way lost its tab and its capture with the old one. */
  | { readonly type: 'end-interrupted'; readonly actor: Actor }

const NO_COUNTS: RecordingCounts = { eventCount: 0, stepCount: 0, inputCount: 0, confirmCount: 0, pageCount: 0, dropped: { pageCap: 0, sessionCap: 0, unlocatable: 0 } }

export function decideRecording(command: RecordCommand, state: RecordingsState): EventInput[] {
  const { actor } = command
  switch (command.type) {
    case 'start': {
      if (state.has(command.recordingId)) throw new QuireError('INVALID_ARGUMENT', `recording ${command.recordingId} already exists`)
      const busy = recordingOn(state, command.tabId)
      if (busy !== undefined) throw new QuireError('RECORDING_ACTIVE', `${command.tabId} is being recorded already; stop that recording first`, { tabId: command.tabId })
      const { recordingId, tabId, principal, connection, site, origin, approvalId } = command
      return [{ type: 'browser.record.started', actor, data: { recordingId, tabId, principal, connection, site, origin, approvalId } }]
    }
    case 'stop': {
      const recording = state.get(command.recordingId)
      if (recording === undefined || !recording.active) return []
      return [{ type: 'browser.record.stopped', actor, data: { recordingId: recording.recordingId, reason: command.reason, ...counted(command.counts) } }]
    }
    case 'end-interrupted':
      return [...state.values()]
        .filter((recording) => recording.active)
        .map((recording) => ({ type: 'browser.record.stopped', actor, data: { recordingId: recording.recordingId, reason: 'daemon-restarted', ...NO_COUNTS } }))
  }
}

function counted(counts: RecordingCounts): RecordingCounts {
  const { eventCount, stepCount, inputCount, confirmCount, pageCount, dropped } = counts
  return { eventCount, stepCount, inputCount, confirmCount, pageCount, dropped: { pageCap: dropped.pageCap, sessionCap: dropped.sessionCap, unlocatable: dropped.unlocatable } }
}
