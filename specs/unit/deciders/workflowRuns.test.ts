import { describe, expect, it } from 'vitest'
import type { Actor } from '../../../core/events/actor.js'
import { SYSTEM } from '../../../core/events/actor.js'
import { openEmbeddedEngine } from '../../../adapters/leveldb/embeddedEngine.js'
import { decideRun, type RunCommand } from '../../../core/browser/workflow/runs/decider.js'
import { WORKFLOW_RUNS_STREAM } from '../../../core/browser/workflow/runs/events.js'
import { evolveRuns, initialRuns, type RunsState } from '../../../core/browser/workflow/runs/state.js'
import { describeRun } from '../../../core/browser/workflow/runs/commands.js'
import { deciderSpec } from '../../support/decider.js'
import { useTempHomes } from '../../support/tempHome.js'

/**
 * The `browser-runs` decider (BR.WORKFLOW_RUN.7–9, .13, BR.WORKFLOW_CANCEL.1–5, BRR.WORKFLOW_STATUS.*): which steps a
 * run skips, one run per tab, what a cancel and a late report do, and the status folded from the events.
 */
const runs = deciderSpec<RunCommand, RunsState>(WORKFLOW_RUNS_STREAM, decideRun, evolveRuns, initialRuns)
const agent: Actor = { kind: 'mcp', principal: 'claude', connection: 'c1' }
const SOURCE = 'a'.repeat(64)
const INPUTS = 'b'.repeat(64)
const OTHER_INPUTS = 'c'.repeat(64)
const STEPS = [
  { index: 1, kind: 'action', write: true },
  { index: 2, kind: 'confirm', write: false },
  { index: 3, kind: 'action', write: true },
  { index: 4, kind: 'extract', write: false },
] as const

const start = (runId: string, extra: Partial<Extract<RunCommand, { type: 'start' }>> = {}): Extract<RunCommand, { type: 'start' }> => ({
  type: 'start', runId, tabId: 'tab-1', principal: 'claude', connection: 'c1', site: 'shop', sourceDigest: SOURCE, inputsDigest: INPUTS,
  inputNames: ['title'], steps: STEPS, allowRepeat: false, actor: agent, ...extra,
})
const started = (runId: string, extra: Record<string, unknown> = {}) => ({
  type: 'browser.run.started', actor: agent,
  data: {
    runId, tabId: 'tab-1', principal: 'claude', connection: 'c1', site: 'shop', sourceDigest: SOURCE, inputsDigest: INPUTS, inputNames: ['title'],
    steps: STEPS.map((step) => ({ ...step })), firstStep: 'step-1', allowRepeat: false, ...extra,
  },
})
const stepStarted = (runId: string, index: number) => ({ type: 'browser.run.step_started', actor: agent, data: { runId, index } })
const stepDone = (runId: string, index: number, outcome = 'success', why: Record<string, unknown> = {}) => ({ type: 'browser.run.step_finished', actor: agent, data: { runId, index, outcome, ...why } })
const ended = (runId: string, status: string, why: Record<string, unknown> = {}) => ({ type: 'browser.run.ended', actor: agent, data: { runId, status, ...why } })
const paused = (runId: string, index: number) => ({ type: 'browser.run.paused', actor: agent, data: { runId, index, reasonCode: 'needs-human', reason: 'confirm' } })
const pending = (runId: string, approvalId = 'ap-1') => ({ type: 'browser.run.approval_pending', actor: agent, data: { runId, index: 1, approvalId, operation: 'click', url: 'http://shop.test' } })
/** A first run that succeeded at steps 1, 3 and 4 and completed. */
const completedRun = [started('r1'), stepStarted('r1', 1), stepDone('r1', 1), stepStarted('r1', 2), stepDone('r1', 2), stepStarted('r1', 3), stepDone('r1', 3), stepStarted('r1', 4), stepDone('r1', 4), ended('r1', 'completed')]

