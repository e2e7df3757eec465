import { describe, expect, it } from 'vitest'
import type { RecordedEvent } from '../../core/log/eventLog.js'
import { APPROVAL_LIFETIME_MS } from '../../core/approvals/events.js'
import { approvalStatus, evolveApprovals, findApproval, initialApprovals } from '../../core/approvals/approvalsState.js'
import { WorkspaceState } from '../../core/workspace/workspaceState.js'

let position = 0
const event = (type: string, data: Record<string, unknown>, at = 1_000): RecordedEvent => ({
  position: ++position, stream: 'workspace', streamVersion: position, type, v: 1, at, actor: { kind: 'user' }, data,
})

const fold = (events: RecordedEvent[]) => events.reduce((state, next) => state.evolve(next), WorkspaceState.initial())
const opened = (tabId: string, extra: Record<string, unknown> = {}) =>
  event('tab.opened', { tabId, docId: `doc-${tabId}`, windowLabel: 'main', instanceId: null, path: null, active: false, ...extra })

describe('workspace state', () => {
  it('always has a main window, even with nothing open', () => {
    const state = WorkspaceState.initial()
    expect([...state.windows.keys()]).toEqual(['main'])
    expect(state.lastUsedWindow).toBe('main')
  })

  it('opens background tabs without changing the current one, and new ones current when asked', () => {
    const state = fold([opened('a', { active: true }), opened('b'), opened('c')])
    expect(state.windows.get('main')).toMatchObject({ tabIds: ['a', 'b', 'c'], activeTabId: 'a' })
  })

  it('hands the current tab to a visible neighbour when it closes', () => {
    const state = fold([opened('a'), opened('b'), opened('c'), event('tab.activated', { tabId: 'b' }), event('tab.closed', { tabId: 'b', forced: false })])
    expect(state.windows.get('main')!.activeTabId).toBe('c')
    const last = state.evolve(event('tab.activated', { tabId: 'c' })).evolve(event('tab.closed', { tabId: 'c', forced: false }))
    expect(last.windows.get('main')!.activeTabId).toBe('a')
  })

  it('switches the window to a tab\'s workspace instance and back to the tab current there', () => {
    const state = fold([
      event('workspace.opened', { instanceId: 'w1', root: '/one', windowLabel: 'main', approval: null }),
      opened('a', { instanceId: 'w1', active: true }),
      event('workspace.opened', { instanceId: 'w2', root: '/two', windowLabel: 'main', approval: null }),
    ])
    expect(state.windows.get('main')).toMatchObject({ activeInstanceId: 'w2', activeTabId: null })
    const back = state.evolve(opened('b', { instanceId: 'w2', active: true })).evolve(event('tab.activated', { tabId: 'a' }))
    expect(back.windows.get('main')).toMatchObject({ activeInstanceId: 'w1', activeTabId: 'a' })
    expect(back.workspaceRoots).toEqual(['/one', '/two'])
  })

  // Until the one-owner issue this kept one.md → doc-a after the retarget: the save_as mix-up (a reopened one.md
  // continued the document now saved as two.md). A document belongs to one file at a time.
  it('SAVE_AS.ONE_FILE keeps the file each document belongs to, following retargets to every tab and freeing the old path', () => {
    const state = fold([opened('a', { path: '/x/one.md' }), opened('b', { docId: 'doc-a', path: '/x/one.md' }), event('document.retargeted', { docId: 'doc-a', path: '/x/two.md' })])
    expect(state.tabs.get('a')!.path).toBe('/x/two.md')
    expect(state.tabs.get('b')!.path).toBe('/x/two.md')
    expect(state.documentsByPath.get('/x/one.md')).toBeUndefined()
    expect(state.documentsByPath.get('/x/two.md')).toBe('doc-a')
    expect(state.tabsOfDocument('doc-a').map((tab) => tab.tabId)).toEqual(['a', 'b'])
  })
})

describe('approvals state (APPR.1)', () => {
  const requested = (id: string, connection = 'c1', at = 0) =>
    event('approval.requested', { approvalId: id, kind: 'open_workspace', subject: '/ws', connection, principal: null }, at)

  it('is bound to the connection that asked', () => {
    const state = evolveApprovals(initialApprovals(), requested('a1'))
    expect(findApproval(state, 'open_workspace', '/ws', 'c1')?.approvalId).toBe('a1')
    expect(findApproval(state, 'open_workspace', '/ws', 'c2')).toBeUndefined()
    expect(findApproval(state, 'open_workspace', '/other', 'c1')).toBeUndefined()
  })

  it('expires five minutes after its last change unless used, and is single-use', () => {
    let state = evolveApprovals(initialApprovals(), requested('a1', 'c1', 0))
    expect(approvalStatus(state.get('a1')!, APPROVAL_LIFETIME_MS)).toBe('pending')
    expect(approvalStatus(state.get('a1')!, APPROVAL_LIFETIME_MS + 1)).toBe('expired')
    state = evolveApprovals(state, event('approval.decided', { approvalId: 'a1', decision: 'approved' }, 60_000))
    expect(approvalStatus(state.get('a1')!, 60_000 + APPROVAL_LIFETIME_MS)).toBe('approved')
    expect(approvalStatus(state.get('a1')!, 60_001 + APPROVAL_LIFETIME_MS)).toBe('expired')
    state = evolveApprovals(state, event('approval.consumed', { approvalId: 'a1' }, 61_000))
    expect(approvalStatus(state.get('a1')!, 61_000)).toBe('consumed')
  })

  it('keeps a denial standing until the person approves', () => {
    let state = evolveApprovals(initialApprovals(), requested('a1'))
    state = evolveApprovals(state, event('approval.decided', { approvalId: 'a1', decision: 'denied' }, 10))
    expect(approvalStatus(state.get('a1')!, 10 * APPROVAL_LIFETIME_MS)).toBe('denied')
    state = evolveApprovals(state, event('approval.decided', { approvalId: 'a1', decision: 'approved' }, 20))
    expect(approvalStatus(state.get('a1')!, 21)).toBe('approved')
  })
})
