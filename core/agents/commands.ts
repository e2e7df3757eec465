import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Actor } from '../events/actor.js'
import type { EventLog } from '../log/eventLog.js'
import type { FoldedStream } from '../streams/foldedStream.js'
import { agentOfTokenHash, type Agent, type AgentsState } from './agentsState.js'
import { decideAgents } from './decider.js'

export const tokenSha256 = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex')

/** Agent tokens: each AI client gets its own, and the token's agent is the principal on its events. */
export class AgentCommands {
  constructor(
    private readonly store: EventLog,
    private readonly view: FoldedStream<AgentsState>,
  ) {}

  /** Issues a new token for `name` and returns it; only its hash is recorded. */
  async add(name: string, actor: Actor): Promise<string> {
    const token = `qa_${randomBytes(24).toString('base64url')}`
    await this.view.handle(this.store, (state) => decideAgents({ type: 'add', name, tokenSha256: tokenSha256(token), actor }, state))
    return token
  }

  async revoke(name: string, actor: Actor): Promise<void> {
    await this.view.handle(this.store, (state) => decideAgents({ type: 'revoke', name, actor }, state))
  }

  /** The live agent a presented token belongs to (compared by hash, in constant time), else undefined. */
  authenticate(token: string): Agent | undefined {
    const presented = Buffer.from(tokenSha256(token), 'hex')
    const agent = agentOfTokenHash(this.view.state, presented.toString('hex'))
    if (!agent) return undefined
    return timingSafeEqual(presented, Buffer.from(agent.tokenSha256, 'hex')) ? agent : undefined
  }
}
