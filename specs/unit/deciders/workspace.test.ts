import { describe, it } from 'vitest'
import { USER, type Actor } from '../../../core/events/actor.js'
import { decideWorkspace, type WorkspaceCommand } from '../../../core/workspace/decider.js'
import { WorkspaceState } from '../../../core/workspace/workspaceState.js'
import { deciderSpec } from '../../support/decider.js'

const workspace = deciderSpec<WorkspaceCommand, WorkspaceState>('workspace', decideWorkspace, (state, event) => state.evolve(event), WorkspaceState.initial)
const agent: Actor = { kind: 'mcp', principal: 'claude', connection: 'c1' }
const tabOpened = (tabId: string, extra: Record<string, unknown> = {}) => ({
  type: 'tab.opened', actor: agent, data: { tabId, docId: `doc-${tabId}`, windowLabel: 'main', instanceId: null, path: null, active: false, ...extra },
})
const clean = { dirty: false, diverged: false }

describe('the workspace decider', () => {
  it('given an empty main window, when a tab is opened in the window\'s active instance, then tab.opened names the window and instance', () => {
    workspace
      .given([{ type: 'workspace.opened', actor: USER, data: { instanceId: 'w1', root: '/w', windowLabel: 'main', approval: null } }])
      .when({ type: 'open-tab', tabId: 't1', docId: 'doc-t1', windowLabel: undefined, instanceId: 'window-active', path: null, active: true, actor: agent })
      .then([{ type: 'tab.opened', actor: agent, data: { tabId: 't1', docId: 'doc-t1', windowLabel: 'main', instanceId: 'w1', path: null, active: true } }])
  })

  it('given no window "side", when a tab is opened there, then INVALID_TAB', () => {
    workspace.given([]).when({ type: 'open-tab', tabId: 't1', docId: 'd', windowLabel: 'side', instanceId: null, path: null, active: false, actor: agent }).thenRefuses('INVALID_TAB')
  })

  it('given tab a current, when a is activated, then nothing; when b is activated, then tab.activated (WS.SWITCH_TAB.1)', () => {
    const history = [tabOpened('a', { active: true }), tabOpened('b')]
    workspace.given(history).when({ type: 'activate', tabId: 'a', railOn: false, actor: agent }).then([])
    workspace.given(history).when({ type: 'activate', tabId: 'b', railOn: false, actor: agent }).then([{ type: 'tab.activated', actor: agent, data: { tabId: 'b' } }])
    workspace.given(history).when({ type: 'activate', tabId: 'zz', railOn: false, actor: agent }).thenRefuses('INVALID_TAB')
  })

  it('given the last tab of a dirty or diverged document, when closed without force, then nothing is decided (WS.CLOSE.2–3)', () => {
    const history = [tabOpened('a')]
    workspace.given(history).when({ type: 'close', tabId: 'a', force: false, document: { dirty: true, diverged: false }, actor: agent }).then([])
    workspace.given(history).when({ type: 'close', tabId: 'a', force: false, document: { dirty: false, diverged: true }, actor: agent }).then([])
    workspace.given(history).when({ type: 'close', tabId: 'a', force: true, document: { dirty: true, diverged: false }, actor: agent })
      .then([{ type: 'tab.closed', actor: agent, data: { tabId: 'a', forced: true } }])
  })

  it('given a dirty document shown in two tabs, when one is closed, then it closes (the other still shows it)', () => {
    workspace
      .given([tabOpened('a', { docId: 'd' }), tabOpened('b', { docId: 'd' })])
      .when({ type: 'close', tabId: 'a', force: false, document: { dirty: true, diverged: false }, actor: agent })
      .then([{ type: 'tab.closed', actor: agent, data: { tabId: 'a', forced: false } }])
  })

  it('given a pinned tab, when closed even with force, then nothing (WS.CLOSE.5)', () => {
    workspace
      .given([tabOpened('a'), { type: 'tab.pinned', actor: USER, data: { tabId: 'a', pinned: true } }])
      .when({ type: 'close', tabId: 'a', force: true, document: clean, actor: agent })
      .then([])
  })

  it('given a folder open as a workspace, when the person opens it again at start-up, then nothing; an approved request opens another instance', () => {
    const history = [{ type: 'workspace.opened', actor: USER, data: { instanceId: 'w1', root: '/w', windowLabel: 'main', approval: null } }]
    workspace.given(history).when({ type: 'open-workspace', instanceId: 'w2', root: '/w', approval: null, onlyIfNotOpen: true, actor: USER }).then([])
    workspace
      .given(history)
      .when({ type: 'open-workspace', instanceId: 'w2', root: '/w', approval: 'ap-1', onlyIfNotOpen: false, actor: agent })
      .then([{ type: 'workspace.opened', actor: agent, data: { instanceId: 'w2', root: '/w', windowLabel: 'main', approval: 'ap-1' } }])
  })

  it('given a tab pinned, when pinned again, then nothing; when unpinned, then tab.pinned false', () => {
    const history = [tabOpened('a'), { type: 'tab.pinned', actor: USER, data: { tabId: 'a', pinned: true } }]
    workspace.given(history).when({ type: 'pin', tabId: 'a', pinned: true, actor: USER }).then([])
    workspace.given(history).when({ type: 'pin', tabId: 'a', pinned: false, actor: USER }).then([{ type: 'tab.pinned', actor: USER, data: { tabId: 'a', pinned: false } }])
  })
})

describe('the workspace decider bounds an assistant\'s tabs (issue 11, finding 10)', () => {
  it('given 200 tabs claude opened, when claude opens one more, then RESOURCE_EXHAUSTED; the person and other assistants still may', () => {
    const opened = Array.from({ length: 200 }, (_, index) => tabOpened(`t${index}`))
    const open = (actor: Actor) => ({ type: 'open-tab', tabId: 'next', docId: 'doc-next', windowLabel: undefined, instanceId: null, path: null, active: false, actor }) as const
    workspace.given(opened).when(open(agent)).thenRefuses('RESOURCE_EXHAUSTED', /close some/)
    workspace.given(opened).when(open(USER)).then([{ type: 'tab.opened', actor: USER, data: { tabId: 'next', docId: 'doc-next', windowLabel: 'main', instanceId: null, path: null, active: false } }])
    const other: Actor = { kind: 'mcp', principal: 'other', connection: 'c2' }
    workspace.given(opened).when(open(other)).then([{ type: 'tab.opened', actor: other, data: { tabId: 'next', docId: 'doc-next', windowLabel: 'main', instanceId: null, path: null, active: false } }])
  })
})
