import { newId } from '../ids.js'
import type { Actor } from '../events/actor.js'
import { QuireError } from '../errors.js'
import type { EventLog } from '../log/eventLog.js'
import type { FoldedStream } from '../streams/foldedStream.js'
import { approvalStatus, findApproval, lifetimeOf, type Approval, type ApprovalsState, type ApprovalStatus } from './approvalsState.js'
import type { FoldingAppend } from '../streams/append.js'
import { decideApprovals } from './decider.js'
import { SCOPES_BY_KIND, type ApprovalKind, type ApprovalScope } from './events.js'

/** Where an action that needs a person's approval stands for the connection that asks. */
export type Gate =
  | { readonly status: 'granted'; readonly approval: Approval }
  | { readonly status: 'requested' | 'pending' | 'denied'; readonly approval: Approval }

/** A gate after the call waited for the person (`settle`): also `withdrawn`, when the call gave up waiting. */
export type Settled = Gate | { readonly status: 'withdrawn'; readonly approval: Approval }

/**
 * How a call waits for the person's decision: how long, told while it waits (to tell its client), and able to give
 * up, which withdraws the request so the person is no longer asked.
 */
export interface PersonWait {
  /** How long the call waits for the decision; 0 answers at once with the request as it stands. */
  readonly waitMs: number
  /** Told when the wait begins and then every `everyMs` while it lasts, with how long it has waited so far. */
  readonly onWaiting?: (approval: ApprovalView, waitedMs: number) => void
  readonly everyMs?: number
  /** The caller gave up (its client cancelled the call): the request is withdrawn and the wait ends. */
  readonly signal?: AbortSignal
}

export interface ApprovalView extends Approval {
  readonly status: ApprovalStatus
  readonly expiresAt: number | null
  /** The scopes the person may give this request (`once` first). */
  readonly scopes: readonly ApprovalScope[]
}

export class ApprovalCommands {
  constructor(
    private readonly store: EventLog,
    private readonly view: FoldedStream<ApprovalsState>,
    private readonly now: () => number,
  ) {}

  /**
   * Checks whether `connection` may do `kind` on `subject`. An approved, unused, unexpired approval grants it (the
   * caller appends `consumption` with the action, atomically); otherwise a new request is raised unless one is
   * already waiting or was denied (a denial stands until the person approves).
   */
  async gate(kind: ApprovalKind, subject: string, connection: string, principal: string | null, actor: Actor, origin?: string): Promise<Gate> {
    const approvalId = newId('ap')
    const now = this.now()
    let deniedBefore = false
    const state = await this.view.handle(this.store, (current) => {
      const newest = findApproval(current, kind, subject, connection)
      deniedBefore = newest !== undefined && approvalStatus(newest, now) === 'denied'
      return decideApprovals({ type: 'request', approvalId, kind, subject, connection, principal, actor, now, ...(origin !== undefined ? { origin } : {}) }, current)
    })
    const raised = state.get(approvalId)
    // After a denial the call still fails, and asks the person again with a new request (the denial stays decided).
    if (raised) return { status: deniedBefore ? 'denied' : 'requested', approval: raised }
    const existing = findApproval(state, kind, subject, connection)!
    const status = approvalStatus(existing, now)
    return status === 'approved' ? { status: 'granted', approval: existing } : { status: status as 'pending' | 'denied', approval: existing }
  }

  /**
   * The append that uses up an approval, to be written atomically with the approved action (`enqueueFolded`).
   * Throws APPROVAL_REQUIRED if it was used or lapsed since it was checked: take it right before appending.
   */
  consumption(approval: Approval, actor: Actor): FoldingAppend {
    return this.view.own(decideApprovals({ type: 'consume', approvalId: approval.approvalId, actor, now: this.now() }, this.view.state))
  }

  /**
   * Uses up an approved `once` approval on its own, before the approved action runs (the browser's actions cannot be
   * appended atomically with their effect on a page, so two calls must not both pass one approval). Throws
   * APPROVAL_REQUIRED if another call used it first or it lapsed.
   */
  async consume(approval: Approval, actor: Actor): Promise<void> {
    await this.view.handle(this.store, (current) => decideApprovals({ type: 'consume', approvalId: approval.approvalId, actor, now: this.now() }, current))
  }

