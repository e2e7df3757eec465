import type { AgentCommands } from '../../core/agents/commands.js'
import { sameSecret } from '../auth/credentials.js'
import type { Access } from './connection.js'
import { CLOSE } from './limits.js'

export type AccessDecision =
  | { readonly granted: true; readonly access: Access }
  | { readonly granted: false; readonly code: number; readonly reason: string }

export interface AccessRequest {
  /** `?token=` (browsers cannot set headers on a WebSocket) or a bearer token. */
  readonly token: string | undefined
  /** `?name=`: what the connection calls itself, for its label. */
  readonly name: string | undefined
  /** `?readonly=1`: the peer asks to only read. */
  readonly readOnly: string | undefined
}

/**
 * Who may connect, and how: the port file's token is the person (read-write); an agent token is a read-only peer,
 * because an assistant changes documents through MCP's journal, never around it; `readonly=1` makes any connection
 * read-only. The label names the connection in the log and in presence: the sanitized `name` (else `console`) for
 * the person, `agent.<agent>` (then `.<name>`) for an agent, numbered so two connections never share one.
 */
export function decideAccess(request: AccessRequest, accessToken: string, agents: AgentCommands, serial: () => number): AccessDecision {
  const token = request.token
  if (!token) return { granted: false, code: CLOSE.unauthorized, reason: 'a token is required (?token=)' }
  let base: string
  let readOnly = isTrue(request.readOnly)
  let agent: Access['agent']
  if (sameSecret(token, accessToken)) {
    base = 'console'
  } else {
    const authenticated = agents.authenticate(token)
    if (!authenticated) return { granted: false, code: CLOSE.unauthorized, reason: 'unknown or revoked token' }
    base = `agent.${sanitize(authenticated.name) || 'unnamed'}`
    readOnly = true
    agent = { name: authenticated.name, tokenSha256: authenticated.tokenSha256 }
  }
  const named = request.name === undefined ? '' : sanitize(request.name)
  // An agent's label always starts with its own name: it can qualify the label, never claim another (`console-3`).
  const label = agent ? `${base}${named ? `.${named}` : ''}` : named || base
  return { granted: true, access: { label: `${label}-${serial()}`, readOnly, ...(agent ? { agent } : {}) } }
}

/** A query flag that is on: `1`, `true` or `yes`. */
export const isTrue = (value: string | undefined): boolean => value !== undefined && /^(1|true|yes)$/i.test(value)

/** Letters, digits, `.`, `_` and `-`, at most 32 of them: safe in logs and in `peer:<label>`. */
function sanitize(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 32)
}
