import { z } from 'zod'
import { defineEvent } from '../../events/schema.js'

/**
 * The `browser-recordings` stream: every `workflow_record` start and stop (BR.WORKFLOW_RECORD.*), so the audit log
 * says who recorded which tab, with which approval, and how much. It never holds what the recording captured: not a
 * step, not a name read from the page, and no value (none was ever captured), only counts.
 */
export const WORKFLOW_RECORDINGS_STREAM = 'browser-recordings'

const recordingId = z.string().min(1).max(64)
const count = z.number().int().min(0).max(1_000_000)

/** Why a recording ended: `stop` was called, its tab closed, or the daemon that held it went away. */
export const RECORDING_END_REASONS = ['stopped', 'tab-closed', 'daemon-restarted'] as const
export type RecordingEndReason = (typeof RECORDING_END_REASONS)[number]

export const RecordingStarted = defineEvent({
  type: 'browser.record.started',
  version: 1,
  schema: z
    .object({
      recordingId,
      tabId: z.string().min(1).max(64),
      /** The engine principal whose tab it records. */
      principal: z.string().min(1).max(256),
      connection: z.string().min(1).max(256),
      /** The front matter's `site` the recorded workflow will carry. */
      site: z.string().min(1).max(200),
      /** The tab's origin when the recording began (no path: the log keeps no more of the person's place than that). */
      origin: z.string().min(1).max(2_048),
      /** The person's `record` approval, used up by this start (APPR.4). */
      approvalId: z.string().min(1).max(64),
    })
    .strict(),
})

export const RecordingStopped = defineEvent({
  type: 'browser.record.stopped',
  version: 1,
  schema: z
    .object({
      recordingId,
      reason: z.enum(RECORDING_END_REASONS),
      eventCount: count,
      stepCount: count,
      inputCount: count,
      confirmCount: count,
      pageCount: count,
      /** Events not kept: past the 200-per-page or 1,000-per-recording cap, or without a name to find them by. */
      dropped: z.object({ pageCap: count, sessionCap: count, unlocatable: count }).strict(),
    })
    .strict(),
})

export const workflowRecordingEvents = [RecordingStarted, RecordingStopped] as const
