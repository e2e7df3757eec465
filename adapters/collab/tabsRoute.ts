import { Hono } from 'hono'
import type { Services } from '../host/services.js'

/**
 * `GET /collab`: the windows and tabs with the document each shows, for the person's console, which needs a
 * document id to open `/collab/<docId>` (MCP speaks of tabs; peers speak of documents). The caller checks the token.
 */
export function tabsRoute(services: Services): Hono {
  const routes = new Hono()
  routes.get('/', (c) => {
    const { windows, tabs } = services.engine.views.workspace.state
    return c.json({
      windows: [...windows.values()].map((window) => ({
        label: window.label,
        activeTabId: window.activeTabId,
        tabs: window.tabIds.flatMap((tabId) => {
          const tab = tabs.get(tabId)
          if (!tab) return []
          const title = services.engine.documents.peek(tab.docId)?.meta?.title ?? null
          return [{ tabId, docId: tab.docId, path: tab.path, title, pinned: tab.pinned }]
        }),
      })),
    })
  })
  return routes
}