describe('BR.WORKFLOW_RUN.8 / BR.WORKFLOW_RUN.9 the completed-writes ledger', () => {
  it('given nothing, when a run starts, then it starts at step 1 skipping nothing', () => {
    runs.given([]).when(start('r1')).then([started('r1')])
  })

  it('given a completed run, when the same workflow starts with the same inputs, then its succeeded write steps are skipped', () => {
    runs.given(completedRun).when(start('r2')).then([
      started('r2', { firstStep: 'step-2' }),
      stepDone('r2', 1, 'skipped', { reasonCode: 'already-done', reason: expect.stringContaining('allowRepeat') }),
      stepDone('r2', 3, 'skipped', { reasonCode: 'already-done', reason: expect.stringContaining('allowRepeat') }),
    ])
  })

  it('given a completed run, when it starts with allowRepeat, with other inputs or by another principal, then it runs in full', () => {
    runs.given(completedRun).when(start('r2', { allowRepeat: true })).then([started('r2', { allowRepeat: true })])
    runs.given(completedRun).when(start('r2', { inputsDigest: OTHER_INPUTS })).then([started('r2', { inputsDigest: OTHER_INPUTS })])
    runs.given(completedRun).when(start('r2', { principal: 'gemini' })).then([started('r2', { principal: 'gemini' })])
  })

  it('given a write step that failed, when the run starts again, then that step runs again', () => {
    const failed = [started('r1'), stepStarted('r1', 1), stepDone('r1', 1, 'failed', { reasonCode: 'hidden' }), ended('r1', 'failed', { reasonCode: 'hidden' })]
    runs.given(failed).when(start('r2')).then([started('r2')])
  })
})

describe('BR.WORKFLOW_RUN.7 resuming a paused run', () => {
  const pausedRun = [started('r1'), stepStarted('r1', 1), stepDone('r1', 1), stepStarted('r1', 2), paused('r1', 2)]

  it('given a run paused at its confirm step, when it is resumed, then the finished steps are inherited, the paused one is done by the person, the old run superseded', () => {
    runs.given(pausedRun).when(start('r2', { resumeRunId: 'r1', allowRepeat: true })).then([
      started('r2', { firstStep: 'step-3', resumedFrom: 'r1', allowRepeat: true }),
      ended('r1', 'superseded', { reasonCode: 'superseded', reason: 'resumed by r2' }),
      stepDone('r2', 1, 'skipped', { reasonCode: 'inherited', reason: 'finished in r1' }),
      stepDone('r2', 2, 'skipped', { reasonCode: 'done-by-person', reason: expect.stringContaining('paused here') }),
    ])
  })

  it('given a run that is not paused, of another workflow, tab or principal, or none, when it is resumed, then the start is refused', () => {
    runs.given(completedRun).when(start('r2', { resumeRunId: 'r1' })).thenRefuses('INVALID_ARGUMENT', /only a paused run/)
    runs.given(pausedRun).when(start('r2', { resumeRunId: 'r1', sourceDigest: 'd'.repeat(64) })).thenRefuses('INVALID_ARGUMENT', /same source/)
    runs.given(pausedRun).when(start('r2', { resumeRunId: 'r1', tabId: 'tab-2' })).thenRefuses('INVALID_ARGUMENT', /on that tab/)
    runs.given(pausedRun).when(start('r2', { resumeRunId: 'r1', principal: 'gemini' })).thenRefuses('RUN_NOT_FOUND')
    runs.given([]).when(start('r2', { resumeRunId: 'r9' })).thenRefuses('RUN_NOT_FOUND')
  })
})

describe('BR.WORKFLOW_RUN.13 one run per tab', () => {
  it('given a running run on the tab, when another starts there, then RUN_ACTIVE; on another tab, or once the first paused, it starts', () => {
    runs.given([started('r1')]).when(start('r2')).thenRefuses('RUN_ACTIVE', /one run per tab/)
    runs.given([started('r1')]).when(start('r2', { tabId: 'tab-2' })).then([started('r2', { tabId: 'tab-2' })])
    runs.given([started('r1'), stepStarted('r1', 1), stepDone('r1', 1), stepStarted('r1', 2), paused('r1', 2)]).when(start('r2', { allowRepeat: true })).then([started('r2', { allowRepeat: true })])
  })
})

describe('BR.WORKFLOW_CANCEL.1–5 cancelling', () => {
  it('given a run waiting on an approval, when it is cancelled, then the prompt is withdrawn and the run ends cancelled', () => {
    runs.given([started('r1'), stepStarted('r1', 1), pending('r1')]).when({ type: 'cancel', runId: 'r1', reasonCode: 'cancelled', reason: 'by the assistant', actor: agent }).then([
      { type: 'browser.run.approval_settled', actor: agent, data: { runId: 'r1', approvalId: 'ap-1', outcome: 'withdrawn' } },
      ended('r1', 'cancelled', { reasonCode: 'cancelled', reason: 'by the assistant' }),
    ])
  })

  it('given an ended run, when it is cancelled, then nothing changes; an unknown run is RUN_NOT_FOUND', () => {
    runs.given(completedRun).when({ type: 'cancel', runId: 'r1', reasonCode: 'cancelled', reason: 'x', actor: agent }).then([])
    runs.given([]).when({ type: 'cancel', runId: 'r9', reasonCode: 'cancelled', reason: 'x', actor: agent }).thenRefuses('RUN_NOT_FOUND')
  })

  it('given a cancelled run, when its step reports finishing late, then nothing is decided (the run stays as it ended)', () => {
    const cancelled = [started('r1'), stepStarted('r1', 1), ended('r1', 'cancelled', { reasonCode: 'cancelled' })]
    runs.given(cancelled).when({ type: 'step-finished', runId: 'r1', index: 1, outcome: 'success', actor: agent }).then([])
    runs.given(cancelled).when({ type: 'end', runId: 'r1', status: 'completed', actor: agent }).then([])
  })

  it('given a running run, when a step it does not have is reported, then it is refused', () => {
    runs.given([started('r1')]).when({ type: 'step-started', runId: 'r1', index: 9, actor: agent }).thenRefuses('INVALID_ARGUMENT')
  })
})

