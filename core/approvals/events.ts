import { z } from 'zod'
import { defineEvent } from '../events/schema.js'

/** Approvals are the person's decisions about what an assistant may do; one stream holds them all. */
export const APPROVALS_STREAM = 'approvals'

/** How long an approval may wait unused (requested and undecided, or approved and not yet used). APPR.1 */
export const APPROVAL_LIFETIME_MS = 5 * 60 * 1000

export const approvalKinds = ['open_workspace', 'save_as'] as const
export type ApprovalKind = (typeof approvalKinds)[number]

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
    /** What exactly is asked: the canonical path, symlinks resolved. */
    subject: z.string().min(1),
    connection: z.string().min(1),
    principal: z.string().nullable(),
  }),
})

export const ApprovalDecided = defineEvent({
  type: 'approval.decided',
  version: 1,
  schema: z.object({ approvalId: z.string().min(1), decision: z.enum(['approved', 'denied']) }),
})

/** The approved action was carried out; the approval cannot be used again (no "remember", WS.OPEN_WORKSPACE.10). */
export const ApprovalConsumed = defineEvent({
  type: 'approval.consumed',
  version: 1,
  schema: z.object({ approvalId: z.string().min(1) }),
})

export const approvalEvents = [ApprovalRequested, ApprovalDecided, ApprovalConsumed] as const
