import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Actor } from '../events/actor.js'
import { QuireError } from '../errors.js'
import type { EventStore } from '../log/eventStore.js'
import type { FoldedStream } from '../streams/foldedStream.js'
import { agentOfTokenHash, type Agent, type AgentsState } from './agentsState.js'
import { appendToView } from '../streams/append.js'
import { agentName } from './events.js'

export const tokenSha256 = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex')

/** Agent tokens: each AI client gets its own, and the token's agent is the principal on its events. */
export class AgentCommands {
  constructor(
    private readonly store: EventStore,
    private readonly view: FoldedStream<AgentsState>,
  ) {}

  /** Issues a new token for `name` and returns it; only its hash is recorded. */
  async add(name: string, actor: Actor): Promise<string> {
    const parsed = agentName.safeParse(name)
    if (!parsed.success) throw new QuireError('INVALID_ARGUMENT', parsed.error.issues[0]?.message ?? 'invalid agent name')
    const existing = this.view.state.get(name)
    if (existing && !existing.revoked) throw new QuireError('INVALID_ARGUMENT', `an agent named ${name} already exists; revoke it first`)
    const token = `qa_${randomBytes(24).toString('base64url')}`
    await appendToView(this.store, this.view, [{ type: 'agent.added', actor, data: { name, tokenSha256: tokenSha256(token) } }])
    return token
  }

  async revoke(name: string, actor: Actor): Promise<void> {
    const existing = this.view.state.get(name)
    if (!existing || existing.revoked) throw new QuireError('NOT_FOUND', `no agent named ${name}`)
    await appendToView(this.store, this.view, [{ type: 'agent.revoked', actor, data: { name } }])
  }

  /** The live agent a presented token belongs to (compared by hash, in constant time), else undefined. */
  authenticate(token: string): Agent | undefined {
    const presented = Buffer.from(tokenSha256(token), 'hex')
    const agent = agentOfTokenHash(this.view.state, presented.toString('hex'))
    if (!agent) return undefined
    return timingSafeEqual(presented, Buffer.from(agent.tokenSha256, 'hex')) ? agent : undefined
  }
}
