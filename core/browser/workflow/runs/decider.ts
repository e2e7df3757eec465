import type { Actor } from '../../../events/actor.js'
import { QuireError } from '../../../errors.js'
import type { EventInput } from '../../../log/eventLog.js'
import { REASON_CHARS, type StepOutcome, type TerminalRunStatus } from './events.js'
import { isTerminal, ledgerKey, runningOn, stepId, type PendingApproval, type RunStep, type RunsState } from './state.js'

/**
 * The `browser-runs` stream's decide: what a run may do next, given every run so far. Pure: the runner measures
 * time, talks to the page and asks the person; this says what that means for the run.
 *
 * Starting decides which steps run at all (BR.WORKFLOW_RUN.7–9): a resumed run inherits its predecessor's finished
 * steps and takes the step it paused at as done by the person; a write step the ledger says already succeeded for
 * the same principal, workflow and inputs is skipped unless `allowRepeat`. The first step left is `firstStep`.
 *
 * Reports about a run that has already ended (a step finishing after a cancel) decide nothing: the run stays as it
 * ended (BR.WORKFLOW_CANCEL.4).
 */
export type RunCommand =
  | {
      readonly type: 'start'
      readonly runId: string
      readonly tabId: string
      readonly principal: string
      readonly connection: string
      readonly site: string
      readonly sourceDigest: string
      readonly inputsDigest: string
      readonly inputNames: readonly string[]
      readonly steps: readonly RunStep[]
      readonly allowRepeat: boolean
      readonly resumeRunId?: string
      readonly actor: Actor
    }
  | { readonly type: 'step-started'; readonly runId: string; readonly index: number; readonly actor: Actor }
  | {
      readonly type: 'step-finished'
      readonly runId: string
      readonly index: number
      readonly outcome: StepOutcome
      readonly reasonCode?: string
      readonly reason?: string
      readonly data?: Readonly<Record<string, unknown>>
      readonly actor: Actor
    }
  | { readonly type: 'approval-pending'; readonly runId: string; readonly approval: PendingApproval; readonly actor: Actor }
  | { readonly type: 'approval-settled'; readonly runId: string; readonly approvalId: string; readonly outcome: 'approved' | 'denied' | 'expired' | 'withdrawn'; readonly actor: Actor }
  | { readonly type: 'pause'; readonly runId: string; readonly index: number; readonly reasonCode: string; readonly reason: string; readonly actor: Actor }
  /** The run's own end: every step done (`completed`) or one that cannot go on (`failed`). */
  | { readonly type: 'end'; readonly runId: string; readonly status: Exclude<TerminalRunStatus, 'superseded'>; readonly reasonCode?: string; readonly reason?: string; readonly actor: Actor }
  /** Someone stops it: `workflow_cancel`, or the person taking over the tab. Never gated (APPR.7). */
  | { readonly type: 'cancel'; readonly runId: string; readonly reasonCode: string; readonly reason: string; readonly actor: Actor }
  /** The log was opened by a new process: every run still running or paused lost its tab with the old one. */
  | { readonly type: 'end-interrupted'; readonly actor: Actor }

/** Which steps a new run skips, and why, before it starts (the ledger and the resumed run). */
export function plannedSkips(
  state: RunsState,
  command: Extract<RunCommand, { type: 'start' }>,
): Map<number, { readonly reasonCode: string; readonly reason: string }> {
  const skips = new Map<number, { reasonCode: string; reason: string }>()
  const resumed = command.resumeRunId === undefined ? undefined : state.runs.get(command.resumeRunId)
  if (resumed !== undefined) {
    for (const step of resumed.stepResults) {
      if (step.status === 'success' || step.status === 'skipped') skips.set(step.index, { reasonCode: 'inherited', reason: `finished in ${resumed.runId}` })
    }
    const paused = resumed.stepResults.find((step) => step.status === 'paused')
    if (paused !== undefined) skips.set(paused.index, { reasonCode: 'done-by-person', reason: `${resumed.runId} paused here for manual handling; taken as done` })
  }
  if (!command.allowRepeat) {
    const done = state.ledger.get(ledgerKey(command)) ?? new Set<number>()
    for (const step of command.steps) {
      if (step.write && done.has(step.index) && !skips.has(step.index)) {
        skips.set(step.index, { reasonCode: 'already-done', reason: 'this write step already succeeded with the same workflow and inputs; pass allowRepeat to run it again' })
      }
    }
  }
  return skips
}

