import { Hono } from 'hono'
import { titleOfPath } from '../../core/documents/kind.js'
import type { Services } from '../host/services.js'
import { mcpActivity } from '../mcp/activity.js'
import type { ConsolePresence, PresenceEditor, PresenceTab } from './consolePresenceApi.js'

/**
 * Who is here (contract in consolePresenceApi.ts): the assistants connected over MCP now, with what each last read or
 * wrote (adapters/mcp/activity.ts), and the person's own editors in every window (the presence the collaboration
 * endpoint keeps). Read-only; nothing of it is logged.
 */
export function consolePresenceRoutes(services: Services): Hono {
  const app = new Hono()
  app.get('/presence', async (c) => {
    const tabOf = async (tabId: string): Promise<PresenceTab> => {
      const tab = services.engine.views.workspace.state.tabs.get(tabId)
      if (!tab) return { tabId, title: tabId, open: false }
      const document = await services.engine.documents.get(tab.docId)
      return { tabId, title: tab.path !== null ? titleOfPath(tab.path) : (document?.meta?.title ?? titleOfPath(null)), open: true }
    }
    const assistants = await Promise.all(
      mcpActivity.list().map(async (activity) => ({
        principal: activity.principal,
        connection: activity.connection,
        since: activity.since,
        lastCall: activity.lastCall,
        lastTab: activity.lastTab && { ...(await tabOf(activity.lastTab.tabId)), op: activity.lastTab.op, at: activity.lastTab.at },
      })),
    )
    const editors: PresenceEditor[] = []
    for (const label of services.engine.views.workspace.state.windows.keys()) {
      for (const editor of services.presence.forWindow(label)) {
        editors.push({ window: label, tab: await tabOf(editor.tabId), mode: editor.mode, focused: editor.focused, clientId: editor.clientId, updatedAt: editor.updatedAt })
      }
    }
    return c.json<ConsolePresence>({ assistants, editors, now: Date.now() }, 200, { 'cache-control': 'no-store' })
  })
  return app
}
