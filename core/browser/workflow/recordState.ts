import { dataOf } from '../../events/schema.js'
import type { RecordedEvent } from '../../log/eventLog.js'
import { RecordingStarted, RecordingStopped, type RecordingEndReason } from './recordEvents.js'

export interface Recording {
  readonly recordingId: string
  readonly tabId: string
  readonly principal: string
  readonly connection: string
  readonly site: string
  readonly active: boolean
  readonly startedAt: number
  readonly endedAt?: number
  readonly reason?: RecordingEndReason
  readonly eventCount?: number
}

/** Every recording by id, in the order they started. */
export type RecordingsState = ReadonlyMap<string, Recording>

export const initialRecordings = (): RecordingsState => new Map()

/** The recording under way on `tabId`, if any: one per tab. */
export function recordingOn(state: RecordingsState, tabId: string): Recording | undefined {
  for (const recording of state.values()) if (recording.active && recording.tabId === tabId) return recording
  return undefined
}

export function evolveRecordings(state: RecordingsState, event: RecordedEvent): RecordingsState {
  switch (event.type) {
    case RecordingStarted.type: {
      const { recordingId, tabId, principal, connection, site } = dataOf(event, RecordingStarted)
      const next = new Map(state)
      next.set(recordingId, { recordingId, tabId, principal, connection, site, active: true, startedAt: event.at })
      return next
    }
    case RecordingStopped.type: {
      const { recordingId, reason, eventCount } = dataOf(event, RecordingStopped)
      const recording = state.get(recordingId)
      if (recording === undefined) return state
      const next = new Map(state)
      next.set(recordingId, { ...recording, active: false, endedAt: event.at, reason, eventCount })
      return next
    }
    default:
      return state
  }
}
