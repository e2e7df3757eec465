import type { RecordedEvent } from '../log/eventLog.js'
import { dataOf } from '../events/schema.js'
import { DocumentRetargeted, TabActivated, TabClosed, TabOpened, TabPinned, WindowFocusRequested, WindowOpened, WorkspaceClosed, WorkspaceOpened } from './events.js'
import { MAIN_WINDOW } from './events.js'

export interface TabState {
  readonly tabId: string
  readonly docId: string
  readonly windowLabel: string
  readonly instanceId: string | null
  readonly path: string | null
  readonly pinned: boolean
  /** The assistant (principal) that opened the tab, or null when the person or the system did: caps count by it. */
  readonly openedBy: string | null
}

export interface WindowState {
  readonly label: string
  /** Tab ids in opening order. */
  readonly tabIds: readonly string[]
  readonly activeTabId: string | null
  /** The workspace instance the window shows (null when it has none). */
  readonly activeInstanceId: string | null
}

export interface InstanceState {
  readonly instanceId: string
  readonly root: string
  readonly windowLabel: string
}

/**
 * Windows, tabs and workspace instances, folded from the `workspace` stream. Immutable per event (each `evolve`
 * returns a new state), so a read model handed to a caller never changes under it.
 */
export class WorkspaceState {
  private constructor(
    readonly windows: ReadonlyMap<string, WindowState>,
    readonly tabs: ReadonlyMap<string, TabState>,
    readonly instances: ReadonlyMap<string, InstanceState>,
    /** The most recently used document window: where requests without a tab or path go (GEN.6). */
    readonly lastUsedWindow: string,
    /** Per window and instance, the tab that was current there last, to restore on switching back. */
    private readonly lastActive: ReadonlyMap<string, string>,
    /** The file each document belongs to now (opened from, or last saved to): reopening that file continues its document. */
    readonly documentsByPath: ReadonlyMap<string, string>,
  ) {}

  static initial(): WorkspaceState {
    const main: WindowState = { label: MAIN_WINDOW, tabIds: [], activeTabId: null, activeInstanceId: null }
    return new WorkspaceState(new Map([[MAIN_WINDOW, main]]), new Map(), new Map(), MAIN_WINDOW, new Map(), new Map())
  }

  /** Tabs on a document, in any window (CONC.3: they share the document). */
  tabsOfDocument(docId: string): TabState[] {
    return [...this.tabs.values()].filter((tab) => tab.docId === docId)
  }

  /** Folder roots of open workspaces and directories of open documents: the path scope (SCOPE.1). */
  get workspaceRoots(): string[] {
    return [...new Set([...this.instances.values()].map((instance) => instance.root))]
  }

  evolve(event: RecordedEvent): WorkspaceState {
    switch (event.type) {
      case WindowOpened.type: {
        const { label } = dataOf(event, WindowOpened)
        if (this.windows.has(label)) return this
        const windows = new Map(this.windows)
        windows.set(label, { label, tabIds: [], activeTabId: null, activeInstanceId: null })
        return this.with({ windows, lastUsedWindow: label })
      }
      case WindowFocusRequested.type: {
        const { label } = dataOf(event, WindowFocusRequested)
        return this.windows.has(label) ? this.with({ lastUsedWindow: label }) : this
      }
      case WorkspaceOpened.type: {
        const { instanceId, root, windowLabel } = dataOf(event, WorkspaceOpened)
        const instance: InstanceState = { instanceId, root, windowLabel }
        const instances = new Map(this.instances)
        instances.set(instance.instanceId, instance)
        const next = this.with({ instances })
        return next.showInstance(instance.windowLabel, instance.instanceId).with({ lastUsedWindow: instance.windowLabel })
      }
      case WorkspaceClosed.type: {
        const { instanceId } = dataOf(event, WorkspaceClosed)
        const instance = this.instances.get(instanceId)
        if (!instance) return this
        const instances = new Map(this.instances)
        instances.delete(instanceId)
        const remaining = [...instances.values()].filter((other) => other.windowLabel === instance.windowLabel)
        const next = this.with({ instances })
        const window = next.windows.get(instance.windowLabel)
        if (window?.activeInstanceId !== instanceId) return next
        return next.showInstance(instance.windowLabel, remaining.at(-1)?.instanceId ?? null)
      }
      case TabOpened.type: {
        const data = dataOf(event, TabOpened)
        const tab: TabState = {
          tabId: data.tabId, docId: data.docId, windowLabel: data.windowLabel, instanceId: data.instanceId, path: data.path, pinned: false,
          openedBy: event.actor.kind === 'mcp' ? event.actor.principal : null,
        }
        const windows = new Map(this.windows)
        const window = windows.get(tab.windowLabel) ?? { label: tab.windowLabel, tabIds: [], activeTabId: null, activeInstanceId: null }
        windows.set(tab.windowLabel, { ...window, tabIds: [...window.tabIds, tab.tabId] })
        const tabs = new Map(this.tabs)
        tabs.set(tab.tabId, tab)
        const documentsByPath = tab.path === null ? this.documentsByPath : new Map(this.documentsByPath).set(tab.path, tab.docId)
        const next = this.with({ windows, tabs, lastUsedWindow: tab.windowLabel, documentsByPath })
        return data.active ? next.activate(tab.tabId) : next
      }
      case TabActivated.type: {
        const { tabId } = dataOf(event, TabActivated)
        return this.tabs.has(tabId) ? this.activate(tabId) : this
      }
      case TabClosed.type:
        return this.close(dataOf(event, TabClosed).tabId)
      case TabPinned.type: {
        const { tabId, pinned } = dataOf(event, TabPinned)
        const tab = this.tabs.get(tabId)
        if (!tab) return this
        const tabs = new Map(this.tabs)
        tabs.set(tab.tabId, { ...tab, pinned })
        return this.with({ tabs })
      }
      case DocumentRetargeted.type: {
        const data = dataOf(event, DocumentRetargeted)
        const tabs = new Map(this.tabs)
        for (const tab of this.tabs.values()) {
          if (tab.docId === data.docId) tabs.set(tab.tabId, { ...tab, path: data.path })
        }
        // A document belongs to one file at a time: the path it leaves is free, and opening that file again opens a
        // new document holding the file's bytes.
        const documentsByPath = new Map([...this.documentsByPath].filter(([, docId]) => docId !== data.docId))
        documentsByPath.set(data.path, data.docId)
        return this.with({ tabs, documentsByPath })
      }
      default:
        return this
    }
  }

