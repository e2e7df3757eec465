import { describe, it } from 'vitest'
import { decideApprovals, type ApprovalCommand } from '../../../core/approvals/decider.js'
import { evolveApprovals, initialApprovals, type ApprovalsState } from '../../../core/approvals/approvalsState.js'
import { APPROVAL_LIFETIME_MS } from '../../../core/approvals/events.js'
import { USER, type Actor } from '../../../core/events/actor.js'
import { deciderSpec } from '../../support/decider.js'

const approvals = deciderSpec<ApprovalCommand, ApprovalsState>('approvals', decideApprovals, evolveApprovals, initialApprovals)
const agent: Actor = { kind: 'mcp', principal: 'claude', connection: 'c1' }
const at = 1_000
const request = (approvalId = 'ap-1', connection = 'c1') =>
  ({ type: 'request', approvalId, kind: 'save_as', subject: '/w/b.md', connection, principal: 'claude', actor: agent, now: at }) as const
const requested = (approvalId = 'ap-1', connection = 'c1') => ({
  type: 'approval.requested', actor: agent, data: { approvalId, kind: 'save_as', subject: '/w/b.md', connection, principal: 'claude' },
})
const decided = (decision: 'approved' | 'denied', approvalId = 'ap-1') => ({ type: 'approval.decided', actor: USER, data: decision === 'approved' ? { approvalId, decision, scope: 'once' } : { approvalId, decision } })

describe('the approvals decider (APPR.1)', () => {
  it('given nothing, when a connection asks, then a request bound to that connection is raised', () => {
    approvals.given([]).when(request()).then([requested()])
  })

  it('given a waiting or approved request of this connection, when it asks again, then nothing new is raised', () => {
    approvals.given([requested()]).when(request('ap-2')).then([])
    approvals.given([requested(), decided('approved')]).when(request('ap-2')).then([])
  })

  it('given a denied request, when the connection asks again, then a new request asks the person (the denial stays decided)', () => {
    approvals.given([requested(), decided('denied')]).when(request('ap-2')).then([requested('ap-2')])
  })

  it('given another connection\'s request, when this connection asks, then it gets its own', () => {
    approvals.given([requested('ap-1', 'c2')]).when(request('ap-2')).then([requested('ap-2')])
  })

  it('given a request that lapsed, when the connection asks again, then a new request is raised', () => {
    approvals.given([requested()], at).when({ ...request('ap-2'), now: at + APPROVAL_LIFETIME_MS + 1 }).then([requested('ap-2')])
  })

  it('given a waiting request, when the person decides, then approval.decided; an unused approval may still be denied', () => {
    approvals.given([requested()]).when({ type: 'decide', approvalId: 'ap-1', decision: 'approved', actor: USER, now: at }).then([decided('approved')])
    approvals.given([requested(), decided('approved')]).when({ type: 'decide', approvalId: 'ap-1', decision: 'denied', actor: USER, now: at }).then([decided('denied')])
  })

  it('given a denied request, when the person (or the CLI) approves it, then it is refused: a denial stays decided (issue 12 item 8)', () => {
    approvals.given([requested(), decided('denied')]).when({ type: 'decide', approvalId: 'ap-1', decision: 'approved', actor: USER, now: at }).thenRefuses('INVALID_ARGUMENT', /stays decided/)
  })

  it('given a consumed or expired approval, when the person decides, then it is refused; an unknown one is NOT_FOUND', () => {
    const consumed = { type: 'approval.consumed', actor: agent, data: { approvalId: 'ap-1' } }
    approvals.given([requested(), decided('approved'), consumed]).when({ type: 'decide', approvalId: 'ap-1', decision: 'denied', actor: USER, now: at }).thenRefuses('INVALID_ARGUMENT', /consumed/)
    approvals.given([requested()], at).when({ type: 'decide', approvalId: 'ap-1', decision: 'approved', actor: USER, now: at + APPROVAL_LIFETIME_MS + 1 }).thenRefuses('INVALID_ARGUMENT', /expired/)
    approvals.given([]).when({ type: 'decide', approvalId: 'ap-9', decision: 'approved', actor: USER, now: at }).thenRefuses('NOT_FOUND')
  })

  it('given an approved request, when it is consumed, then approval.consumed once; a second consumption is APPROVAL_REQUIRED', () => {
    const consumed = { type: 'approval.consumed', actor: agent, data: { approvalId: 'ap-1' } }
    approvals.given([requested(), decided('approved')]).when({ type: 'consume', approvalId: 'ap-1', actor: agent, now: at }).then([consumed])
    approvals.given([requested(), decided('approved'), consumed]).when({ type: 'consume', approvalId: 'ap-1', actor: agent, now: at }).thenRefuses('APPROVAL_REQUIRED')
    approvals.given([requested()]).when({ type: 'consume', approvalId: 'ap-1', actor: agent, now: at }).thenRefuses('APPROVAL_REQUIRED')
  })
})

