import { z } from 'zod'
import { defineEvent } from '../events/schema.js'

export const AGENTS_STREAM = 'agents'

/** Agent names become principals on events: short, printable, no spaces. */
export const agentName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'an agent name is 1–64 letters, digits, dots, dashes or underscores')

/**
 * An AI client was given its own token. Only the token's SHA-256 is logged: the token itself is printed once to the
 * person and never stored, so the log is no credential.
 */
export const AgentAdded = defineEvent({
  type: 'agent.added',
  version: 1,
  schema: z.object({ name: agentName, tokenSha256: z.string().regex(/^[0-9a-f]{64}$/) }),
})

export const AgentRevoked = defineEvent({
  type: 'agent.revoked',
  version: 1,
  schema: z.object({ name: agentName }),
})

export const agentEvents = [AgentAdded, AgentRevoked] as const
