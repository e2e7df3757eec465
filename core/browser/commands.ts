import { approvalStatus, findApproval } from '../approvals/approvalsState.js'
import type { ApprovalCommands, ApprovalView, PersonWait } from '../approvals/commands.js'
import type { Actor } from '../events/actor.js'
import { isQuireError, QuireError } from '../errors.js'
import type { EventInput, EventLog, RecordedEvent } from '../log/eventLog.js'
import type { FoldedStream } from '../streams/foldedStream.js'
import { decideBrowserAction, type BrowserActionEntry } from './decider.js'
import { standingGrant } from './grants.js'
import { APPROVAL_KIND_OF, attachmentSubject, subjectOf, type BrowserAccessRequest } from './requests.js'
import { BrowserProfileShared, BrowserProfileUnshared } from './events.js'
import { evolveProfileShares, profileOwnerFor, type ProfileShare, type ProfileShares } from './profileShares.js'
import { checkSavedName } from './savedNames.js'

/** How long an ungranted browser call waits for the person before it answers NOT_GRANTED (below the 10 s bridge deadline). */
export const APPROVAL_WAIT_MS = 9_000

export interface Asker {
  readonly connection: string
  readonly principal: string | null
  readonly actor: Actor
}

/** What `authorize` answers: go ahead (with the approval or grant used), or the token to refuse with. */
export type BrowserAuthorization =
  | {
      readonly granted: true
      /** The approval or standing grant used; null when the action needed none (a page of the tab's own origin). */
      readonly approvalId: string | null
      readonly scope: ApprovalView['scope'] | null
    }
  | {
      readonly granted: false
      readonly token: 'NOT_GRANTED' | 'ATTACHMENT_ONCE_INSUFFICIENT'
      readonly message: string
      /** The request waiting for the person (approve it, then retry the same call), when there is one. */
      readonly approvalId?: string
      readonly status?: ApprovalView['status']
    }

/** The `browser` stream folded: the named profiles the person shared (its actions are read from the log, not kept). */
export interface BrowserLogState {
  readonly shares: ProfileShares
}
export const initialBrowserLog = (): BrowserLogState => ({ shares: [] })
export const evolveBrowserLog = (state: BrowserLogState, event: RecordedEvent): BrowserLogState => {
  const shares = evolveProfileShares(state.shares, event)
  return shares === state.shares ? state : { shares }
}

/**
 * The owner of the `browser` stream and of the browser's side of the approvals: whether an assistant may do a
 * browser action now, and the record of every action it did.
 *
 * Authorization, in order: a standing grant of the connection covers it (a `site` grant of the origin, an attachment
 * until navigation); otherwise a `ref` target is refused outright (a person can only judge a role and a name,
 * BR.ACT.3); otherwise the exact request is asked of the person (or found already asked), and the call waits up to
 * `waitMs` for a decision. An approval given `once` is used up before the action runs (two calls never pass one
 * approval); given for the site, it stands.
 */
export class BrowserAccess {
  constructor(
    private readonly store: EventLog,
    private readonly view: FoldedStream<BrowserLogState>,
    private readonly approvals: ApprovalCommands,
    private readonly now: () => number,
  ) {}