describe('the approvals decider bounds what waits for the person (issue 11, finding 10)', () => {
  it('given 16 requests of one assistant waiting, when it asks for a 17th, then RESOURCE_EXHAUSTED; another assistant still may ask', () => {
    const waiting = Array.from({ length: 16 }, (_, index) => ({
      type: 'approval.requested', actor: agent, data: { approvalId: `ap-${index}`, kind: 'save_as', subject: `/w/${index}.md`, connection: `c${index}`, principal: 'claude' },
    }))
    approvals.given(waiting, at).when({ ...request('ap-99', 'c99'), subject: '/w/new.md' }).thenRefuses('RESOURCE_EXHAUSTED', /wait for them to decide/)
    approvals.given(waiting, at).when({ ...request('ap-99', 'c99'), subject: '/w/new.md', principal: 'other' })
      .then([{ type: 'approval.requested', actor: agent, data: { approvalId: 'ap-99', kind: 'save_as', subject: '/w/new.md', connection: 'c99', principal: 'other' } }])
    approvals.given(waiting, at).when({ ...request('ap-99', 'c99'), subject: '/w/new.md', now: at + APPROVAL_LIFETIME_MS + 1 })
      .then([{ type: 'approval.requested', actor: agent, data: { approvalId: 'ap-99', kind: 'save_as', subject: '/w/new.md', connection: 'c99', principal: 'claude' } }])
  })
})

describe('the approvals decider gives scopes (issue 13: standing browser grants, attachments until navigation)', () => {
  const browserRequest = {
    type: 'approval.requested', actor: agent,
    data: { approvalId: 'ap-1', kind: 'browser_act', subject: 'click button "Buy" on http://shop.test', connection: 'c1', principal: 'claude', origin: 'http://shop.test' },
  }
  const decide = (scope?: 'once' | 'site' | 'navigation') =>
    ({ type: 'decide', approvalId: 'ap-1', decision: 'approved', actor: USER, now: at, ...(scope ? { scope } : {}) }) as const

  it('given a browser act request, when the person allows it on the site, then the decision carries scope site', () => {
    approvals.given([browserRequest]).when(decide('site')).then([{ type: 'approval.decided', actor: USER, data: { approvalId: 'ap-1', decision: 'approved', scope: 'site' } }])
  })

  it('given a save_as request, when the person tries a standing scope, then INVALID_ARGUMENT names the scopes it offers', () => {
    approvals.given([requested()]).when(decide('site')).thenRefuses('INVALID_ARGUMENT', /"once"/)
  })

  it('given an approved request, when it is approved again, then INVALID_ARGUMENT: a decision is made once', () => {
    approvals.given([browserRequest, { type: 'approval.decided', actor: USER, data: { approvalId: 'ap-1', decision: 'approved', scope: 'site' } }])
      .when(decide('once')).thenRefuses('INVALID_ARGUMENT', /already approved/)
  })

  it('given a standing grant, when the person denies it, then it is withdrawn (denied)', () => {
    approvals.given([browserRequest, { type: 'approval.decided', actor: USER, data: { approvalId: 'ap-1', decision: 'approved', scope: 'site' } }])
      .when({ type: 'decide', approvalId: 'ap-1', decision: 'denied', actor: USER, now: at }).then([decided('denied')])
  })
})
