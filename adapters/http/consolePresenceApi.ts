/**
 * Who is here (types only: the browser bundle imports them too). Mounted under `/console/api` behind the console's
 * sign-in.
 *
 *   GET /console/api/presence → ConsolePresence
 */

export interface PresenceTab {
  readonly tabId: string
  readonly title: string
  /** Still open: a closed tab is named by the title it had (unknown: its id). */
  readonly open: boolean
}

export interface PresenceAssistant {
  /** The agent's name, or null for a connection on the person's own token. */
  readonly principal: string | null
  readonly connection: string
  /** ms since the epoch. */
  readonly since: number
  readonly lastCall: { readonly name: string; readonly at: number } | null
  readonly lastTab: (PresenceTab & { readonly op: 'read' | 'write'; readonly at: number }) | null
}

/** One of the person's editors (a console page, in one window, on one tab). */
export interface PresenceEditor {
  readonly window: string
  readonly tab: PresenceTab
  readonly mode: 'wysiwyg' | 'source'
  readonly focused: boolean
  /** The editor's awareness client id: a page finds itself by its own. */
  readonly clientId: number
  readonly updatedAt: number
}

export interface ConsolePresence {
  readonly assistants: readonly PresenceAssistant[]
  readonly editors: readonly PresenceEditor[]
  readonly now: number
}
