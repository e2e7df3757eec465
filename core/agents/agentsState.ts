import { dataOf } from '../events/schema.js'
import type { RecordedEvent } from '../log/eventLog.js'
import { AgentAdded, AgentRevoked } from './events.js'

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
  const next = new Map(state)
  if (event.type === AgentAdded.type) {
    const { name, tokenSha256 } = dataOf(event, AgentAdded)
    next.set(name, { name, tokenSha256, addedAt: event.at, revoked: false })
  } else if (event.type === AgentRevoked.type) {
    const { name } = dataOf(event, AgentRevoked)
    const agent = state.get(name)
    if (!agent) return state
    next.set(name, { ...agent, revoked: true })
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
