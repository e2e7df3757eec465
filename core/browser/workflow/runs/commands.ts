import { SYSTEM, type Actor } from '../../../events/actor.js'
import { QuireError } from '../../../errors.js'
import type { EventLog } from '../../../log/eventLog.js'
import type { FoldedStream } from '../../../streams/foldedStream.js'
import { decideRun, type RunCommand } from './decider.js'
import type { RunStatus } from './events.js'
import { isTerminal, type PendingApproval, type Run, type RunsState, type StepResult } from './state.js'

/** What `workflow_status` answers (BRR.WORKFLOW_STATUS.1): the run as folded from its events. */
export interface RunStatusView {
  readonly runId: string
  readonly tabId: string
  readonly status: RunStatus
  readonly completedSteps: number
  readonly skippedSteps: number
  readonly stepCount: number
  readonly firstStep: string | null
  readonly pausedAt?: string
  readonly pendingApproval?: PendingApproval
  readonly reasonCode?: string
  readonly reason?: string
  readonly resumedFrom?: string
  readonly stepResults: readonly StepResult[]
}

export type CancelOutcome = { readonly outcome: 'cancelled'; readonly run: RunStatusView } | { readonly outcome: 'already-terminal'; readonly run: RunStatusView }

type Without<C> = C extends unknown ? Omit<C, 'actor'> : never

/**
 * The owner of the `browser-runs` stream: every change to a run goes through `decideRun` here, in the stream's
 * step, and is durable before it is answered. Reading (`status`) only looks at the folded state: polling changes
 * nothing (BRR.WORKFLOW_STATUS.6).
 */
export class WorkflowRunCommands {
  constructor(
    private readonly store: EventLog,
    private readonly view: FoldedStream<RunsState>,
  ) {}

  get state(): RunsState {
    return this.view.state
  }

  async apply(command: Without<RunCommand>, actor: Actor): Promise<RunsState> {
    return this.view.handle(this.store, (current) => decideRun({ ...command, actor } as RunCommand, current))
  }

  /** The run of `principal` (another's is not theirs to learn of), or RUN_NOT_FOUND. */
  run(runId: string, principal: string): Run {
    const run = this.view.state.runs.get(runId)
    if (run === undefined || run.principal !== principal) throw new QuireError('RUN_NOT_FOUND', `no run ${runId}`)
    return run
  }

  status(runId: string, principal: string): RunStatusView {
    return describeRun(this.run(runId, principal))
  }

  /** Stops the run unless it already ended (BR.WORKFLOW_CANCEL.1, .4); the runner aborts what is under way. */
  async cancel(runId: string, principal: string, actor: Actor, why: { reasonCode: string; reason: string }): Promise<CancelOutcome> {
    const before = this.run(runId, principal)
    if (isTerminal(before.status)) return { outcome: 'already-terminal', run: describeRun(before) }
    const after = await this.apply({ type: 'cancel', runId, ...why }, actor)
    const run = after.runs.get(runId)!
    // Ended meanwhile by its own last step: that end stands.
    return run.status === 'cancelled'
      ? { outcome: 'cancelled', run: describeRun(run) }
      : { outcome: 'already-terminal', run: describeRun(run) }
  }

  /** Ends every run the previous process left running or paused (issue 15 item 3): reported failed, never lost. */
  async endInterrupted(): Promise<void> {
    await this.apply({ type: 'end-interrupted' }, SYSTEM)
  }
}

export function describeRun(run: Run): RunStatusView {
  return {
    runId: run.runId,
    tabId: run.tabId,
    status: run.status,
    completedSteps: run.stepResults.filter((step) => step.status === 'success').length,
    skippedSteps: run.stepResults.filter((step) => step.status === 'skipped').length,
    stepCount: run.steps.length,
    firstStep: run.firstStep,
    ...(run.pausedAt !== undefined ? { pausedAt: run.pausedAt } : {}),
    ...(run.pendingApproval !== undefined ? { pendingApproval: run.pendingApproval } : {}),
    ...(run.reasonCode !== undefined ? { reasonCode: run.reasonCode } : {}),
    ...(run.reason !== undefined ? { reason: run.reason } : {}),
    ...(run.resumedFrom !== undefined ? { resumedFrom: run.resumedFrom } : {}),
    stepResults: run.stepResults,
  }
}
