import type { Actor } from '../events/actor.js'
import { QuireError } from '../errors.js'
import type { EventInput } from '../log/eventLog.js'
import { isVisible, resolveTab, resolveWindow } from './tabs.js'
import type { WorkspaceState } from './workspaceState.js'

/** How the document a tab shows stands, as closing it must know (read from its owner before deciding). */
export interface DocumentStanding {
  readonly dirty: boolean
  readonly diverged: boolean
}

/**
 * What is asked of the workspace stream (windows, tabs, workspace instances). Ids are made before deciding, and
 * what other streams know (a document's standing, the rail setting) is part of the command, so deciding stays pure.
 */
export type WorkspaceCommand =
  | {
      readonly type: 'open-tab'
      readonly tabId: string
      readonly docId: string
      readonly windowLabel: string | undefined
      /** The tab's workspace instance; `window-active` takes the instance the window shows. */
      readonly instanceId: string | null | 'window-active'
      readonly path: string | null
      readonly active: boolean
      readonly actor: Actor
    }
  | { readonly type: 'activate'; readonly tabId: string; readonly railOn: boolean; readonly actor: Actor }
  | { readonly type: 'close'; readonly tabId: string; readonly force: boolean; readonly document: DocumentStanding | undefined; readonly actor: Actor }
  | { readonly type: 'focus'; readonly windowLabel: string; readonly actor: Actor }
  | { readonly type: 'pin'; readonly tabId: string; readonly pinned: boolean; readonly actor: Actor }
  | {
      readonly type: 'open-workspace'
      readonly instanceId: string
      readonly root: string
      readonly approval: string | null
      /** The person's `--workspace` at start-up: a folder already open is not opened again. */
      readonly onlyIfNotOpen: boolean
      readonly actor: Actor
    }

/**
 * The most tabs one assistant keeps open at once: enough for any real session, and a bound on what a runaway client
 * can make every start-up fold (issue 11, finding 10). The person's own tabs are not counted.
 */
export const MAX_TABS_PER_AGENT = 200

/** Why a close decided to close nothing (WS.CLOSE.2–5). */
export type CloseRefusal = 'DIRTY' | 'DIVERGENT' | 'PINNED'

/** The workspace stream's decide: the events a command leads to (none when it changes nothing), or the refusal it throws. */
export function decideWorkspace(command: WorkspaceCommand, state: WorkspaceState): EventInput[] {
  const actor = command.actor
  switch (command.type) {
    case 'open-tab': {
      const window = resolveWindow(state, command.windowLabel)
      if (actor.kind === 'mcp') {
        const open = [...state.tabs.values()].filter((tab) => tab.openedBy === actor.principal).length
        if (open >= MAX_TABS_PER_AGENT) {
          throw new QuireError('RESOURCE_EXHAUSTED', `${actor.principal} has ${open} tabs open, the most one assistant may keep; close some (workspace.close) and open again`, {
            limit: MAX_TABS_PER_AGENT,
          })
        }
      }
      const instanceId = command.instanceId === 'window-active' ? window.activeInstanceId : command.instanceId
      const { tabId, docId, path, active } = command
      return [{ type: 'tab.opened', actor, data: { tabId, docId, windowLabel: window.label, instanceId, path, active } }]
    }
    case 'activate': {
      const tab = resolveTab(state, command.tabId)
      const window = state.windows.get(tab.windowLabel)!
      if (window.activeTabId === tab.tabId && isVisible(state, tab, command.railOn)) return []
      return [{ type: 'tab.activated', actor, data: { tabId: tab.tabId } }]
    }
    case 'close': {
      const tab = resolveTab(state, command.tabId)
      if (closeRefusal(command, state) !== undefined) return []
      return [{ type: 'tab.closed', actor, data: { tabId: tab.tabId, forced: command.force } }]
    }
    case 'focus':
      return [{ type: 'window.focus-requested', actor, data: { label: resolveWindow(state, command.windowLabel).label } }]
    case 'pin': {
      const tab = resolveTab(state, command.tabId)
      if (tab.pinned === command.pinned) return []
      return [{ type: 'tab.pinned', actor, data: { tabId: tab.tabId, pinned: command.pinned } }]
    }
    case 'open-workspace': {
      if (command.onlyIfNotOpen && [...state.instances.values()].some((instance) => instance.root === command.root)) return []
      const { instanceId, root, approval } = command
      return [{ type: 'workspace.opened', actor, data: { instanceId, root, windowLabel: resolveWindow(state).label, approval } }]
    }
  }
}

/**
 * Why closing a tab closes nothing: pinned; or, without force, the last tab of a document that diverged from its
 * file or has unsaved changes (another tab still showing the document means closing this one loses nothing).
 */
export function closeRefusal(command: Extract<WorkspaceCommand, { type: 'close' }>, state: WorkspaceState): CloseRefusal | undefined {
  const tab = resolveTab(state, command.tabId)
  if (tab.pinned) return 'PINNED'
  if (command.force || !command.document || state.tabsOfDocument(tab.docId).length > 1) return undefined
  if (command.document.diverged) return 'DIVERGENT'
  if (command.document.dirty) return 'DIRTY'
  return undefined
}
