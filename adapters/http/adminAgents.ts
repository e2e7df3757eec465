import { Hono } from 'hono'
import { z } from 'zod'
import { USER } from '../../core/events/actor.js'
import { QuireError } from '../../core/errors.js'
import type { Services } from '../host/services.js'
import type { McpSessions } from './mcpRoute.js'
import type { McpSessionListing } from './mcpSessionListing.js'

/** What the person's agent routes need of the daemon's MCP sessions: each agent's open ones, and ending them. */
export type AgentSessions = Pick<McpSessions, 'listFor' | 'endFor'>

export interface AgentListing {
  readonly name: string
  readonly addedAt: number
  readonly revoked: boolean
  /** Its MCP sessions open on this daemon now, oldest first (none without a daemon). */
  readonly sessions: readonly McpSessionListing[]
}

export interface AgentSessionsEnded {
  readonly name: string
  /** The sessions ended (their connection ids); empty when the agent had none open. */
  readonly ended: readonly string[]
}

/**
 * `/admin/agents`, for `quire agent add | list | revoke | end-session`: tokens by name (never a token but the one
 * `add` issues), and the MCP sessions each agent holds open, which the person may end without revoking the token.
 */
export function adminAgentRoutes(services: Services, sessions: AgentSessions | undefined): Hono {
  const app = new Hono()
  app.post('/', async (c) => {
    const body = z.object({ name: z.string() }).safeParse(await c.req.json().catch(() => null))
    if (!body.success) return c.json({ error: 'INVALID_ARGUMENT', message: 'expected {"name": "..."}' }, 400)
    return c.json({ name: body.data.name, token: await services.agents.add(body.data.name, USER) })
  })
  app.get('/', (c) => c.json({ agents: agentList(services, sessions) }))
  app.post('/:name/revoke', async (c) => {
    await services.agents.revoke(c.req.param('name'), USER)
    return c.json({ agents: agentList(services, sessions) })
  })
  app.post('/:name/end-session', async (c) => {
    const body = z.object({ session: z.string().min(1).optional() }).strict().safeParse(await c.req.json().catch(() => null))
    if (!body.success) return c.json({ error: 'INVALID_ARGUMENT', message: 'expected {} or {"session": "mcp-…"}' }, 400)
    const ended: AgentSessionsEnded = { name: c.req.param('name'), ended: endAgentSessions(services, sessions, c.req.param('name'), body.data.session) }
    return c.json(ended)
  })
  return app
}

/** Every agent the person gave a token to, oldest first, with its open sessions, without the token hashes. */
export function agentList(services: Services, sessions: AgentSessions | undefined): AgentListing[] {
  return [...services.engine.views.agents.state.values()]
    .map(({ name, addedAt, revoked }) => ({ name, addedAt, revoked, sessions: sessions?.listFor(name) ?? [] }))
    .sort((a, b) => a.addedAt - b.addedAt || a.name.localeCompare(b.name))
}

/**
 * Ends agent `name`'s session `session`, or all of its sessions; answers those ended. An unknown agent, or a session
 * the agent does not hold open, is NOT_FOUND, named.
 */
export function endAgentSessions(services: Services, sessions: AgentSessions | undefined, name: string, session?: string): string[] {
  if (!services.engine.views.agents.state.has(name)) throw new QuireError('NOT_FOUND', `no agent named ${name}`)
  const ended = sessions?.endFor(name, session) ?? []
  if (session !== undefined && ended.length === 0) throw new QuireError('NOT_FOUND', `agent ${name} has no open MCP session ${session}`)
  return ended
}
