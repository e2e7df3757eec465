import { approvalStatus, type Approval, type ApprovalsState } from '../approvals/approvalsState.js'
import { APPROVAL_KIND_OF, attachmentSubject, PER_USE_KINDS, type BrowserAccessRequest } from './requests.js'

/**
 * The standing grant that already covers `request` for `connection`, if any: an approval given for the whole site
 * (`site`) of the request's kind and origin (an act-class grant covers every act-class operation there, BR.GEN.7; a
 * destination grant every load of that origin, BR.GEN.9), or an attachment given until navigation for exactly this
 * tab and page. Bound to the connection that asked (APPR.1); never for `execute_js`, a session, a profile or a
 * recording (APPR.4, APPR.5): those kinds offer only `once`, and are refused here even so.
 */
export function standingGrant(state: ApprovalsState, request: BrowserAccessRequest, connection: string, now: number): Approval | undefined {
  if (PER_USE_KINDS.has(request.kind)) return undefined
  const kind = APPROVAL_KIND_OF[request.kind]
  let found: Approval | undefined
  for (const approval of state.values()) {
    if (approval.kind !== kind || approval.connection !== connection || approval.decision !== 'approved') continue
    if (approvalStatus(approval, now) !== 'approved') continue
    const covers =
      approval.scope === 'site'
        ? approval.origin === request.origin
        : approval.scope === 'navigation' && request.kind === 'attach'
          ? approval.subject === attachmentSubject({ ...request, reads: 'once' }) || approval.subject === attachmentSubject({ ...request, reads: 'many' })
          : false
    if (covers && (!found || approval.decidedAt! > found.decidedAt!)) found = approval
  }
  return found
}
