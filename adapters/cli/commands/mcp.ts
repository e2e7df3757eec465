import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { DataDirLockedError } from '../../../core/log/errors.js'
import { readPortFile } from '../../http/portFile.js'
import { findOwner, type OwnerClient } from '../owner.js'
import { bridge } from '../mcp/bridge.js'

/**
 * `quire mcp`: what an AI client launches over stdio. When a daemon owns the data directory it attaches to it (a
 * transport-level bridge between stdio and the daemon's Streamable HTTP); otherwise it runs the core embedded and
 * serves the same loopback HTTP endpoints itself, so the person's CLI and other clients still reach it.
 * `QUIRE_TOKEN` (from the client's MCP configuration) names the agent; without it the connection is anonymous. A
 * token that is not live (unknown, or revoked) gets the client's `initialize` answered with an error saying so, and
 * the process exits with status 1. A message over the setting `mcpMessageLimitBytes` is answered with an error
 * naming the limit; the connection goes on. Nothing but protocol goes to stdout.
 */
export async function mcpCommand(home: string, args: string[], log: (line: string) => void): Promise<number> {
  const { values } = parseArgs({ args, options: { workspace: { type: 'string', multiple: true } } })
  const agentToken = process.env.QUIRE_TOKEN || undefined
  const attach = async (owner: OwnerClient) => {
    for (const folder of values.workspace ?? []) await owner.request('POST', '/admin/workspaces', { path: resolve(folder) })
    const portFile = await readPortFile(home)
    return bridge(new URL('/mcp', owner.url), agentToken ?? portFile!.token, owner, log)
  }
  const owner = await findOwner(home)
  if (owner) return attach(owner)
  // Only the embedded core needs the host, the HTTP server and the MCP server: loaded here, not on attaching.
  const [{ openQuire }, { serveEmbedded }] = await Promise.all([import('../../host/quire.js'), import('../mcp/embedded.js')])
  let quire
  try {
    quire = await openQuire(home)
  } catch (error) {
    // Another `quire mcp` (an AI client starting two sessions at once) took the directory a moment ago and is still
    // starting its HTTP endpoint: attach to it once it answers.
    if (!(error instanceof DataDirLockedError)) throw error
    const late = await waitForOwner(home, 5_000)
    if (!late) throw error
    return attach(late)
  }
  return serveEmbedded(home, quire, { workspaces: values.workspace ?? [], agentToken }, log)
}

async function waitForOwner(home: string, ms: number): Promise<OwnerClient | undefined> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    const owner = await findOwner(home)
    if (owner) return owner
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return undefined
}
