import type { Actor } from '../events/actor.js'
import { QuireError } from '../errors.js'
import type { EventInput } from '../log/eventLog.js'
import type { AgentsState } from './agentsState.js'
import { agentName } from './events.js'

/** What the person asks of the agents stream. The token is made before deciding (deciding stays pure): only its hash is decided on. */
export type AgentCommand =
  | { readonly type: 'add'; readonly name: string; readonly tokenSha256: string; readonly actor: Actor }
  | { readonly type: 'revoke'; readonly name: string; readonly actor: Actor }

/** The agents stream's decide: a name is taken once while live; only a live agent can be revoked. */
export function decideAgents(command: AgentCommand, state: AgentsState): EventInput[] {
  const existing = state.get(command.name)
  switch (command.type) {
    case 'add': {
      const parsed = agentName.safeParse(command.name)
      if (!parsed.success) throw new QuireError('INVALID_ARGUMENT', parsed.error.issues[0]?.message ?? 'invalid agent name')
      if (existing && !existing.revoked) throw new QuireError('INVALID_ARGUMENT', `an agent named ${command.name} already exists; revoke it first`)
      return [{ type: 'agent.added', actor: command.actor, data: { name: command.name, tokenSha256: command.tokenSha256 } }]
    }
    case 'revoke':
      if (!existing || existing.revoked) throw new QuireError('NOT_FOUND', `no agent named ${command.name}`)
      return [{ type: 'agent.revoked', actor: command.actor, data: { name: command.name } }]
  }
}
