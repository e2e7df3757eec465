import type { PresenceBusStatus } from './presenceBus.js'

/** The line `quire serve` prints when presence across nodes changes state, so the operator sees it say so. */
export function presenceStatusLine(status: PresenceBusStatus): string {
  const since = new Date(status.since).toISOString()
  switch (status.state) {
    case 'connected':
      return `presence: node ${status.node} shares presence and awareness with the other nodes through Redis (since ${since})`
    case 'connecting':
      return status.reason
        ? `presence: node ${status.node} is taking its id: ${status.reason}; until then presence is this node's only`
        : `presence: node ${status.node} is connecting to Redis; until then presence is this node's only`
    case 'clash':
      return `presence: node ${status.node} takes no requests: ${status.reason ?? 'another running process serves as this node'}`
    case 'degraded':
      return `presence: degraded since ${since}: ${status.reason ?? "Redis is unreachable; presence is this node's only"}; documents are unaffected, and it reconnects by itself`
    case 'closed':
      return `presence: node ${status.node} stopped sharing presence`
  }
}
