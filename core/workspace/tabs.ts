import { QuireError } from '../errors.js'
import type { TabState, WindowState, WorkspaceState } from './workspaceState.js'

/**
 * Finds the tab a request is about: the named tab, else the focused tab of the window the request is routed to
 * (GEN.5–GEN.7): the named window, else the most recently used document window.
 */
export function resolveTab(state: WorkspaceState, tabId: string | undefined, windowLabel?: string): TabState {
  if (tabId !== undefined) {
    const tab = state.tabs.get(tabId)
    if (!tab) throw new QuireError('INVALID_TAB', `Unknown tabId ${JSON.stringify(tabId)}`)
    return tab
  }
  const window = resolveWindow(state, windowLabel)
  const tab = window.activeTabId === null ? undefined : state.tabs.get(window.activeTabId)
  if (!tab) throw new QuireError('INVALID_TAB', `No focused tab in window ${window.label}; pass a tabId (session.get_state lists them)`)
  return tab
}

export function resolveWindow(state: WorkspaceState, windowLabel?: string): WindowState {
  const label = windowLabel ?? state.lastUsedWindow
  const window = state.windows.get(label)
  if (!window) throw new QuireError('INVALID_TAB', `Unknown window ${JSON.stringify(label)}`)
  return window
}

/** Whether a tab is on screen in its window: the rail is off, or it belongs to the instance the window shows. */
export function isVisible(state: WorkspaceState, tab: TabState, railOn: boolean): boolean {
  if (!railOn || tab.instanceId === null) return true
  return state.windows.get(tab.windowLabel)?.activeInstanceId === tab.instanceId
}
