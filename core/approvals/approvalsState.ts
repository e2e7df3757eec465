import { dataOf } from '../events/schema.js'
import type { RecordedEvent } from '../log/eventLog.js'
import { APPROVAL_LIFETIME_MS, ApprovalConsumed, ApprovalDecided, ApprovalRequested, ApprovalWithdrawn, GRANT_LIFETIME_MS, type ApprovalKind, type ApprovalScope } from './events.js'

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'consumed' | 'expired' | 'withdrawn'

export interface Approval {
  readonly approvalId: string
  readonly kind: ApprovalKind
  readonly subject: string
  readonly connection: string
  readonly principal: string | null
  /** The page's origin, for browser requests. */
  readonly origin: string | null
  readonly requestedAt: number
  readonly decidedAt: number | null
  readonly decision: 'approved' | 'denied' | null
  /** What an approval covers (`once` until decided otherwise). */
  readonly scope: ApprovalScope
  readonly consumed: boolean
  /** The assistant gave up waiting before the person decided (ApprovalWithdrawn). */
  readonly withdrawn: boolean
}

/** Every approval request and what became of it, folded from the `approvals` stream. */
export type ApprovalsState = ReadonlyMap<string, Approval>

export const initialApprovals = (): ApprovalsState => new Map()

export function evolveApprovals(state: ApprovalsState, event: RecordedEvent): ApprovalsState {
  const next = new Map(state)
  switch (event.type) {
    case ApprovalRequested.type: {
      const { approvalId, kind, subject, connection, principal, origin } = dataOf(event, ApprovalRequested)
      next.set(approvalId, {
        approvalId,
        kind,
        subject,
        connection,
        principal,
        origin: origin ?? null,
        requestedAt: event.at,
        decidedAt: null,
        decision: null,
        scope: 'once',
        consumed: false,
        withdrawn: false,
      })
      return next
    }
    case ApprovalDecided.type: {
      const { approvalId, decision, scope } = dataOf(event, ApprovalDecided)
      const approval = state.get(approvalId)
      if (!approval) return state
      next.set(approval.approvalId, { ...approval, decidedAt: event.at, decision, scope: scope ?? 'once' })
      return next
    }
    case ApprovalConsumed.type: {
      const approval = state.get(dataOf(event, ApprovalConsumed).approvalId)
      if (!approval) return state
      next.set(approval.approvalId, { ...approval, consumed: true })
      return next
    }
    case ApprovalWithdrawn.type: {
      const approval = state.get(dataOf(event, ApprovalWithdrawn).approvalId)
      if (!approval) return state
      next.set(approval.approvalId, { ...approval, withdrawn: true })
      return next
    }
    default:
      return state
  }
}

/**
 * Where an approval stands at `now`. Expiry is a matter of time, not an event: an undecided request, or an approval
 * not used, lapses five minutes after its last change (APPR.1); a standing grant (`site`, `navigation`) an hour after
 * it was given. A denial stands until the person approves. A request its assistant withdrew is withdrawn for good.
 */
export function approvalStatus(approval: Approval, now: number): ApprovalStatus {
  if (approval.consumed) return 'consumed'
  if (approval.withdrawn) return 'withdrawn'
  if (approval.decision === 'denied') return 'denied'
  const since = approval.decidedAt ?? approval.requestedAt
  if (now - since > lifetimeOf(approval)) return 'expired'
  return approval.decision === 'approved' ? 'approved' : 'pending'
}

/** How long an approval stays good after its last change. */
export function lifetimeOf(approval: Approval): number {
  return approval.decision === 'approved' && approval.scope !== 'once' ? GRANT_LIFETIME_MS : APPROVAL_LIFETIME_MS
}

/** The newest request for exactly this action from this connection, if any. */
export function findApproval(state: ApprovalsState, kind: ApprovalKind, subject: string, connection: string): Approval | undefined {
  let found: Approval | undefined
  for (const approval of state.values()) {
    if (approval.kind === kind && approval.subject === subject && approval.connection === connection) {
      if (!found || approval.requestedAt >= found.requestedAt) found = approval
    }
  }
  return found
}
