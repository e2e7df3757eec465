import type { Actor } from '../events/actor.js'
import { QuireError } from '../errors.js'
import type { EventInput } from '../log/eventLog.js'
import { approvalStatus, findApproval, type ApprovalsState } from './approvalsState.js'
import { SCOPES_BY_KIND, type ApprovalKind, type ApprovalScope } from './events.js'

/**
 * What is asked of the approvals stream. `now` is the engine's clock when the command was made (expiry is a
 * matter of time, APPR.1), and a request's id is made before deciding, so deciding stays pure.
 */
export type ApprovalCommand =
  | {
      readonly type: 'request'
      readonly approvalId: string
      readonly kind: ApprovalKind
      readonly subject: string
      readonly connection: string
      readonly principal: string | null
      /** The page's origin, for browser requests. */
      readonly origin?: string
      readonly actor: Actor
      readonly now: number
    }
  | {
      readonly type: 'decide'
      readonly approvalId: string
      readonly decision: 'approved' | 'denied'
      /** What an approval covers; `once` when not given. Must be one the request's kind offers. */
      readonly scope?: ApprovalScope
      readonly actor: Actor
      readonly now: number
    }
  | { readonly type: 'consume'; readonly approvalId: string; readonly actor: Actor; readonly now: number }
  /** The connection that asked gives up waiting: withdrawn while still undecided, else nothing to withdraw. */
  | { readonly type: 'withdraw'; readonly approvalId: string; readonly connection: string; readonly actor: Actor; readonly now: number }

/**
 * The most requests one assistant (one principal, or one anonymous connection) may have waiting for the person at
 * once: the person's Approvals panel stays readable and a runaway client cannot grow the stream without bound (issue
 * 11, finding 10). A request lapses after five minutes, which frees its place.
 */
export const MAX_PENDING_APPROVALS = 16

/** Who asks: an authenticated assistant by its principal, an anonymous one by its connection. */
const askerOf = (request: { readonly principal: string | null; readonly connection: string }): string =>
  request.principal !== null ? `principal:${request.principal}` : `connection:${request.connection}`

/**
 * The approvals stream's decide. A request is raised unless the connection already has one for exactly this action
 * that is waiting or approved; after a denial the next call raises a new one (the caller still answers "denied");
 * the person decides a request while it is unused, unexpired and not denied (a denial is final, issue 12 item 8;
 * an approval may still be denied before it is used); an approval is consumed once, while approved; a request is
 * withdrawn by the connection that made it, while the person has not decided it.
 */
export function decideApprovals(command: ApprovalCommand, state: ApprovalsState): EventInput[] {
  switch (command.type) {
    case 'request': {
      const existing = findApproval(state, command.kind, command.subject, command.connection)
      const status = existing ? approvalStatus(existing, command.now) : undefined
      if (status === 'approved' || status === 'pending') return []
      const asker = askerOf(command)
      const waiting = [...state.values()].filter((approval) => askerOf(approval) === asker && approvalStatus(approval, command.now) === 'pending').length
      if (waiting >= MAX_PENDING_APPROVALS) {
        throw new QuireError('RESOURCE_EXHAUSTED', `${waiting} requests of this assistant already wait for the person; wait for them to decide (or for the requests to lapse) before asking again`, {
          limit: MAX_PENDING_APPROVALS,
        })
      }
      const { approvalId, kind, subject, connection, principal, origin } = command
      return [{ type: 'approval.requested', actor: command.actor, data: { approvalId, kind, subject, connection, principal, ...(origin !== undefined ? { origin } : {}) } }]
    }
    case 'decide': {
      const approval = state.get(command.approvalId)
      if (!approval) throw new QuireError('NOT_FOUND', `no approval ${command.approvalId}`)
      const status = approvalStatus(approval, command.now)
      if (status === 'consumed' || status === 'expired') {
        throw new QuireError('INVALID_ARGUMENT', `approval ${command.approvalId} is ${status}; the assistant must ask again`)
      }
      if (status === 'withdrawn') {
        throw new QuireError('INVALID_ARGUMENT', `approval ${command.approvalId} was withdrawn: the assistant stopped waiting for it; if it asks again, a new request will ask you`)
      }
      if (status === 'denied') {
        throw new QuireError('INVALID_ARGUMENT', `approval ${command.approvalId} was denied, and a denial stays decided; when the assistant asks again, a new request will ask you`)
      }
      if (command.decision === 'denied') {
        return [{ type: 'approval.decided', actor: command.actor, data: { approvalId: command.approvalId, decision: 'denied' } }]
      }
      const scope = command.scope ?? 'once'
      const offered = SCOPES_BY_KIND[approval.kind]
      if (!offered.includes(scope)) {
        throw new QuireError('INVALID_ARGUMENT', `a ${approval.kind} approval can be given ${offered.map((s) => `"${s}"`).join(' or ')}, not "${scope}"`)
      }
      if (status === 'approved') throw new QuireError('INVALID_ARGUMENT', `approval ${command.approvalId} is already approved`)
      return [{ type: 'approval.decided', actor: command.actor, data: { approvalId: command.approvalId, decision: 'approved', scope } }]
    }
    case 'consume': {
      const approval = state.get(command.approvalId)
      if (!approval || approvalStatus(approval, command.now) !== 'approved') {
        throw new QuireError('APPROVAL_REQUIRED', `approval ${command.approvalId} was already used or has expired; ask again`)
      }
      return [{ type: 'approval.consumed', actor: command.actor, data: { approvalId: command.approvalId } }]
    }
    case 'withdraw': {
      const approval = state.get(command.approvalId)
      if (!approval) throw new QuireError('NOT_FOUND', `no approval ${command.approvalId}`)
      if (approval.connection !== command.connection) throw new QuireError('INVALID_ARGUMENT', `approval ${command.approvalId} was asked for by another connection`)
      // Decided, used or lapsed meanwhile: the person's decision stands, and there is nothing left to withdraw.
      if (approvalStatus(approval, command.now) !== 'pending') return []
      return [{ type: 'approval.withdrawn', actor: command.actor, data: { approvalId: command.approvalId } }]
    }
  }
}