  /**
   * The person's decision, with the scope they chose (`once` unless given). An approval may be denied while unused,
   * which also withdraws a standing grant; a denial is final (a new request asks again).
   */
  async decide(approvalId: string, decision: 'approved' | 'denied', actor: Actor, scope?: ApprovalScope): Promise<ApprovalView> {
    const state = await this.view.handle(this.store, (current) =>
      decideApprovals({ type: 'decide', approvalId, decision, actor, now: this.now(), ...(scope !== undefined ? { scope } : {}) }, current),
    )
    return this.describe(state.get(approvalId)!)
  }

  /** The approval as it stands now, or undefined. */
  find(approvalId: string): ApprovalView | undefined {
    const approval = this.view.state.get(approvalId)
    return approval && this.describe(approval)
  }

  /** Every approval of the folded state (for the rules that search it, such as the browser's standing grants). */
  get state(): ApprovalsState {
    return this.view.state
  }

  /**
   * Where a gate stands once the call has waited for the person as `wait` says (a request it raised or found
   * waiting): granted once they approve, denied once they deny, as it was when the wait ends undecided, and
   * `withdrawn` when the caller gave up. A gate that needs no decision is answered as it is.
   */
  async settle(gate: Gate, wait: PersonWait | undefined, actor: Actor): Promise<Settled> {
    if ((gate.status !== 'requested' && gate.status !== 'pending') || wait === undefined || wait.waitMs <= 0) return gate
    const decided = await this.waitForDecision(gate.approval.approvalId, wait, actor)
    if (decided?.status === 'approved') return { status: 'granted', approval: decided }
    if (decided?.status === 'denied' || decided?.status === 'withdrawn') return { status: decided.status, approval: decided }
    return gate
  }

  /**
   * Resolves with the approval once the person decides it, or with it as it stands when the wait's time passes first
   * (the assistant's call waits this long for a person watching the console, then answers and the request stays
   * open). While it waits, `wait.onWaiting` is told at its interval; when `wait.signal` aborts, the request is
   * withdrawn as `actor` and the wait ends with it withdrawn (unless the person decided first).
   */
  waitForDecision(approvalId: string, wait: number | PersonWait, actor?: Actor): Promise<ApprovalView | undefined> {
    const { waitMs, onWaiting, everyMs, signal } = typeof wait === 'number' ? ({ waitMs: wait } as PersonWait) : wait
    const decided = (): boolean => this.view.state.get(approvalId)?.decision != null
    if (decided() || waitMs <= 0) return Promise.resolve(this.find(approvalId))
    const started = this.now()
    return new Promise((resolve) => {
      let ended = false
      const tell = (): void => {
        const view = this.find(approvalId)
        if (view && !ended) onWaiting?.(view, this.now() - started)
      }
      const finish = (): void => {
        if (ended) return
        ended = true
        clearTimeout(timer)
        clearInterval(ticker)
        signal?.removeEventListener('abort', giveUp)
        stop()
        resolve(this.find(approvalId))
      }
      const giveUp = (): void => {
        const approval = this.view.state.get(approvalId)
        if (ended || !approval || actor === undefined) return finish()
        // Withdrawn before the wait ends, so whoever reads the approval next sees it withdrawn.
        void this.withdraw(approvalId, approval.connection, actor).catch(() => undefined).then(finish)
      }
      const stop = this.view.onChange(() => {
        if (decided()) finish()
      })
      const timer = setTimeout(finish, waitMs)
      timer.unref()
      const ticker = onWaiting !== undefined && everyMs !== undefined && everyMs > 0 ? setInterval(tell, everyMs) : undefined
      ticker?.unref()
      if (signal?.aborted) return giveUp()
      signal?.addEventListener('abort', giveUp, { once: true })
      tell()
    })
  }

  /**
   * The connection that asked gives up on its request (its call was cancelled): the person is no longer asked. A
   * request the person already decided, or that lapsed, stays as it is.
   */
  async withdraw(approvalId: string, connection: string, actor: Actor): Promise<ApprovalView | undefined> {
    await this.view.handle(this.store, (current) => decideApprovals({ type: 'withdraw', approvalId, connection, actor, now: this.now() }, current))
    return this.find(approvalId)
  }

  /** Every approval, newest first, with its status now. */
  list(): ApprovalView[] {
    return [...this.view.state.values()].map((approval) => this.describe(approval)).sort((a, b) => b.requestedAt - a.requestedAt)
  }

  private describe(approval: Approval): ApprovalView {
    const status = approvalStatus(approval, this.now())
    const live = status === 'pending' || status === 'approved'
    const since = approval.decidedAt ?? approval.requestedAt
    return { ...approval, status, expiresAt: live ? since + lifetimeOf(approval) : null, scopes: SCOPES_BY_KIND[approval.kind] }
  }
}
