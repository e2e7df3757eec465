import { newId } from '../ids.js'
import type { Actor } from '../events/actor.js'
import { QuireError } from '../errors.js'
import type { EventStore } from '../log/eventStore.js'
import type { FoldedStream } from '../streams/foldedStream.js'
import { approvalStatus, findApproval, type Approval, type ApprovalsState, type ApprovalStatus } from './approvalsState.js'
import { appendToView, viewAppend, type FoldingAppend } from '../streams/append.js'
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
    private readonly store: EventStore,
    private readonly view: FoldedStream<ApprovalsState>,
    private readonly now: () => number,
  ) {}

  /**
   * Checks whether `connection` may do `kind` on `subject`. An approved, unused, unexpired approval grants it (the
   * caller appends `consumption` with the action, atomically); otherwise a new request is raised unless one is
   * already waiting or was denied (a denial stands until the person approves).
   */
  async gate(kind: ApprovalKind, subject: string, connection: string, principal: string | null, actor: Actor): Promise<Gate> {
    const existing = findApproval(this.view.state, kind, subject, connection)
    const status = existing ? approvalStatus(existing, this.now()) : undefined
    if (existing && status === 'approved') return { status: 'granted', approval: existing }
    if (existing && (status === 'pending' || status === 'denied')) return { status, approval: existing }
    const approvalId = newId('ap')
    await appendToView(this.store, this.view, [
      { type: 'approval.requested', actor, data: { approvalId, kind, subject, connection, principal } },
    ])
    return { status: 'requested', approval: this.view.state.get(approvalId)! }
  }

  /**
   * The append that uses up an approval, to be written atomically with the approved action (`enqueueFolded`).
   * Throws APPROVAL_REQUIRED if it was used or lapsed since it was checked: take it right before appending.
   */
  consumption(approval: Approval, actor: Actor): FoldingAppend {
    const current = this.view.state.get(approval.approvalId)
    if (!current || approvalStatus(current, this.now()) !== 'approved') {
      throw new QuireError('APPROVAL_REQUIRED', `approval ${approval.approvalId} was already used or has expired; ask again`)
    }
    return viewAppend(this.view, [{ type: 'approval.consumed', actor, data: { approvalId: approval.approvalId } }])
  }

  /** The person's decision. Deciding again is allowed while the approval is unused (deny, then approve). */
  async decide(approvalId: string, decision: 'approved' | 'denied', actor: Actor): Promise<ApprovalView> {
    const approval = this.view.state.get(approvalId)
    if (!approval) throw new QuireError('NOT_FOUND', `no approval ${approvalId}`)
    const status = approvalStatus(approval, this.now())
    if (status === 'consumed' || status === 'expired') {
      throw new QuireError('INVALID_ARGUMENT', `approval ${approvalId} is ${status}; the assistant must ask again`)
    }
    await appendToView(this.store, this.view, [{ type: 'approval.decided', actor, data: { approvalId, decision } }])
    return this.describe(this.view.state.get(approvalId)!)
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
