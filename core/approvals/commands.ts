import { newId } from '../ids.js'
import type { Actor } from '../events/actor.js'
import { QuireError } from '../errors.js'
import type { EventLog } from '../log/eventLog.js'
import type { FoldedStream } from '../streams/foldedStream.js'
import { approvalStatus, findApproval, type Approval, type ApprovalsState, type ApprovalStatus } from './approvalsState.js'
import type { FoldingAppend } from '../streams/append.js'
import { decideApprovals } from './decider.js'
import { APPROVAL_LIFETIME_MS, type ApprovalKind } from './events.js'

/** Where an action that needs a person's approval stands for the connection that asks. */
export type Gate =
  | { readonly status: 'granted'; readonly approval: Approval }
  | { readonly status: 'requested' | 'pending' | 'denied'; readonly approval: Approval }

export interface ApprovalView extends Approval {
  readonly status: ApprovalStatus
  readonly expiresAt: number | null
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
  async gate(kind: ApprovalKind, subject: string, connection: string, principal: string | null, actor: Actor): Promise<Gate> {
    const approvalId = newId('ap')
    const now = this.now()
    let deniedBefore = false
    const state = await this.view.handle(this.store, (current) => {
      const newest = findApproval(current, kind, subject, connection)
      deniedBefore = newest !== undefined && approvalStatus(newest, now) === 'denied'
      return decideApprovals({ type: 'request', approvalId, kind, subject, connection, principal, actor, now }, current)
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

  /** The person's decision. An approval may be denied while unused; a denial is final (a new request asks again). */
  async decide(approvalId: string, decision: 'approved' | 'denied', actor: Actor): Promise<ApprovalView> {
    const state = await this.view.handle(this.store, (current) => decideApprovals({ type: 'decide', approvalId, decision, actor, now: this.now() }, current))
    return this.describe(state.get(approvalId)!)
  }

  /** Every approval, newest first, with its status now. */
  list(): ApprovalView[] {
    return [...this.view.state.values()].map((approval) => this.describe(approval)).sort((a, b) => b.requestedAt - a.requestedAt)
  }

  private describe(approval: Approval): ApprovalView {
    const status = approvalStatus(approval, this.now())
    const live = status === 'pending' || status === 'approved'
    const since = approval.decidedAt ?? approval.requestedAt
    return { ...approval, status, expiresAt: live ? since + APPROVAL_LIFETIME_MS : null }
  }
}
