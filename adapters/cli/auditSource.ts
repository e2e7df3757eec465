import { findOwner } from './owner.js'

/** Where `replay` reads from: the data directory itself, or the process that owns it. */
export interface AuditSource {
  replay(pathOrId: string, at?: string): Promise<string>
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
      async replay(pathOrId, at) {
        const params = new URLSearchParams({ doc: pathOrId, cwd: process.cwd() })
        if (at !== undefined) params.set('at', at)
        return (await owner.request<{ content: string }>('GET', `/admin/replay?${params}`)).content
      },
      async close() {},
    }
  }
  return (await import('./localAuditSource.js')).openLocalAuditSource(home)
}