  async authorize(request: BrowserAccessRequest, asker: Asker, options: { waitMs?: number; wait?: Omit<PersonWait, 'waitMs'> } = {}): Promise<BrowserAuthorization> {
    const subject = subjectOf(request)
    // Only a NEW origin needs the person in the Shared posture (BR.GEN.9): the tab's own origin is already theirs to see.
    if (request.kind === 'destination' && request.currentOrigin === request.origin) return { granted: true, approvalId: null, scope: null }
    const grant = standingGrant(this.approvals.state, request, asker.connection, this.now())
    if (grant) return { granted: true, approvalId: grant.approvalId, scope: grant.scope }
    if (request.kind === 'act' && request.target !== undefined && 'ref' in request.target) {
      return {
        granted: false,
        token: 'NOT_GRANTED',
        message: `a ref target is honoured only under a standing grant for ${request.origin}; name the element by role and name so the person can be asked`,
      }
    }
    const kind = APPROVAL_KIND_OF[request.kind]
    let gate = await this.approvals.gate(kind, subject, asker.connection, asker.principal, asker.actor, request.origin)
    if (request.kind === 'attach' && request.reads === 'many' && this.attachedOnce(request, asker.connection)) {
      // Attached "once" (BRR.WAIT_FOR.8): refused at once, with the request to allow until navigation already raised.
      return {
        granted: false,
        token: 'ATTACHMENT_ONCE_INSUFFICIENT',
        message: `the person allowed this tab for one read; this call reads it more than once: ask them to allow ${gate.approval.approvalId} until it navigates`,
        approvalId: gate.approval.approvalId,
      }
    }
    if (gate.status === 'requested' || gate.status === 'pending') {
      const decided = await this.approvals.waitForDecision(gate.approval.approvalId, { ...options.wait, waitMs: options.waitMs ?? APPROVAL_WAIT_MS }, asker.actor)
      if (decided?.status === 'approved') gate = { status: 'granted', approval: decided }
      else if (decided?.status === 'denied') gate = { status: 'denied', approval: decided }
    }
    const approval = gate.approval
    if (gate.status !== 'granted') {
      const denied = gate.status === 'denied'
      return {
        granted: false,
        token: 'NOT_GRANTED',
        message: denied
          ? `the person denied: ${firstLine(subject)}; a new request (${approval.approvalId}) asks them again`
          : `waiting for the person to approve ${approval.approvalId} (${firstLine(subject)}); retry the same call once they have`,
        approvalId: approval.approvalId,
        status: approvalStatus(approval, this.now()),
      }
    }
    if (request.kind === 'attach' && request.reads === 'many' && approval.scope === 'once') {
      // The person allowed once what needs many reads: that approval is spent on the refusal, so the retry asks
      // again, and the person can allow it until navigation.
      await this.approvals.consume(approval, asker.actor).catch(() => undefined)
      return {
        granted: false,
        token: 'ATTACHMENT_ONCE_INSUFFICIENT',
        message: 'this call reads the tab more than once; the person must allow the attachment until navigation, not once',
        approvalId: approval.approvalId,
      }
    }
    if (approval.scope === 'once') {
      try {
        await this.approvals.consume(approval, asker.actor)
      } catch (error) {
        if (!isQuireError(error) || error.code !== 'APPROVAL_REQUIRED') throw error
        return { granted: false, token: 'NOT_GRANTED', message: `approval ${approval.approvalId} was just used by another call; ask again`, approvalId: approval.approvalId }
      }
    }
    return { granted: true, approvalId: approval.approvalId, scope: approval.scope }
  }

  /** Whether the connection holds an unused "Allow once" attachment to this tab's page. */
  private attachedOnce(request: Extract<BrowserAccessRequest, { kind: 'attach' }>, connection: string): boolean {
    const once = attachmentSubject({ ...request, reads: 'once' })
    const approval = findApproval(this.approvals.state, 'browser_attach', once, connection)
    return approval !== undefined && approvalStatus(approval, this.now()) === 'approved'
  }

  /** Records one action in the `browser` stream; resolves once durable. */
  async record(entry: BrowserActionEntry): Promise<void> {
    await this.view.handle(this.store, () => decideBrowserAction(entry))
  }

  /** The agent whose named profile `profile` an open by `agent` uses (profileShares.ts). */
  profileOwner(agent: string, profile: string): string {
    return profileOwnerFor(this.view.state.shares, agent, profile)
  }

  get profileShares(): ProfileShares {
    return this.view.state.shares
  }

  /** The person lets agent `share.with` open agent `share.owner`'s profile `share.profile`; sharing it again changes nothing. */
  async shareProfile(share: ProfileShare, actor: Actor): Promise<void> {
    await this.view.handle(this.store, (state) => decideShare(state.shares, share, 'share', actor))
  }

  /** The person takes a share back; refused with NOT_FOUND when there is none. */
  async unshareProfile(share: ProfileShare, actor: Actor): Promise<void> {
    await this.view.handle(this.store, (state) => decideShare(state.shares, share, 'unshare', actor))
  }
}

function decideShare(shares: ProfileShares, share: ProfileShare, change: 'share' | 'unshare', actor: Actor): EventInput[] {
  checkSavedName('profile', share.profile)
  if (share.owner === share.with) throw new QuireError('INVALID_ARGUMENT', `profile "${share.profile}" is already ${share.owner}'s own`)
  const inForce = shares.some((kept) => kept.profile === share.profile && kept.owner === share.owner && kept.with === share.with)
  if (change === 'share') return inForce ? [] : [{ type: BrowserProfileShared.type, actor, data: { ...share } }]
  if (!inForce) throw new QuireError('NOT_FOUND', `${share.owner}'s profile "${share.profile}" is not shared with ${share.with}`)
  return [{ type: BrowserProfileUnshared.type, actor, data: { ...share } }]
}

const firstLine = (text: string): string => text.split('\n', 1)[0]!
