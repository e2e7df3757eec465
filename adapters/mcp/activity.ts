import type { Caller } from '../../core/workspace/commands.js'
import { resolveTab } from '../../core/workspace/tabs.js'
import type { Services } from '../host/services.js'

/** What the person sees of one assistant's connection: who, since when, and the tab it last read or wrote. */
export interface ConnectionActivity {
  readonly connection: string
  /** The agent's name (its token's), null for the person's own token (`quire mcp` run by the person). */
  readonly principal: string | null
  /** When the connection was opened (ms since the epoch). */
  readonly since: number
  /** Its last tool call, `tool.action`, and when. */
  readonly lastCall: { readonly name: string; readonly at: number } | null
  /** The tab its last call on a document read or wrote. */
  readonly lastTab: { readonly tabId: string; readonly op: 'read' | 'write'; readonly at: number } | null
}

/** Tools whose calls are about one tab's document; and the actions of theirs that only look. */
const TAB_TOOLS = new Set(['document', 'workflow', 'selection', 'comments'])
const LOOKING = new Set(['read', 'get', 'list', 'validate'])
/** How many ended connections are remembered (ids are random: one is never reused). */
const MAX_ENDED = 1024

/**
 * A read leaves nothing in the log, so who looked at what lives here, in memory, for the console's "who is here":
 * the MCP connections open now (the HTTP route reports them opening and closing) and what each last did (every tool
 * call passes through `serveTools`, which reports it). Nothing here is a domain rule or is ever logged.
 */
export class McpActivity {
  private readonly connections = new Map<string, ConnectionActivity>()
  /** Connections that ended lately: a call still finishing on one must not bring it back. */
  private readonly ended = new Set<string>()

  opened(connection: string, principal: string | null, at = Date.now()): void {
    if (!this.connections.has(connection)) this.connections.set(connection, { connection, principal, since: at, lastCall: null, lastTab: null })
  }

  closed(connection: string): void {
    this.connections.delete(connection)
    this.ended.add(connection)
    if (this.ended.size > MAX_ENDED) this.ended.delete(this.ended.values().next().value!)
  }

  /**
   * A tool call that succeeded. The tab is the one named, else the one the call went to (the focused tab, as the
   * core resolves it); a call that names no tab and finds none leaves the last tab as it was.
   */
  called(caller: Caller, services: Services, tool: string, args: Record<string, unknown> | undefined, at = Date.now()): void {
    if (this.ended.has(caller.connection)) return
    const known = this.connections.get(caller.connection)
    // A connection not opened over HTTP (stdio, in-process): it is here as long as it calls.
    const current = known ?? { connection: caller.connection, principal: caller.principal, since: at, lastCall: null, lastTab: null }
    const action = typeof args?.action === 'string' ? args.action : ''
    let lastTab = current.lastTab
    if (TAB_TOOLS.has(tool)) {
      const tabId = typeof args?.tabId === 'string' ? args.tabId : undefined
      try {
        const tab = resolveTab(services.engine.views.workspace.state, tabId)
        lastTab = { tabId: tab.tabId, op: LOOKING.has(action) ? 'read' : 'write', at }
      } catch {
        // No such tab now: nothing to point at.
      }
    }
    this.connections.set(caller.connection, { ...current, lastCall: { name: action ? `${tool}.${action}` : tool, at }, lastTab })
  }

  /** Every connection known now, oldest first. */
  list(): ConnectionActivity[] {
    return [...this.connections.values()].sort((a, b) => a.since - b.since)
  }
}

/** The process's one record: the daemon serves every MCP connection and the console from one process. */
export const mcpActivity = new McpActivity()
