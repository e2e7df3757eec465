import { dataOf } from '../../../events/schema.js'
import type { RecordedEvent } from '../../../log/eventLog.js'
import type { StepKind } from '../types.js'
import {
  RunApprovalPending,
  RunApprovalSettled,
  RunEnded,
  RunPaused,
  RunStarted,
  RunStepFinished,
  RunStepStarted,
  type RunStatus,
} from './events.js'

/** A step's place in its run's status: not reached, under way, or how it ended (BRR.WORKFLOW_STATUS.3). */
export type StepStatus = 'pending' | 'running' | 'success' | 'failed' | 'skipped' | 'paused'

export interface StepResult {
  readonly index: number
  readonly status: StepStatus
  /** How many times the runner started the step (a skip is 0). */
  readonly attempts: number
  readonly reasonCode?: string
  readonly reason?: string
  readonly data?: Readonly<Record<string, unknown>>
}

/** The prompt a run waits on (BR.WORKFLOW_RUN.15, BRR.WORKFLOW_STATUS.4). */
export interface PendingApproval {
  readonly approvalId: string
  readonly step: number
  readonly operation: string
  readonly url: string
  readonly target?: { readonly role: string; readonly name: string }
}

export interface RunStep {
  readonly index: number
  readonly kind: StepKind
  /** A step that changes the site (action, goal, api): the completed-writes ledger records it. */
  readonly write: boolean
}

export interface Run {
  readonly runId: string
  readonly tabId: string
  readonly principal: string
  readonly connection: string
  readonly site: string
  readonly sourceDigest: string
  readonly inputsDigest: string
  readonly inputNames: readonly string[]
  readonly status: RunStatus
  readonly steps: readonly RunStep[]
  readonly firstStep: string | null
  readonly allowRepeat: boolean
  readonly resumedFrom?: string
  readonly pausedAt?: string
  readonly pendingApproval?: PendingApproval
  readonly reasonCode?: string
  readonly reason?: string
  readonly stepResults: readonly StepResult[]
  readonly startedAt: number
  readonly endedAt?: number
}

export interface RunsState {
  readonly runs: ReadonlyMap<string, Run>
  /**
   * The completed-writes ledger (BR.WORKFLOW_RUN.8): for one principal, workflow and inputs, the write steps that
   * succeeded. Keyed by the inputs' per-process digest, so it holds for the daemon's life and no longer.
   */
  readonly ledger: ReadonlyMap<string, ReadonlySet<number>>
}

export const initialRuns = (): RunsState => ({ runs: new Map(), ledger: new Map() })

export const ledgerKey = (run: Pick<Run, 'principal' | 'sourceDigest' | 'inputsDigest'>): string => `${run.principal}\u0000${run.sourceDigest}\u0000${run.inputsDigest}`

export const stepId = (index: number): string => `step-${index}`

const TERMINAL: ReadonlySet<RunStatus> = new Set(['completed', 'failed', 'cancelled', 'superseded'])
export const isTerminal = (status: RunStatus): boolean => TERMINAL.has(status)

/** The run holding `tabId` now: one run per tab (BR.WORKFLOW_RUN.13); a paused run has let go of its tab. */
export function runningOn(state: RunsState, tabId: string, principal: string): Run | undefined {
  for (const run of state.runs.values()) if (run.status === 'running' && run.tabId === tabId && run.principal === principal) return run
  return undefined
}

function withRun(state: RunsState, runId: string, change: (run: Run) => Run): RunsState {
  const run = state.runs.get(runId)
  if (run === undefined) return state
  const runs = new Map(state.runs)
  runs.set(runId, change(run))
  return { ...state, runs }
}

function withStep(run: Run, index: number, change: (step: StepResult) => StepResult): Run {
  return { ...run, stepResults: run.stepResults.map((step) => (step.index === index ? change(step) : step)) }
}