describe('a restart', () => {
  it('given runs running, paused and ended, when the log is opened by a new process, then the running and paused ones end failed', () => {
    const history = [...completedRun, started('r2', { tabId: 'tab-2' }), started('r3', { tabId: 'tab-3' }), stepStarted('r3', 1), stepDone('r3', 1), stepStarted('r3', 2), paused('r3', 2)]
    const why = { reasonCode: 'daemon-restarted', reason: expect.stringContaining('daemon stopped') }
    runs.given(history).when({ type: 'end-interrupted', actor: SYSTEM }).then([
      { ...ended('r2', 'failed', why), actor: SYSTEM },
      { ...ended('r3', 'failed', why), actor: SYSTEM },
    ])
  })
})

describe('BRR.WORKFLOW_STATUS.1–5 the status folded from the events', () => {
  it('counts completed and skipped steps, lists one entry per step, and reports pendingApproval and pausedAt', () => {
    const waiting = runs.given([started('r1'), stepStarted('r1', 1), pending('r1')]).state
    expect(describeRun(waiting.runs.get('r1')!)).toEqual({
      runId: 'r1', tabId: 'tab-1', status: 'running', completedSteps: 0, skippedSteps: 0, stepCount: 4, firstStep: 'step-1',
      pendingApproval: { approvalId: 'ap-1', step: 1, operation: 'click', url: 'http://shop.test' },
      stepResults: [
        { index: 1, status: 'running', attempts: 1 }, { index: 2, status: 'pending', attempts: 0 },
        { index: 3, status: 'pending', attempts: 0 }, { index: 4, status: 'pending', attempts: 0 },
      ],
    })
    const settled = runs.given([started('r1'), stepStarted('r1', 1), pending('r1'), { type: 'browser.run.approval_settled', actor: agent, data: { runId: 'r1', approvalId: 'ap-1', outcome: 'approved' } }, stepDone('r1', 1), stepStarted('r1', 2), paused('r1', 2)]).state
    expect(describeRun(settled.runs.get('r1')!)).toMatchObject({ status: 'paused', pausedAt: 'step-2', reasonCode: 'needs-human', completedSteps: 1 })
    expect(describeRun(settled.runs.get('r1')!)).not.toHaveProperty('pendingApproval')
    const cut = runs.given([started('r1'), stepStarted('r1', 1), ended('r1', 'cancelled', { reasonCode: 'lease-lost', reason: 'the person took over' })]).state
    expect(cut.runs.get('r1')!.stepResults[0]).toEqual({ index: 1, status: 'failed', attempts: 1, reasonCode: 'lease-lost', reason: 'the person took over' })
  })
})

const newHome = useTempHomes()

describe('a restart on a real log', () => {
  it('a run the log shows running when the engine opens is ended failed as the stream loads, and the status says why', async () => {
    const home = await newHome()
    const first = await openEmbeddedEngine(home)
    await first.commands.workflowRuns.apply({ ...start('r1'), type: 'start' }, agent)
    await first.commands.workflowRuns.apply({ type: 'step-started', runId: 'r1', index: 1 }, agent)
    await first.close()
    const second = await openEmbeddedEngine(home)
    try {
      expect(second.commands.workflowRuns.status('r1', 'claude')).toMatchObject({ status: 'failed', reasonCode: 'daemon-restarted' })
      expect(second.commands.workflowRuns.status('r1', 'claude').stepResults[0]).toMatchObject({ status: 'failed', reasonCode: 'daemon-restarted' })
    } finally {
      await second.close()
    }
    // Opened once more, nothing further is decided: the run stays as it ended.
    const third = await openEmbeddedEngine(home)
    try {
      expect(third.views.workflowRuns.streamVersion).toBe(3)
    } finally {
      await third.close()
    }
  })
})
