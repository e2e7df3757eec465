/**
 * The console panels' JSON API: the person's decisions that otherwise need the CLI (types only: the browser bundle
 * imports them too, so the two sides cannot drift). Every call needs the port file's token, like the rest of
 * `/console/api/*` (adapters/http/console.ts): an agent token must never approve its own requests. Every change is
 * recorded with actor `user`.
 *
 *   GET  /console/api/panels/approvals                         → PanelApprovals
 *   POST /console/api/panels/approvals/:id/approve | deny      → PanelApprovalDecided  (approve takes ?scope=once|site|navigation)
 *   GET  /console/api/panels/settings                          → PanelSettings
 *   POST /console/api/panels/settings  {key, value}            → PanelSettings
 *   GET  /console/api/panels/divergences                       → PanelDivergences
 *   POST /console/api/panels/divergences/:docId/keep | reload  → PanelDivergences
 *   GET  /console/api/panels/agents                            → PanelAgents
 *   POST /console/api/panels/agents  {name}                    → PanelAgentAdded   (the token, shown once)
 *   POST /console/api/panels/agents/:name/revoke               → PanelAgents
 *   POST /console/api/panels/agents/:name/sessions/:session/end → PanelAgents      (ends one open MCP session)
 *
 * Errors are `{error, message}` (ConsoleError) with 400, 401 or 404.
 */

import type { McpSessionListing } from './mcpSessionListing.js'

export type PanelApprovalKind =
  | 'open_workspace'
  | 'save_as'
  | 'browser_act'
  | 'browser_execute_js'
  | 'browser_attach'
  | 'browser_destination'
  | 'browser_record'
  | 'browser_session'
  | 'browser_profile'
/** `once`: just this action. `site`: every such action on the page's origin from that connection. `navigation`: until the tab navigates. */
export type PanelApprovalScope = 'once' | 'site' | 'navigation'
export type PanelApprovalStatus = 'pending' | 'approved' | 'denied' | 'consumed' | 'expired'

export interface PanelApproval {
  readonly approvalId: string
  /** What is asked: open `subject` as a workspace, or save a tab to the new path `subject`. */
  readonly kind: PanelApprovalKind
  /** What exactly is asked: the canonical path (symlinks resolved), or the browser operation with its target and text. */
  readonly subject: string
  /** The page's origin, for browser requests. */
  readonly origin: string | null
  /** The scopes the person may give (`once` first); the approval's scope once decided. */
  readonly scopes: readonly PanelApprovalScope[]
  readonly scope: PanelApprovalScope
  /** The MCP connection that asked: only its retries can use the approval. */
  readonly connection: string
  /** The agent whose token the connection presented; null for an anonymous connection. */
  readonly principal: string | null
  readonly requestedAt: number
  readonly decidedAt: number | null
  readonly status: PanelApprovalStatus
  /** When it lapses unused (five minutes after its last change); null once it is denied, used or expired. */
  readonly expiresAt: number | null
}

export interface PanelApprovals {
  /** Waiting for the person, oldest first. */
  readonly pending: readonly PanelApproval[]
  /** The most recent others (approved, denied, used, expired), newest first. */
  readonly recent: readonly PanelApproval[]
  /** The server's clock, so the page counts down against it, not against its own. */
  readonly now: number
}

export interface PanelApprovalDecided {
  readonly approval: PanelApproval
}

/** How the panel renders a setting: a checkbox, a select of `choices`, or a number input. */
export type PanelSettingType = 'boolean' | 'choice' | 'number'

export interface PanelSetting {
  /** The leaf key `quire settings` lists: `autoApproveSaves`, `cjkFormatting.quoteStyle`. */
  readonly key: string
  readonly value: boolean | string | number
  readonly type: PanelSettingType
  /** The allowed values of a `choice` setting (strings or numbers, as stored). */
  readonly choices?: readonly (string | number)[]
  /** The bounds of a `number` setting, where the schema sets them. */
  readonly min?: number
  readonly max?: number
}

export interface PanelSettings {
  readonly settings: readonly PanelSetting[]
}

export interface PanelSettingChange {
  readonly key: string
  readonly value: boolean | string | number
}

export interface PanelDivergence {
  readonly docId: string
  readonly title: string
  /** The file that changed on disk. */
  readonly path: string | null
  /** The open tabs showing the document. */
  readonly tabIds: readonly string[]
}

export interface PanelDivergences {
  /** Documents whose file changed on disk under unsaved changes, not yet kept or reloaded. */
  readonly divergences: readonly PanelDivergence[]
}

export interface PanelAgent {
  readonly name: string
  readonly addedAt: number
  readonly revoked: boolean
  /** Its MCP sessions open on the daemon now, oldest first. */
  readonly sessions: readonly McpSessionListing[]
}

export interface PanelAgents {
  readonly agents: readonly PanelAgent[]
}

export interface PanelAgentAdded {
  readonly name: string
  /** The new token: the only time it is ever shown (the log keeps its hash). */
  readonly token: string
  readonly agents: readonly PanelAgent[]
}
