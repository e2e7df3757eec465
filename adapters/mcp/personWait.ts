import type { ApprovalView, PersonWait } from '../../core/approvals/commands.js'
import type { ApprovalKind } from '../../core/approvals/events.js'
import type { ToolContext } from './context.js'

/** How often a call waiting on the person tells its client so. */
export const PROGRESS_EVERY_MS = 2_000

/**
 * How long a call whose client follows its progress waits for the person: under the 60 s a client's request timeout
 * commonly is, so a client that does not reset its timeout on progress still gets the answer rather than giving up
 * (and withdrawing the request).
 */
export const PROGRESS_WAIT_MS = 50_000

/**
 * How a call waits on the person's approval. A client that sent a progress token hears, every 2 s, what the call
 * waits for and where the person answers, and the call waits for the decision (up to 50 s, or `waitMs` if longer);
 * any other waits `waitMs` (0: it answers at once, as VMark's surface does). Either way a cancelled call withdraws its
 * request.
 */
export function personWait(context: ToolContext, waitMs: number): PersonWait {
  const call = context.call
  const progress = call?.progress
  if (progress === undefined) return { waitMs, ...(call === undefined ? {} : { signal: call.signal }) }
  const total = Math.max(waitMs, PROGRESS_WAIT_MS)
  return {
    waitMs: total,
    everyMs: PROGRESS_EVERY_MS,
    signal: call!.signal,
    onWaiting: (approval, waitedMs) => {
      // A client gone mid-wait cannot be told; the wait itself ends with its cancellation.
      progress(Math.round(waitedMs / 1_000), total / 1_000, waitingMessage(approval, total - waitedMs)).catch(() => undefined)
    },
  }
}

/** What is asked, in words, by the kind of request. */
const ASKED: Readonly<Record<ApprovalKind, (subject: string) => string>> = {
  open_workspace: (subject) => `open ${subject} as a workspace`,
  save_as: (subject) => `save a document to the new file ${subject}`,
  browser_act: (subject) => subject,
  browser_execute_js: (subject) => subject,
  browser_attach: (subject) => subject,
  browser_destination: (subject) => subject,
  browser_session: (subject) => subject,
  browser_profile: (subject) => subject,
  browser_record: (subject) => subject,
}

function waitingMessage(approval: ApprovalView, leftMs: number): string {
  const id = approval.approvalId
  const what = ASKED[approval.kind](approval.subject.split('\n', 1)[0]!)
  return (
    `Waiting for the person to approve ${id}: ${what}. They answer in the Approvals panel of Quire's console (the page ` +
    `at / of the Quire server; \`quire status\` prints its link) or with \`quire approvals approve ${id}\` (or deny). ` +
    `This call waits ${Math.max(0, Math.ceil(leftMs / 1_000))} s more, then answers with the request as it stands; ` +
    'cancel the call to withdraw the request.'
  )
}
