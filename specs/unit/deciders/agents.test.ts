import { describe, it } from 'vitest'
import { decideAgents, type AgentCommand } from '../../../core/agents/decider.js'
import { evolveAgents, initialAgents } from '../../../core/agents/agentsState.js'
import { USER } from '../../../core/events/actor.js'
import { deciderSpec } from '../../support/decider.js'

const agents = deciderSpec<AgentCommand, ReturnType<typeof initialAgents>>('agents', decideAgents, evolveAgents, initialAgents)
const added = (name: string, tokenSha256 = 'a'.repeat(64)) => ({ type: 'agent.added', actor: USER, data: { name, tokenSha256 } })

describe('the agents decider', () => {
  it('given no agents, when the person adds claude, then claude is added with the token hash only', () => {
    agents.given([]).when({ type: 'add', name: 'claude', tokenSha256: 'b'.repeat(64), actor: USER }).then([added('claude', 'b'.repeat(64))])
  })

  it('given a live claude, when the person adds claude again, then it is refused (revoke it first)', () => {
    agents.given([added('claude')]).when({ type: 'add', name: 'claude', tokenSha256: 'c'.repeat(64), actor: USER }).thenRefuses('INVALID_ARGUMENT', /revoke it first/)
  })

  it('given a revoked claude, when the person adds claude, then a new claude is added', () => {
    agents
      .given([added('claude'), { type: 'agent.revoked', actor: USER, data: { name: 'claude' } }])
      .when({ type: 'add', name: 'claude', tokenSha256: 'c'.repeat(64), actor: USER })
      .then([added('claude', 'c'.repeat(64))])
  })

  it('given anything, when a name that is not an agent name is added, then it is refused', () => {
    agents.given([]).when({ type: 'add', name: 'has space', tokenSha256: 'c'.repeat(64), actor: USER }).thenRefuses('INVALID_ARGUMENT')
  })

  it('given a live claude, when it is revoked, then agent.revoked; given none, when revoked, then NOT_FOUND', () => {
    agents.given([added('claude')]).when({ type: 'revoke', name: 'claude', actor: USER }).then([{ type: 'agent.revoked', actor: USER, data: { name: 'claude' } }])
    agents.given([]).when({ type: 'revoke', name: 'claude', actor: USER }).thenRefuses('NOT_FOUND')
  })
})
