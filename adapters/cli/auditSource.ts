import type { AuditEvent, AuditQuery } from '../../projections/audit/auditEvent.js'
import type { VerifyReport } from '../../core/audit/verify.js'
import { findOwner } from './owner.js'

const LOG_PAGE = 10_000

/** Where `log`, `replay` and `verify` read from: the data directory itself, or the process that owns it. */
export interface AuditSource {
  events(query: AuditQuery): AsyncIterable<AuditEvent>
  replay(pathOrId: string, at?: string): Promise<string>
  verify(): Promise<VerifyReport>
  close(): Promise<void>
}

/**
 * The running daemon's audit (over `/admin`) when one owns `home`, so auditing never needs it stopped; otherwise
 * the directory opened here.
 */
export async function openAuditSource(home: string): Promise<AuditSource> {
  const owner = await findOwner(home)
  if (owner) {
    return {
      async *events(query) {
        // Page through the owner's log, so a long one never has to fit one answer.
        let since = query.since ?? 0
        let left = query.limit ?? Number.POSITIVE_INFINITY
        while (left > 0) {
          const params = new URLSearchParams({ since: String(since), limit: String(Math.min(LOG_PAGE, left)) })
          if (query.stream !== undefined) params.set('stream', query.stream)
          const { events } = await owner.request<{ events: AuditEvent[] }>('GET', `/admin/log?${params}`)
          yield* events
          if (events.length < Math.min(LOG_PAGE, left)) return
          since = events[events.length - 1]!.position
          left -= events.length
        }
      },
      async replay(pathOrId, at) {
        const params = new URLSearchParams({ doc: pathOrId, cwd: process.cwd() })
        if (at !== undefined) params.set('at', at)
        return (await owner.request<{ content: string }>('GET', `/admin/replay?${params}`)).content
      },
      verify: () => owner.request<VerifyReport>('GET', '/admin/verify'),
      async close() {},
    }
  }
  return (await import('./localAuditSource.js')).openLocalAuditSource(home)
}
