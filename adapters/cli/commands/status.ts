import { findOwner, type OwnerClient } from '../owner.js'
import { UsageError } from '../usage.js'

/** What the owner's `GET /admin/status` answers (adapters/http/adminRoute.ts). */
interface OwnerStatus {
  readonly home: string
  readonly head: number
  readonly pid: number
  readonly version: string
  readonly quarantined?: number
}

/**
 * `quire status` (also `quire` alone): where the data directory is, which process owns it (its pid, address and a
 * console link) or plainly that none does, and what the log holds.
 */
export async function statusCommand(home: string, args: string[], out: (line: string) => void): Promise<number> {
  if (args.length > 0) throw new UsageError('status takes no arguments')
  const owner = await findOwner(home)
  if (owner) {
    const status = await owner.request<OwnerStatus>('GET', '/admin/status')
    out(`data directory: ${status.home}`)
    out(`owner: process ${status.pid} (quire ${status.version}) at ${owner.url}; MCP at ${owner.url}/mcp`)
    out(`console: ${await consoleLink(owner)}`)
    out(`log: head position ${status.head}`)
    if ((status.quarantined ?? 0) > 0) out(`quarantined records: ${status.quarantined} (run quire verify)`)
    out('run `quire help` for the commands')
    return 0
  }
  // No process answers for the directory: open it here (a process holding it without serving is refused, named).
  const { openEngineHome } = await import('../../host/engineHome.js')
  const engine = await openEngineHome(home)
  try {
    const documents = await engine.documents.ids()
    out(`data directory: ${engine.home}`)
    out('owner: none; no Quire process runs on this directory (start the daemon with `quire serve`)')
    out(`log: head position ${engine.store.headPosition}, ${documents.length} document${documents.length === 1 ? '' : 's'}`)
    const quarantined = engine.store.quarantinedRecords().length
    if (quarantined > 0) out(`quarantined records: ${quarantined} (run quire verify)`)
    out('run `quire help` for the commands')
  } finally {
    await engine.close()
  }
  return 0
}

/** A sign-in link for the console, as the owner makes it (a one-time code; the access token is never printed). */
async function consoleLink(owner: OwnerClient): Promise<string> {
  const { link } = await owner.request<{ link: string }>('POST', '/admin/console-link')
  return link
}