const plain = (index: number, status: StepStatus, attempts: number): StepResult => ({ index, status, attempts })

export function evolveRuns(state: RunsState, event: RecordedEvent): RunsState {
  switch (event.type) {
    case RunStarted.type: {
      const data = dataOf(event, RunStarted)
      const runs = new Map(state.runs)
      runs.set(data.runId, {
        runId: data.runId,
        tabId: data.tabId,
        principal: data.principal,
        connection: data.connection,
        site: data.site,
        sourceDigest: data.sourceDigest,
        inputsDigest: data.inputsDigest,
        inputNames: data.inputNames,
        status: 'running',
        steps: data.steps,
        firstStep: data.firstStep,
        allowRepeat: data.allowRepeat,
        ...(data.resumedFrom !== undefined ? { resumedFrom: data.resumedFrom } : {}),
        stepResults: data.steps.map((step) => plain(step.index, 'pending', 0)),
        startedAt: event.at,
      })
      return { ...state, runs }
    }
    case RunStepStarted.type: {
      const { runId, index } = dataOf(event, RunStepStarted)
      return withRun(state, runId, (run) => withStep(run, index, (step) => plain(index, 'running', step.attempts + 1)))
    }
    case RunStepFinished.type: {
      const { runId, index, outcome, reasonCode, reason, data } = dataOf(event, RunStepFinished)
      const next = withRun(state, runId, (run) =>
        withStep(run, index, (step) => ({
          ...plain(index, outcome, step.attempts),
          ...(reasonCode !== undefined ? { reasonCode } : {}),
          ...(reason !== undefined ? { reason } : {}),
          ...(data !== undefined ? { data } : {}),
        })),
      )
      const run = next.runs.get(runId)
      if (outcome !== 'success' || run === undefined || run.steps.find((step) => step.index === index)?.write !== true) return next
      const key = ledgerKey(run)
      const ledger = new Map(next.ledger)
      ledger.set(key, new Set([...(ledger.get(key) ?? []), index]))
      return { ...next, ledger }
    }
    case RunApprovalPending.type: {
      const { runId, index, approvalId, operation, url, target } = dataOf(event, RunApprovalPending)
      return withRun(state, runId, (run) => ({ ...run, pendingApproval: { approvalId, step: index, operation, url, ...(target !== undefined ? { target } : {}) } }))
    }
    case RunApprovalSettled.type: {
      const { runId, approvalId } = dataOf(event, RunApprovalSettled)
      return withRun(state, runId, (run) => {
        if (run.pendingApproval?.approvalId !== approvalId) return run
        const { pendingApproval: _settled, ...rest } = run
        return rest
      })
    }
    case RunPaused.type: {
      const { runId, index, reasonCode, reason } = dataOf(event, RunPaused)
      return withRun(state, runId, (run) => {
        const { pendingApproval: _none, ...rest } = run
        return {
          ...withStep(rest, index, (step) => ({ ...plain(index, 'paused', step.attempts), reasonCode, reason })),
          status: 'paused',
          pausedAt: stepId(index),
          reasonCode,
          reason,
        }
      })
    }
    case RunEnded.type: {
      const { runId, status, reasonCode, reason } = dataOf(event, RunEnded)
      return withRun(state, runId, (run) => {
        const { pendingApproval: _none, reasonCode: _code, reason: _reason, ...rest } = run
        // A step cut off by the end did not finish: it is reported failed with the run's reason.
        const stepResults = rest.stepResults.map((step) =>
          step.status === 'running' ? { ...plain(step.index, 'failed', step.attempts), ...(reasonCode !== undefined ? { reasonCode } : {}), ...(reason !== undefined ? { reason } : {}) } : step,
        )
        return { ...rest, stepResults, status, endedAt: event.at, ...(reasonCode !== undefined ? { reasonCode } : {}), ...(reason !== undefined ? { reason } : {}) }
      })
    }
    default:
      return state
  }
}
