import { basename } from 'node:path'
import { titleOfPath } from '../../core/documents/kind.js'
import { isVisible } from '../../core/workspace/tabs.js'
import type { Services } from '../host/services.js'
import type { ConsoleInstance, ConsoleState, ConsoleTab, ConsoleWindow } from './consoleApi.js'

/**
 * What the console shows, read from the same views `session.get_state` reads, so the person and the assistant see
 * the same windows, tabs, titles, dirty flags and revisions. Adds what only an editor needs: each tab's document id
 * (the collaboration room) and the rail's workspace instances.
 */
export async function consoleState(services: Services): Promise<ConsoleState> {
  const { engine } = services
  const workspace = engine.views.workspace.state
  const rail = engine.views.settings.state.workspaceRail
  const windows: ConsoleWindow[] = []
  for (const window of workspace.windows.values()) {
    const tabs: ConsoleTab[] = []
    for (const tabId of window.tabIds) {
      const tab = workspace.tabs.get(tabId)
      if (!tab) continue
      const document = await engine.documents.get(tab.docId)
      tabs.push({
        tabId: tab.tabId,
        docId: tab.docId,
        title: tab.path !== null ? titleOfPath(tab.path) : (document?.meta?.title ?? titleOfPath(null)),
        path: tab.path,
        kind: document?.meta?.kind ?? 'markdown',
        dirty: document?.dirty ?? false,
        revision: document?.revision ?? null,
        active: window.activeTabId === tab.tabId,
        visible: isVisible(workspace, tab, rail),
        instanceId: tab.instanceId,
        pinned: tab.pinned,
      })
    }
    const instances: ConsoleInstance[] = rail
      ? [...workspace.instances.values()]
          .filter((instance) => instance.windowLabel === window.label)
          .map((instance) => ({
            instanceId: instance.instanceId,
            root: instance.root,
            name: basename(instance.root) || instance.root,
            active: window.activeInstanceId === instance.instanceId,
          }))
      : []
    windows.push({ label: window.label, activeTabId: window.activeTabId, instances, tabs })
  }
  return { rail, windows, head: engine.store.headPosition, version: services.version }
}
