/**
 * The web console's JSON API, `/console/api/*` (types only: the browser bundle imports them too, so the two sides
 * cannot drift). Every call needs `Authorization: Bearer <port-file token>`: the console is the person, and an
 * agent token must never reach the person's side (an assistant could switch the person's tabs).
 *
 *   GET  /console/api/state                 → ConsoleState
 *   POST /console/api/tabs/:tabId/activate  → ConsoleActivation   (a person's tab switch, actor `user`)
 *
 * Errors are `{error, message}` with 401 (no or wrong token), 404 (unknown tab) or 400.
 */

export interface ConsoleTab {
  readonly tabId: string
  /** The document the tab shows: the collaboration room is `/collab/<docId>`. */
  readonly docId: string
  readonly title: string
  readonly path: string | null
  readonly kind: 'markdown' | 'yaml-workflow'
  readonly dirty: boolean
  /** An assistant's change is among what is unsaved: the person saves it (an assistant's write does not save their typing). */
  readonly assistantChangeUnsaved: boolean
  /** The document's revision token (`rev-…`), null while the document is not loaded. */
  readonly revision: string | null
  /**
   * Moves when an AI change is made or the person's review of one moves (a log position), never with typing: the
   * console reads the document's pending changes again only then.
   */
  readonly changesPosition: number
  /** The window's current tab. */
  readonly active: boolean
  /** On screen in its window: false for a tab of a workspace instance the rail does not show. */
  readonly visible: boolean
  readonly instanceId: string | null
  readonly pinned: boolean
}

export interface ConsoleInstance {
  readonly instanceId: string
  readonly root: string
  /** The folder's last path segment, as the rail labels it. */
  readonly name: string
  /** The instance the window shows. */
  readonly active: boolean
}

export interface ConsoleWindow {
  readonly label: string
  readonly activeTabId: string | null
  /** The window's workspace instances: the rail's entries (empty when the rail setting is off). */
  readonly instances: readonly ConsoleInstance[]
  readonly tabs: readonly ConsoleTab[]
}

export interface ConsoleState {
  /** The `workspaceRail` setting: when on, a window shows one workspace instance's tabs at a time. */
  readonly rail: boolean
  readonly windows: readonly ConsoleWindow[]
  /** The log's head position: changes whenever anything was recorded (a cheap "did anything change"). */
  readonly head: number
  readonly version: string
}

export interface ConsoleActivation {
  readonly activated: boolean
  readonly activeTabId: string | null
  readonly state: ConsoleState
}

export interface ConsoleError {
  readonly error: string
  readonly message: string
}
