import { z } from 'zod'
import { QuireError } from '../errors.js'
import { defineEvent } from '../events/schema.js'

/** Approvals are the person's decisions about what an assistant may do; one stream holds them all. */
export const APPROVALS_STREAM = 'approvals'

/** How long an approval may wait unused (requested and undecided, or approved and not yet used). APPR.1 */
export const APPROVAL_LIFETIME_MS = 5 * 60 * 1000

/**
 * How long a standing grant (an approval decided for a whole site, or for a tab until it navigates) stays good
 * after the person gave it. It is bound to the connection that asked, so in practice it ends with that connection.
 */
export const GRANT_LIFETIME_MS = 60 * 60 * 1000

export const approvalKinds = [
  'open_workspace',
  'save_as',
  /** A click, type, scroll, key or style on a page (BR.GEN.7, APPR.3). */
  'browser_act',
  /** One script run in a page's isolated world; never standing (BR.EXECUTE_JS.4, APPR.4). */
  'browser_execute_js',
  /** Reading or acting on a tab the person opened (BR.GEN.10, APPR.9). */
  'browser_attach',
  /** Loading a new origin in the person's own profile, Shared posture (BR.GEN.9, APPR.8). */
  'browser_destination',
  /** Saving or loading one named browser session (cookies, localStorage); never standing (BR.SESSION_SAVE.5, APPR.4). */
  'browser_session',
  /** Opening a tab in a named browser profile; asked afresh for every open (BR.OPEN.5, APPR.5). */
  'browser_profile',
  /** Recording the person's own actions on an assistant's tab as a workflow; asked afresh every time (BR.WORKFLOW_RECORD.2, APPR.4). */
  'browser_record',
] as const
export type ApprovalKind = (typeof approvalKinds)[number]

/**
 * What the person's approval covers. `once`: exactly the action asked, used up by it. `site`: every action of the
 * kind on the request's origin from that connection (a standing grant). `navigation`: an attachment that lasts
 * until the tab navigates away from the page it was asked for.
 */
export const approvalScopes = ['once', 'site', 'navigation'] as const
export type ApprovalScope = (typeof approvalScopes)[number]

/** A scope as a person or a client spells it; absent or empty is `once`. Refuses a word that is not a scope. */
export function parseApprovalScope(raw: string | undefined): ApprovalScope | undefined {
  if (raw === undefined || raw === '') return undefined
  if (!(approvalScopes as readonly string[]).includes(raw)) throw new QuireError('INVALID_ARGUMENT', `scope must be one of ${approvalScopes.join(', ')}, not ${JSON.stringify(raw)}`)
  return raw as ApprovalScope
}

/** The scopes the person may choose for each kind; the first is what a plain "approve" gives. */
export const SCOPES_BY_KIND: Readonly<Record<ApprovalKind, readonly ApprovalScope[]>> = {
  open_workspace: ['once'],
  save_as: ['once'],
  browser_act: ['once', 'site'],
  browser_execute_js: ['once'],
  browser_attach: ['once', 'navigation'],
  browser_destination: ['once', 'site'],
  browser_session: ['once'],
  browser_profile: ['once'],
  browser_record: ['once'],
}

/**
 * An assistant asked for something only a person may allow. Bound to the MCP connection that asked
 * (WS.OPEN_WORKSPACE.6): no other connection, and no later connection of the same client, can use it.
 */
export const ApprovalRequested = defineEvent({
  type: 'approval.requested',
  version: 1,
  schema: z.object({
    approvalId: z.string().min(1),
    kind: z.enum(approvalKinds),
    /**
     * What exactly is asked, as the person reads it and as a retry must match it: the canonical path (symlinks
     * resolved), or for the browser the operation, its target and the exact text, key, displacement or script.
     */
    subject: z.string().min(1),
    connection: z.string().min(1),
    principal: z.string().nullable(),
    /** The page's origin, for browser requests: what a `site` grant covers. */
    origin: z.string().min(1).optional(),
  }),
})

export const ApprovalDecided = defineEvent({
  type: 'approval.decided',
  version: 1,
  schema: z.object({
    approvalId: z.string().min(1),
    decision: z.enum(['approved', 'denied']),
    /** Absent on decisions recorded before scopes existed, and on denials: `once`. */
    scope: z.enum(approvalScopes).optional(),
  }),
})

/** The approved action was carried out; the approval cannot be used again (no "remember", WS.OPEN_WORKSPACE.10). */
export const ApprovalConsumed = defineEvent({
  type: 'approval.consumed',
  version: 1,
  schema: z.object({ approvalId: z.string().min(1) }),
})

/**
 * The assistant stopped waiting for a request it made (it cancelled its call, MCP `notifications/cancelled`): the
 * person is no longer asked, and the request can no longer be decided.
 */
export const ApprovalWithdrawn = defineEvent({
  type: 'approval.withdrawn',
  version: 1,
  schema: z.object({ approvalId: z.string().min(1) }),
})

export const approvalEvents = [ApprovalRequested, ApprovalDecided, ApprovalConsumed, ApprovalWithdrawn] as const