  private with(changes: {
    windows?: ReadonlyMap<string, WindowState>
    tabs?: ReadonlyMap<string, TabState>
    instances?: ReadonlyMap<string, InstanceState>
    lastUsedWindow?: string
    lastActive?: ReadonlyMap<string, string>
    documentsByPath?: ReadonlyMap<string, string>
  }): WorkspaceState {
    return new WorkspaceState(
      changes.windows ?? this.windows,
      changes.tabs ?? this.tabs,
      changes.instances ?? this.instances,
      changes.lastUsedWindow ?? this.lastUsedWindow,
      changes.lastActive ?? this.lastActive,
      changes.documentsByPath ?? this.documentsByPath,
    )
  }

  /** Makes a tab current in its window, switching the window to the tab's workspace instance when it has one. */
  private activate(tabId: string): WorkspaceState {
    const tab = this.tabs.get(tabId)!
    const window = this.windows.get(tab.windowLabel)!
    const instanceId = tab.instanceId ?? window.activeInstanceId
    const windows = new Map(this.windows)
    windows.set(window.label, { ...window, activeTabId: tabId, activeInstanceId: instanceId })
    const lastActive = new Map(this.lastActive)
    lastActive.set(`${window.label}\u0000${instanceId ?? ''}`, tabId)
    return this.with({ windows, lastActive, lastUsedWindow: window.label })
  }

  /** Shows another workspace instance in a window; its current tab becomes the one last current there. */
  private showInstance(label: string, instanceId: string | null): WorkspaceState {
    const window = this.windows.get(label)
    if (!window) return this
    const remembered = this.lastActive.get(`${label}\u0000${instanceId ?? ''}`)
    const activeTabId = remembered && this.tabs.has(remembered) ? remembered : null
    const windows = new Map(this.windows)
    windows.set(label, { ...window, activeInstanceId: instanceId, activeTabId })
    return this.with({ windows })
  }

  private close(tabId: string): WorkspaceState {
    const tab = this.tabs.get(tabId)
    if (!tab) return this
    const tabs = new Map(this.tabs)
    tabs.delete(tabId)
    const window = this.windows.get(tab.windowLabel)!
    const index = window.tabIds.indexOf(tabId)
    const tabIds = window.tabIds.filter((other) => other !== tabId)
    let activeTabId = window.activeTabId
    if (activeTabId === tabId) {
      // The neighbour that stays visible takes over, as in any tabbed editor.
      const visible = (id: string) => {
        const other = tabs.get(id)
        return other !== undefined && (other.instanceId === null || other.instanceId === window.activeInstanceId)
      }
      activeTabId = tabIds.slice(index).find(visible) ?? tabIds.slice(0, index).reverse().find(visible) ?? null
    }
    const windows = new Map(this.windows)
    windows.set(window.label, { ...window, tabIds, activeTabId })
    return this.with({ windows, tabs })
  }
}
