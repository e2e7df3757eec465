import type { EditorPresence } from './editorPresence.js'

/**
 * Every editor currently attached, keyed by collaboration connection and awareness client id. The collaboration
 * endpoint writes it as awareness states arrive and connections close; the MCP surface reads it (window focus,
 * active editor, selection, composition). Nothing here is logged: presence is not history.
 */
export class PresenceRegistry {
  private readonly editors = new Map<string, EditorPresence>()

  /** Sets (or, with `undefined`, removes) what one awareness client of one connection reports. */
  set(connection: string, clientId: number, presence: EditorPresence | undefined): void {
    const key = `${connection}\u0000${clientId}`
    if (presence) this.editors.set(key, presence)
    else this.editors.delete(key)
  }

  /** Forgets every editor a connection carried (it closed or vanished). */
  dropConnection(connection: string): void {
    for (const [key, presence] of this.editors) if (presence.connection === connection) this.editors.delete(key)
  }

  /** Every editor showing `tabId`, most recently updated first. */
  forTab(tabId: string): EditorPresence[] {
    return [...this.editors.values()].filter((presence) => presence.tabId === tabId).sort((a, b) => b.updatedAt - a.updatedAt)
  }

  /** Every editor showing a tab of `docId`. */
  forDocument(docId: string): EditorPresence[] {
    return [...this.editors.values()].filter((presence) => presence.docId === docId)
  }

  /** Every editor of a window. */
  forWindow(windowLabel: string): EditorPresence[] {
    return [...this.editors.values()].filter((presence) => presence.window === windowLabel)
  }

  /** The editor the person works in: focused, most recently updated; undefined when no window has focus. */
  focused(): EditorPresence | undefined {
    let best: EditorPresence | undefined
    for (const presence of this.editors.values()) {
      if (presence.focused && (!best || presence.updatedAt > best.updatedAt)) best = presence
    }
    return best
  }
}
