import type { ApprovalCommands } from '../../core/approvals/commands.js'
import { type Asker, type BrowserAccess, type BrowserAuthorization } from '../../core/browser/commands.js'
import type { BrowserActionEntry } from '../../core/browser/decider.js'
import type { BrowserOperation } from '../../core/browser/events.js'
import { askBeforeLoading } from '../../core/browser/hold.js'
import { typedSecret, typedText, type BrowserAccessRequest } from '../../core/browser/requests.js'
import { savedStateOwner } from '../../core/browser/savedState.js'
import { originOnly } from '../../core/browser/url.js'
import { checkSourceSize, checkStepCount } from '../../core/browser/workflow/limits.js'
import { parseWorkflow } from '../../core/browser/workflow/parse.js'
import type { WorkflowRunCommands, RunStatusView } from '../../core/browser/workflow/runs/commands.js'
import { inputsDigest, sourceDigest } from '../../core/browser/workflow/runs/identity.js'
import type { PendingApproval } from '../../core/browser/workflow/runs/state.js'
import { substituteInputs, type BoundAction, type ResolvedStep } from '../../core/browser/workflow/substitute.js'
import { USER, type Actor } from '../../core/events/actor.js'
import { QuireError } from '../../core/errors.js'
import { newId } from '../../core/ids.js'
import type { BrowserEngine } from './engine.js'
import { BrowserError } from './errors.js'

/**
 * Runs workflows on assistants' tabs (BR.WORKFLOW_RUN.*): the asynchronous part only. What a run may do, which steps
 * it skips and how it ends are decided in core (`WorkflowRunCommands`); each step is authorized by `BrowserAccess`
 * exactly as a hand-issued act, and recorded in the `browser` stream as one.
 *
 * Time: a run gets WORKFLOW_RUN_BUDGET_MS of running time; the clock stops while a step waits for the person's
 * approval (BR.WORKFLOW_RUN.12). Stopping: `cancel`, the person's input on the tab (the engine's `person-input`), the
 * tab closing or the budget running out abort the run at once, a step waiting for approval included, and withdraw the
 * prompt it waited on (BR.WORKFLOW_RUN.14, BR.WORKFLOW_CANCEL.3). An engine call already sent to the page cannot be
 * called back: the run ends without waiting for it, and its result is recorded in the `browser` stream when it comes.
 */

export const WORKFLOW_RUN_BUDGET_MS = 120_000
/** An extract step's Markdown kept in its step result (the status answer must stay within MCP's output bound). */
export const EXTRACT_DATA_CHARS = 4_000
const TARGET_NAME_CHARS = 1_000
const TARGET_ROLE_CHARS = 200
/** How long a click or type step waits for its target to be on the page (the page after a submit may be loading). */
const TARGET_WAIT_MS = 5_000
/** How long one wait on the person lasts before it looks again (the approval may have lapsed meanwhile). */
const DECISION_POLL_MS = 30_000

export interface RunRequest {
  /** The engine principal whose tab it runs on. */
  readonly principal: string
  /** Who started it: each step's approval is asked of the person on this connection's behalf. */
  readonly asker: Asker
  readonly tabId: string
  readonly source: string
  readonly inputs?: Readonly<Record<string, unknown>>
  readonly resumeRunId?: string
  readonly allowRepeat?: boolean
}

export interface RunStarted {
  readonly runId: string
  readonly steps: number
  readonly firstStep: string | null
}

interface Stop {
  readonly status: 'cancelled' | 'failed'
  readonly reasonCode: string
  readonly reason: string
  readonly actor: Actor
  /** Already recorded by whoever stopped it (workflow_cancel): the runner only stops. */
  readonly recorded: boolean
}

interface Live {
  readonly runId: string
  readonly tabId: string
  readonly principal: string
  readonly asker: Asker
  readonly controller: AbortController
  /** The approval the run waits on now, to withdraw when it stops. */
  waitingOn: string | null
  /** Running time used before the current stretch, and when that stretch began (null while waiting on the person). */
  spentMs: number
  stretchFrom: number | null
  budgetTimer: NodeJS.Timeout | null
}

