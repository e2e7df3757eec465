import type { EditorPresenceState } from '../../core/presence/editorPresence.js'
import type { ConsoleApp } from './consoleApp.js'
import type { ConnectionState } from './documentSession.js'
import type { ScreenRect } from './editor.js'

/** A read-only view of the open editor, on `window.quireConsole`: for end-to-end tests and for debugging by hand. */
export interface ConsoleIntrospection {
  editor(): {
    readonly tabId: string
    readonly docId: string
    readonly window: string
    readonly mode: 'wysiwyg' | 'source'
    readonly mounted: boolean
    readonly connection: ConnectionState
    readonly text: string | null
    readonly selection: { readonly anchor: number; readonly head: number } | null
    readonly presence: EditorPresenceState
  } | null
  /** Where a position of the open editor is on screen, for tests that point the mouse at text. */
  coordsAt(pos: number): ScreenRect | null
}

export function exposeIntrospection(app: ConsoleApp): void {
  const introspection: ConsoleIntrospection = {
    editor() {
      const session = app.openSession
      if (!session) return null
      const editor = session.mountedEditor
      return {
        tabId: session.tab.tabId,
        docId: session.tab.docId,
        window: session.windowLabel,
        mode: session.currentMode,
        mounted: editor !== undefined,
        connection: session.connectionState,
        text: editor?.text() ?? null,
        selection: editor?.selection() ?? null,
        presence: session.presenceState(),
      }
    },
    coordsAt: (pos) => app.openSession?.mountedEditor?.coordsAt(pos) ?? null,
  }
  Object.assign(window, { quireConsole: introspection })
}
