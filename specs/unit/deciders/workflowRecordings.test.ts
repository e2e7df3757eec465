import { describe, expect, it } from 'vitest'
import type { Actor } from '../../../core/events/actor.js'
import { SYSTEM } from '../../../core/events/actor.js'
import { openEmbeddedEngine } from '../../../adapters/leveldb/embeddedEngine.js'
import { decideRecording, type RecordCommand } from '../../../core/browser/workflow/recordDecider.js'
import { WORKFLOW_RECORDINGS_STREAM } from '../../../core/browser/workflow/recordEvents.js'
import { evolveRecordings, initialRecordings, recordingOn, type RecordingsState } from '../../../core/browser/workflow/recordState.js'
import type { RecordingCounts } from '../../../core/browser/workflow/recordDraft.js'
import { deciderSpec } from '../../support/decider.js'
import { useTempHomes } from '../../support/tempHome.js'

/**
 * The `browser-recordings` decider (BR.WORKFLOW_RECORD.*): one recording per tab, a stop recorded once with counts
 * only, and a recording a previous process left under way ended when the log is opened again.
 */
const recordings = deciderSpec<RecordCommand, RecordingsState>(WORKFLOW_RECORDINGS_STREAM, decideRecording, evolveRecordings, initialRecordings)
const agent: Actor = { kind: 'mcp', principal: 'claude', connection: 'c1' }
const COUNTS: RecordingCounts = { eventCount: 4, stepCount: 5, inputCount: 2, confirmCount: 1, pageCount: 2, dropped: { pageCap: 0, sessionCap: 0, unlocatable: 1 } }
const NONE: RecordingCounts = { eventCount: 0, stepCount: 0, inputCount: 0, confirmCount: 0, pageCount: 0, dropped: { pageCap: 0, sessionCap: 0, unlocatable: 0 } }

const start = (recordingId: string, tabId = 'tab-1'): Extract<RecordCommand, { type: 'start' }> => ({
  type: 'start', recordingId, tabId, principal: 'claude', connection: 'c1', site: 'recording', origin: 'https://blog.example', approvalId: 'ap-1', actor: agent,
})
const started = (recordingId: string, tabId = 'tab-1') => ({
  type: 'browser.record.started', actor: agent,
  data: { recordingId, tabId, principal: 'claude', connection: 'c1', site: 'recording', origin: 'https://blog.example', approvalId: 'ap-1' },
})
const stopped = (recordingId: string, reason: string, counts: RecordingCounts, actor: Actor = agent) => ({ type: 'browser.record.stopped', actor, data: { recordingId, reason, ...counts } })

describe('the browser-recordings decider', () => {
  it('BR.WORKFLOW_RECORD.2 a start is recorded with the approval it used; a second recording of the same tab is refused, another tab is not', () => {
    recordings.given([]).when(start('rec-1')).then([started('rec-1')])
    recordings.given([started('rec-1')]).when(start('rec-2')).thenRefuses('RECORDING_ACTIVE')
    recordings.given([started('rec-1')]).when(start('rec-2', 'tab-2')).then([started('rec-2', 'tab-2')])
    recordings.given([started('rec-1'), stopped('rec-1', 'stopped', COUNTS)]).when(start('rec-2')).then([started('rec-2')])
  })

  it('BR.WORKFLOW_RECORD.5 a stop records its counts once; a late second stop decides nothing', () => {
    recordings.given([started('rec-1')]).when({ type: 'stop', recordingId: 'rec-1', reason: 'stopped', counts: COUNTS, actor: agent }).then([stopped('rec-1', 'stopped', COUNTS)])
    recordings.given([started('rec-1'), stopped('rec-1', 'tab-closed', COUNTS)]).when({ type: 'stop', recordingId: 'rec-1', reason: 'stopped', counts: COUNTS, actor: agent }).then([])
    recordings.given([]).when({ type: 'stop', recordingId: 'rec-9', reason: 'stopped', counts: COUNTS, actor: agent }).then([])
  })

  it('a recording under way when a new process opens the log is ended as daemon-restarted, with nothing counted', () => {
    recordings.given([started('rec-1'), started('rec-2', 'tab-2'), stopped('rec-2', 'stopped', COUNTS)])
      .when({ type: 'end-interrupted', actor: SYSTEM })
      .then([stopped('rec-1', 'daemon-restarted', NONE, SYSTEM)])
  })
})

const newHome = useTempHomes()

describe('a restart on a real log', () => {
  it('the recording the log shows under way is ended as the stream loads, and the tab is free again', async () => {
    const home = await newHome()
    const first = await openEmbeddedEngine(home)
    await first.commands.workflowRecordings.apply({ ...start('rec-1'), type: 'start' }, agent)
    expect(recordingOn(first.commands.workflowRecordings.state, 'tab-1')?.recordingId).toBe('rec-1')
    await first.close()
    const second = await openEmbeddedEngine(home)
    try {
      expect(second.commands.workflowRecordings.state.get('rec-1')).toMatchObject({ active: false, reason: 'daemon-restarted', eventCount: 0 })
      expect(recordingOn(second.commands.workflowRecordings.state, 'tab-1')).toBeUndefined()
      expect(second.views.workflowRecordings.streamVersion).toBe(2)
    } finally {
      await second.close()
    }
  })
})
