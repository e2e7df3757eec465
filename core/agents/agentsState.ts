import type { RecordedEvent } from '../log/eventStore.js'

export interface Agent {
  readonly name: string
  readonly tokenSha256: string
  readonly addedAt: number
  readonly revoked: boolean
}

/** The AI clients the person gave tokens to, by name, folded from the `agents` stream. */
export type AgentsState = ReadonlyMap<string, Agent>

export const initialAgents = (): AgentsState => new Map()

export function evolveAgents(state: AgentsState, event: RecordedEvent): AgentsState {
  const data = event.data as { name: string; tokenSha256?: string }
  const next = new Map(state)
  if (event.type === 'agent.added') {
    next.set(data.name, { name: data.name, tokenSha256: data.tokenSha256!, addedAt: event.at, revoked: false })
  } else if (event.type === 'agent.revoked') {
    const agent = state.get(data.name)
    if (!agent) return state
    next.set(data.name, { ...agent, revoked: true })
  } else {
    return state
  }
  return next
}

/** The agent a token belongs to, if it is a live token. */
export function agentOfTokenHash(state: AgentsState, tokenSha256: string): Agent | undefined {
  for (const agent of state.values()) if (!agent.revoked && agent.tokenSha256 === tokenSha256) return agent
  return undefined
}