export function decideRun(command: RunCommand, state: RunsState): EventInput[] {
  const { actor } = command
  switch (command.type) {
    case 'start': {
      if (state.runs.has(command.runId)) throw new QuireError('INVALID_ARGUMENT', `run ${command.runId} already exists`)
      const busy = runningOn(state, command.tabId, command.principal)
      if (busy !== undefined) {
        throw new QuireError('RUN_ACTIVE', `${busy.runId} is running on ${command.tabId}; one run per tab: wait for it, or workflow_cancel it`, { runId: busy.runId })
      }
      const events: EventInput[] = []
      if (command.resumeRunId !== undefined) {
        const resumed = state.runs.get(command.resumeRunId)
        if (resumed === undefined || resumed.principal !== command.principal) throw new QuireError('RUN_NOT_FOUND', `no run ${command.resumeRunId}`)
        if (resumed.status !== 'paused') throw new QuireError('INVALID_ARGUMENT', `${resumed.runId} is ${resumed.status}; only a paused run can be resumed`)
        if (resumed.tabId !== command.tabId) throw new QuireError('INVALID_ARGUMENT', `${resumed.runId} ran on ${resumed.tabId}; resume it on that tab`)
        if (resumed.sourceDigest !== command.sourceDigest) throw new QuireError('INVALID_ARGUMENT', `${resumed.runId} ran another workflow; resume it with the same source`)
      }
      const skips = plannedSkips(state, command)
      const first = command.steps.find((step) => !skips.has(step.index))
      events.push({
        type: 'browser.run.started',
        actor,
        data: {
          runId: command.runId,
          tabId: command.tabId,
          principal: command.principal,
          connection: command.connection,
          site: command.site,
          sourceDigest: command.sourceDigest,
          inputsDigest: command.inputsDigest,
          inputNames: [...command.inputNames],
          steps: command.steps.map(({ index, kind, write }) => ({ index, kind, write })),
          firstStep: first === undefined ? null : stepId(first.index),
          allowRepeat: command.allowRepeat,
          ...(command.resumeRunId !== undefined ? { resumedFrom: command.resumeRunId } : {}),
        },
      })
      if (command.resumeRunId !== undefined) {
        events.push({ type: 'browser.run.ended', actor, data: { runId: command.resumeRunId, status: 'superseded', reasonCode: 'superseded', reason: `resumed by ${command.runId}` } })
      }
      for (const [index, why] of [...skips].sort(([a], [b]) => a - b)) {
        events.push({ type: 'browser.run.step_finished', actor, data: { runId: command.runId, index, outcome: 'skipped', ...why } })
      }
      return events
    }
    case 'step-started': {
      const run = live(state, command.runId)
      if (run === undefined || run.status !== 'running') return []
      checkStep(run.steps, command.index)
      return [{ type: 'browser.run.step_started', actor, data: { runId: run.runId, index: command.index } }]
    }
    case 'step-finished': {
      const run = live(state, command.runId)
      if (run === undefined || run.status !== 'running') return []
      checkStep(run.steps, command.index)
      const { index, outcome, reasonCode, data } = command
      const reason = command.reason === undefined ? undefined : clip(command.reason)
      return [
        {
          type: 'browser.run.step_finished',
          actor,
          data: { runId: run.runId, index, outcome, ...(reasonCode !== undefined ? { reasonCode } : {}), ...(reason !== undefined ? { reason } : {}), ...(data !== undefined ? { data } : {}) },
        },
      ]
    }
    case 'approval-pending': {
      const run = live(state, command.runId)
      if (run === undefined || run.status !== 'running') return []
      const { approvalId, step, operation, url, target } = command.approval
      checkStep(run.steps, step)
      return [{ type: 'browser.run.approval_pending', actor, data: { runId: run.runId, index: step, approvalId, operation, url, ...(target !== undefined ? { target } : {}) } }]
    }
    case 'approval-settled': {
      const run = live(state, command.runId)
      if (run === undefined || run.pendingApproval?.approvalId !== command.approvalId) return []
      return [{ type: 'browser.run.approval_settled', actor, data: { runId: run.runId, approvalId: command.approvalId, outcome: command.outcome } }]
    }
    case 'pause': {
      const run = live(state, command.runId)
      if (run === undefined || run.status !== 'running') return []
      checkStep(run.steps, command.index)
      return [{ type: 'browser.run.paused', actor, data: { runId: run.runId, index: command.index, reasonCode: command.reasonCode, reason: clip(command.reason) } }]
    }
    case 'end': {
      const run = live(state, command.runId)
      if (run === undefined || run.status !== 'running') return []
      const { status, reasonCode } = command
      const reason = command.reason === undefined ? undefined : clip(command.reason)
      return [{ type: 'browser.run.ended', actor, data: { runId: run.runId, status, ...(reasonCode !== undefined ? { reasonCode } : {}), ...(reason !== undefined ? { reason } : {}) } }]
    }
    case 'cancel': {
      const run = state.runs.get(command.runId)
      if (run === undefined) throw new QuireError('RUN_NOT_FOUND', `no run ${command.runId}`)
      if (isTerminal(run.status)) return []
      const withdrawn = run.pendingApproval === undefined ? [] : [{ type: 'browser.run.approval_settled', actor, data: { runId: run.runId, approvalId: run.pendingApproval.approvalId, outcome: 'withdrawn' } }]
      return [...withdrawn, { type: 'browser.run.ended', actor, data: { runId: run.runId, status: 'cancelled', reasonCode: command.reasonCode, reason: clip(command.reason) } }]
    }
    case 'end-interrupted': {
      const events: EventInput[] = []
      for (const run of state.runs.values()) {
        if (isTerminal(run.status)) continue
        events.push({
          type: 'browser.run.ended',
          actor,
          data: {
            runId: run.runId,
            status: 'failed',
            reasonCode: 'daemon-restarted',
            reason: `the daemon stopped while this run was ${run.status}; its tab closed with it`,
          },
        })
      }
      return events
    }
  }
}

const clip = (reason: string): string => (reason.length > REASON_CHARS ? `${reason.slice(0, REASON_CHARS - 1)}…` : reason)

/** A run that exists and has not ended; undefined otherwise (late reports about an ended run change nothing). */
function live(state: RunsState, runId: string) {
  const run = state.runs.get(runId)
  return run === undefined || isTerminal(run.status) ? undefined : run
}

function checkStep(steps: readonly RunStep[], index: number): void {
  if (!steps.some((step) => step.index === index)) throw new QuireError('INVALID_ARGUMENT', `the run has no step ${index}`)
}