class RunStopped extends Error {
  constructor(readonly stop: Stop) {
    super(stop.reason)
  }
}

/** A step's own failure: the run fails with this code. */
class StepFailed extends Error {
  constructor(
    readonly reasonCode: string,
    reason: string,
  ) {
    super(reason)
  }
}

export interface WorkflowRunnerDeps {
  readonly engine: BrowserEngine
  readonly access: BrowserAccess
  readonly approvals: ApprovalCommands
  readonly runs: WorkflowRunCommands
  readonly now?: () => number
  readonly budgetMs?: number
}

export class WorkflowRunner {
  readonly #live = new Map<string, Live>()
  readonly #now: () => number
  readonly #budgetMs: number
  readonly #unsubscribe: () => void

  constructor(private readonly deps: WorkflowRunnerDeps) {
    this.#now = deps.now ?? Date.now
    this.#budgetMs = deps.budgetMs ?? WORKFLOW_RUN_BUDGET_MS
    this.#unsubscribe = deps.engine.onEvent((event) => {
      if (event.type === 'person-input') {
        this.#stopOnTab(event.tabId, { status: 'cancelled', reasonCode: 'lease-lost', reason: 'the person took over the tab', actor: USER, recorded: false })
      } else if (event.type === 'tab-closed') {
        this.#stopOnTab(event.tabId, { status: 'failed', reasonCode: 'tab-closed', reason: `the tab closed (${event.reason})`, actor: USER, recorded: false })
      }
    })
  }

  /** Validates, records the start, and runs the workflow in the background; answers at once (BR.WORKFLOW_RUN.1). */
  async start(request: RunRequest): Promise<RunStarted> {
    const { principal, asker, tabId } = request
    const tooLarge = checkSourceSize(request.source)
    if (tooLarge) throw new QuireError('INVALID_ARGUMENT', tooLarge.message, { code: tooLarge.code, limit: tooLarge.limit })
    const parsed = parseWorkflow(request.source)
    if (!parsed.ok) {
      throw new QuireError('INVALID_ARGUMENT', `the workflow does not parse: ${parsed.errors.map((error) => `line ${error.line}: ${error.message}`).join('; ')}`, { diagnostics: [...parsed.errors, ...parsed.warnings] })
    }
    const tooMany = checkStepCount(parsed.workflow)
    if (tooMany) throw new QuireError('INVALID_ARGUMENT', tooMany.message, { code: tooMany.code, limit: tooMany.limit })
    const substituted = substituteInputs(parsed.workflow, request.inputs)
    if (!substituted.ok) {
      throw new QuireError('INVALID_ARGUMENT', substituted.errors.map((error) => error.message).join(' '), { errors: substituted.errors.map(({ code, name, step }) => ({ code, ...(name !== undefined ? { name } : {}), ...(step !== undefined ? { step } : {}) })) })
    }
    // Only an assistant's own tab: the engine refuses the person's with TAB_NOT_AI_OWNED.
    this.deps.engine.tabPlace(principal, tabId)
    const runId = newId('wfrun')
    const state = await this.deps.runs.apply(
      {
        type: 'start',
        runId,
        tabId,
        principal,
        connection: asker.connection,
        site: parsed.workflow.site,
        sourceDigest: sourceDigest(parsed.workflow),
        inputsDigest: inputsDigest(substituted.inputs),
        inputNames: parsed.workflow.inputs,
        steps: parsed.workflow.steps.map((step) => ({ index: step.index, kind: step.kind, write: step.kind !== 'extract' && step.kind !== 'confirm' })),
        allowRepeat: request.allowRepeat === true,
        ...(request.resumeRunId !== undefined ? { resumeRunId: request.resumeRunId } : {}),
      },
      asker.actor,
    )
    const run = state.runs.get(runId)!
    const live: Live = { runId, tabId, principal, asker, controller: new AbortController(), waitingOn: null, spentMs: 0, stretchFrom: null, budgetTimer: null }
    this.#live.set(runId, live)
    void this.#run(live, substituted.steps)
    return { runId, steps: run.steps.length, firstStep: run.firstStep }
  }

  status(runId: string, principal: string): RunStatusView {
    return this.deps.runs.status(runId, principal)
  }

  /**
   * Stops a run, never gated (BR.WORKFLOW_CANCEL.1–2); `already-terminal` leaves an ended run as it is (.4). `reason`
   * says who stopped it: the assistant by default, the person when the console's Cancel button calls.
   */
  async cancel(runId: string, principal: string, actor: Actor, reason = 'cancelled by the assistant'): Promise<{ outcome: 'cancelled' | 'already-terminal'; run: RunStatusView }> {
    const answer = await this.deps.runs.cancel(runId, principal, actor, { reasonCode: 'cancelled', reason })
    const live = this.#live.get(runId)
    if (live !== undefined && answer.outcome === 'cancelled') this.#abort(live, { status: 'cancelled', reasonCode: 'cancelled', reason: 'cancelled', actor, recorded: true })
    return answer
  }

  /** Stops every run (the daemon is closing); their runs are ended as interrupted when the log is next opened. */
  stop(): void {
    this.#unsubscribe()
    for (const live of this.#live.values()) this.#abort(live, { status: 'failed', reasonCode: 'daemon-stopped', reason: 'the daemon stopped', actor: USER, recorded: true })
  }

  #stopOnTab(tabId: string, stop: Stop): void {
    for (const live of this.#live.values()) if (live.tabId === tabId) this.#abort(live, stop)
  }

  #abort(live: Live, stop: Stop): void {
    if (!live.controller.signal.aborted) live.controller.abort(new RunStopped(stop))
  }

  async #run(live: Live, steps: readonly ResolvedStep[]): Promise<void> {
    const { runId } = live
    const actor = live.asker.actor
    this.#resumeClock(live)
    try {
      for (const step of steps) {
        const result = this.deps.runs.state.runs.get(runId)?.stepResults.find((entry) => entry.index === step.index)
        if (result?.status === 'skipped') continue
        this.#checkSignal(live)
        await this.deps.runs.apply({ type: 'step-started', runId, index: step.index }, actor)
        const manual = manualReason(step)
        if (manual !== undefined) {
          await this.deps.runs.apply({ type: 'pause', runId, index: step.index, ...manual }, actor)
          return
        }
        if (step.kind === 'action' && 'failure' in step) throw new StepFailed(step.failure.failure, `step ${step.index}: ${step.failure.message}`)
        const data = await this.#execute(live, step)
        this.#checkSignal(live)
        await this.deps.runs.apply({ type: 'step-finished', runId, index: step.index, outcome: 'success', ...(data !== undefined ? { data } : {}) }, actor)
      }
      await this.deps.runs.apply({ type: 'end', runId, status: 'completed' }, actor)
    } catch (error) {
      await this.#ended(live, error).catch(() => undefined)
    } finally {
      this.#pauseClock(live)
      this.#live.delete(runId)
      if (live.waitingOn !== null) await this.#withdraw(live.waitingOn, live.asker.actor)
    }
  }

  /** Records how the run stopped: its own failure, or a stop from outside (cancel, the person, the clock). */
  async #ended(live: Live, error: unknown): Promise<void> {
    const { runId } = live
    const stop = live.controller.signal.aborted ? (live.controller.signal.reason as RunStopped).stop : undefined
    if (stop !== undefined) {
      if (live.waitingOn !== null) {
        await this.deps.runs.apply({ type: 'approval-settled', runId, approvalId: live.waitingOn, outcome: 'withdrawn' }, stop.actor)
      }
      if (stop.recorded) return
      if (stop.status === 'cancelled') await this.deps.runs.apply({ type: 'cancel', runId, reasonCode: stop.reasonCode, reason: stop.reason }, stop.actor)
      else await this.deps.runs.apply({ type: 'end', runId, status: 'failed', reasonCode: stop.reasonCode, reason: stop.reason }, stop.actor)
      return
    }
    const actor = live.asker.actor
    const failure =
      error instanceof StepFailed ? { reasonCode: error.reasonCode, reason: error.message }
      : error instanceof BrowserError ? { reasonCode: stepCode(error), reason: error.message }
      : error instanceof QuireError ? { reasonCode: error.code, reason: error.message }
      : { reasonCode: 'internal', reason: error instanceof Error ? error.message : String(error) }
    const running = this.deps.runs.state.runs.get(runId)?.stepResults.find((step) => step.status === 'running')
    if (running !== undefined) await this.deps.runs.apply({ type: 'step-finished', runId, index: running.index, outcome: 'failed', ...failure }, actor)
    await this.deps.runs.apply({ type: 'end', runId, status: 'failed', ...failure }, actor)
  }

  #checkSignal(live: Live): void {
    if (live.controller.signal.aborted) throw live.controller.signal.reason
  }

  #resumeClock(live: Live): void {
    live.stretchFrom = this.#now()
    const left = this.#budgetMs - live.spentMs
    live.budgetTimer = setTimeout(() => {
      this.#abort(live, { status: 'failed', reasonCode: 'time-limit', reason: `the run used its ${this.#budgetMs / 1000} s of running time`, actor: live.asker.actor, recorded: false })
    }, Math.max(0, left))
    live.budgetTimer.unref()
  }

  #pauseClock(live: Live): void {
    if (live.stretchFrom !== null) live.spentMs += this.#now() - live.stretchFrom
    live.stretchFrom = null
    if (live.budgetTimer !== null) clearTimeout(live.budgetTimer)
    live.budgetTimer = null
  }

  /** Runs one deterministic step; answers its data (an extract's summary). */
  async #execute(live: Live, step: ResolvedStep): Promise<Record<string, unknown> | undefined> {
    const { engine } = this.deps
    const { principal, tabId } = live
    if (step.kind === 'extract') {
      const place = engine.tabPlace(principal, tabId)
      return this.#recorded(live, 'extract', { url: place.url, approvalId: null }, async () => {
        const { markdown, title, byline, url, textLength, truncated } = await engine.extract(principal, tabId)
        const cut = markdown.length > EXTRACT_DATA_CHARS
        return { title, byline, url, textLength, truncated, markdown: cut ? markdown.slice(0, EXTRACT_DATA_CHARS) : markdown, ...(cut ? { markdownCut: true } : {}) }
      })
    }
    if (step.kind !== 'action' || !('action' in step)) throw new StepFailed('not-executable', `step ${step.index} does not run in the daemon`)
    const action = step.action
    if (action.kind === 'navigate') return this.#navigate(live, step.index, action.url)
    return this.#act(live, step.index, action)
  }

  async #navigate(live: Live, index: number, url: string): Promise<undefined> {
    const { engine } = this.deps
    const { principal, tabId } = live
    const place = engine.tabPlace(principal, tabId)
    const trace: Trace = { url: URL.canParse(url) ? url : null, approvalId: null }
    await this.#recorded(live, 'navigate', trace, async () => {
      // A Shared-posture tab (the person's profile, BR.GEN.9) or a named profile's loads a new origin only once the
      // person approved it for the tab; a hop elsewhere on the way fails the step (the engine's guard stops it).
      const request = askBeforeLoading(engine.holdOf(principal, tabId), tabId, place.url, url, savedStateOwner(live.asker.principal))
      if (request !== undefined) {
        trace.approvalId = await this.#authorized(live, index, request, { operation: 'navigate', url: originOnly(url) })
        engine.approveOrigin(principal, tabId, request.origin)
      }
      const loaded = await engine.navigate(principal, tabId, url)
      trace.url = loaded.url
      return {}
    })
    return undefined
  }

  async #act(live: Live, index: number, action: Exclude<BoundAction, { kind: 'navigate' }>): Promise<undefined> {
    const { engine } = this.deps
    const { principal, tabId } = live
    // A step right after one that navigated (a submit) may meet the next page still loading: its target is given a
    // moment to appear, as a person would give it, before it is looked up and asked about. Absent, the act says why.
    if (action.role !== undefined && action.name.length <= TARGET_NAME_CHARS) {
      await abortable(engine.waitFor(principal, tabId, { role: action.role, name: action.name }, { timeoutMs: TARGET_WAIT_MS }).catch(() => undefined), live.controller.signal)
    }
    const place = engine.tabPlace(principal, tabId)
    // The bound a hand-issued act's name has (the MCP schema's), so the step's approval and record can name it whole.
    if (action.name.length > TARGET_NAME_CHARS || (action.role?.length ?? 0) > TARGET_ROLE_CHARS) {
      throw new StepFailed('malformed-target', `step ${index}: a target name is at most ${TARGET_NAME_CHARS} characters, a role at most ${TARGET_ROLE_CHARS}`)
    }
    const role = action.role ?? (await this.#soleRole(live, action.name))
    const target = { role, name: action.name }
    const text = action.kind === 'type' ? action.value.literal : undefined
    const trace: Trace = { url: place.url, approvalId: null, target, detail: { act: action.kind, ...(text !== undefined ? { text } : {}) } }
    await this.#recorded(live, 'act', trace, async () => {
      if (text !== undefined) trace.intoPassword = await this.#isPasswordField(live, target)
      const binding = text === undefined ? undefined : trace.intoPassword === true ? typedSecret(text) : typedText(text)
      const request: BrowserAccessRequest = { kind: 'act', operation: action.kind, origin: originOnly(place.url), tabId, target, ...(binding !== undefined ? { binding } : {}) }
      trace.approvalId = await this.#authorized(live, index, request, { operation: action.kind, url: originOnly(place.url), target })
      this.#checkSignal(live)
      const done = await engine.act(principal, tabId, { operation: action.kind, target, ...(text !== undefined ? { text } : {}) })
      if (done.isPassword === true) trace.intoPassword = true
      return {}
    })
    return undefined
  }

  /**
   * The role of the one kind of element named `name` on the page, for a step that names no role: a person judging
   * the approval sees a role and a name, as for a hand-issued act. None or several kinds: the step fails.
   */
  async #soleRole(live: Live, name: string): Promise<string> {
    const { snapshot } = await this.deps.engine.read(live.principal, live.tabId)
    const roles = [...new Set(snapshot.filter((node) => node.name === name).map((node) => node.role))]
    if (roles.length === 1) return roles[0]!
    if (roles.length === 0) throw new StepFailed('hidden', `nothing on the page is named ${JSON.stringify(name)}`)
    throw new StepFailed('ambiguous', `${JSON.stringify(name)} names a ${roles.join(', a ')} on the page; give the step a (role)`)
  }

  async #isPasswordField(live: Live, target: { role: string; name: string }): Promise<boolean> {
    const { engine } = this.deps
    const passwords = await engine.query(live.principal, live.tabId, 'input[type=password]')
    if (passwords.count === 0) return false
    const refs = new Set(passwords.elements.map((element) => element.ref))
    const { snapshot } = await engine.read(live.principal, live.tabId)
    return snapshot.some((node) => node.role === target.role && node.name === target.name && refs.has(node.ref))
  }

  /**
   * Authorizes one step exactly as a hand-issued act (BR.WORKFLOW_RUN.5, APPR.6): a standing grant or an approval
   * of the person. While the person decides, the run reports `pendingApproval` (BR.WORKFLOW_RUN.15) and its clock is
   * stopped; a stop from outside ends the wait at once. Answers the approval or grant used.
   */
  async #authorized(live: Live, index: number, request: BrowserAccessRequest, about: Omit<PendingApproval, 'approvalId' | 'step'>): Promise<string | null> {
    const { access, approvals, runs } = this.deps
    const { runId } = live
    const actor = live.asker.actor
    for (;;) {
      this.#checkSignal(live)
      const answer: BrowserAuthorization = await access.authorize(request, live.asker, { waitMs: 0 })
      if (answer.granted) return answer.approvalId
      if (answer.approvalId === undefined || answer.token !== 'NOT_GRANTED') throw new StepFailed(answer.token, answer.message)
      const approvalId = answer.approvalId
      live.waitingOn = approvalId
      await runs.apply({ type: 'approval-pending', runId, approval: { approvalId, step: index, ...about } }, actor)
      this.#pauseClock(live)
      let decided: Awaited<ReturnType<ApprovalCommands['waitForDecision']>>
      try {
        for (;;) {
          decided = await abortable(approvals.waitForDecision(approvalId, DECISION_POLL_MS), live.controller.signal)
          if (decided === undefined || decided.status !== 'pending') break
        }
      } finally {
        if (!live.controller.signal.aborted) this.#resumeClock(live)
      }
      this.#checkSignal(live)
      live.waitingOn = null
      const status = decided?.status ?? 'expired'
      const outcome = status === 'approved' ? 'approved' : status === 'denied' ? 'denied' : 'expired'
      await runs.apply({ type: 'approval-settled', runId, approvalId, outcome }, actor)
      if (outcome === 'denied') throw new StepFailed('denied', `the person denied step ${index}`)
      if (outcome === 'expired') throw new StepFailed('approval-expired', `the approval for step ${index} lapsed before the person decided`)
      // Approved: the next authorize finds it and uses it up (once) or stands on it (site).
    }
  }

  async #withdraw(approvalId: string, actor: Actor): Promise<void> {
    if (this.deps.approvals.find(approvalId)?.status !== 'pending') return
    await this.deps.approvals.decide(approvalId, 'denied', actor).catch(() => undefined)
  }

  /**
   * Runs one browser action of a step and records it in the `browser` stream with its real outcome. The run waits on
   * it only until it is stopped: an engine call already sent cannot be called back, so the run ends at once and the
   * call's record is written when the call settles.
   */
  async #recorded<T>(live: Live, operation: BrowserOperation, trace: Trace, work: () => Promise<T>): Promise<T> {
    const working = work()
    void working.then(
      () => this.#record(live, operation, trace, 'ok'),
      (error: unknown) => {
        const outcome = error instanceof BrowserError ? error.code : error instanceof StepFailed ? error.reasonCode : error instanceof RunStopped ? error.stop.reasonCode : 'INTERNAL'
        return this.#record(live, operation, trace, outcome)
      },
    )
    return abortable(working, live.controller.signal)
  }

  async #record(live: Live, operation: BrowserOperation, trace: Trace, outcome: string): Promise<void> {
    const entry: BrowserActionEntry = {
      tabId: live.tabId,
      operation,
      url: trace.url,
      ...(trace.target !== undefined ? { target: trace.target } : {}),
      ...(trace.detail !== undefined ? { detail: trace.detail } : {}),
      ...(trace.intoPassword === true ? { intoPassword: true } : {}),
      outcome: outcome.slice(0, 64),
      approvalId: trace.approvalId,
      actor: live.asker.actor,
    }
    await this.deps.access.record(entry).catch(() => undefined)
  }
}

interface Trace {
  url: string | null
  approvalId: string | null
  target?: { role: string; name: string }
  detail?: { act: string; text?: string }
  intoPassword?: boolean
}

/** Why a step pauses for the assistant or the person (BR.WORKFLOW_RUN.6), or undefined when the daemon runs it. */
function manualReason(step: ResolvedStep): { reasonCode: string; reason: string } | undefined {
  if (step.kind === 'goal' || step.kind === 'confirm' || step.kind === 'api') {
    return { reasonCode: 'needs-human', reason: `step ${step.index} is a ${step.kind}: step that needs the assistant or the person; do it, then resume with resumeRunId` }
  }
  if (step.kind === 'action' && 'failure' in step && step.failure.failure === 'not-executable') {
    return { reasonCode: 'needs-human', reason: `step ${step.index} is prose (${step.failure.message}); do it, then resume with resumeRunId` }
  }
  return undefined
}

/** An act refusal names its reason (`hidden`, `ambiguous`, …); other engine errors their token. */
function stepCode(error: BrowserError): string {
  const reason = (error.data as { reason?: unknown } | undefined)?.reason
  return error.code === 'ACT_REFUSED' && typeof reason === 'string' ? reason : error.code
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}
