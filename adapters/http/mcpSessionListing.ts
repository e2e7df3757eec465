/**
 * One open MCP session as the person sees it: `quire agent list` (`GET /admin/agents`) and the console's Agents panel
 * (`GET /console/api/panels/agents`). Types only: the console's bundle imports it too.
 */
export interface McpSessionListing {
  /** The session's connection id (`mcp-` and 8 hex digits): what approvals name, and what the person ends it by. */
  readonly session: string
  /** When it was opened (ms since the epoch). */
  readonly openedAt: number
  /** When its latest request began (its standing stream counts from when it opened). */
  readonly lastRequestAt: number
  /** The client's name and version from its `initialize` (`claude-code 1.0.3`), null when it sent none. */
  readonly client: string | null
  /** The pid of the `quire mcp` process that holds it, when an AI client reaches the daemon through one. */
  readonly bridgePid: number | null
}
