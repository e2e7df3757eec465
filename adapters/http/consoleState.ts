import { basename } from 'node:path'
import { sessionView } from '../../projections/session/sessionView.js'
import type { Services } from '../host/services.js'
import type { ConsoleInstance, ConsoleState, ConsoleTab, ConsoleWindow } from './consoleApi.js'

/**
 * What the console shows, read from the same views `session.get_state` reads, so the person and the assistant see
 * the same windows, tabs, titles, dirty flags and revisions. Adds what only an editor needs: each tab's document id
 * (the collaboration room) and the rail's workspace instances.
 */
export async function consoleState(services: Services): Promise<ConsoleState> {
  const { engine } = services
  const { rail, windows: views } = await sessionView(engine)
  const windows: ConsoleWindow[] = views.map((window) => {
    const tabs: ConsoleTab[] = window.tabs.map((tab) => ({
      tabId: tab.tabId, docId: tab.docId, title: tab.title, path: tab.filePath, kind: tab.kind, dirty: tab.dirty, assistantChangeUnsaved: tab.assistantChangeUnsaved, revision: tab.revision, changesPosition: tab.changesPosition,
      active: tab.active, visible: tab.visible, instanceId: tab.instanceId, pinned: tab.pinned,
    }))
    const instances: ConsoleInstance[] = rail
      ? [...engine.views.workspace.state.instances.values()]
          .filter((instance) => instance.windowLabel === window.label)
          .map((instance) => ({
            instanceId: instance.instanceId,
            root: instance.root,
            name: basename(instance.root) || instance.root,
            active: window.activeInstanceId === instance.instanceId,
          }))
      : []
    return { label: window.label, activeTabId: window.activeTabId, instances, tabs }
  })
  return { rail, windows, head: engine.store.headPosition, version: services.version }
}
