import { hostname } from 'node:os'
import { dirname, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { USER } from '../../../core/events/actor.js'
import { openWorkspaceAsPerson } from '../../../core/workspace/commands.js'
import { startHttpServer } from '../../http/daemon.js'
import { removeStaleTempsIn } from '../../fs/staleTemps.js'
import { openQuire } from '../../host/quire.js'
import { sharedStore, StoreNameError, type SharedStore } from '../../host/sharedStore.js'
import type { PresenceBus } from '../../redis/presenceBus.js'

const LISTEN_ADDRESSES = new Set(['127.0.0.1', '::1', '0.0.0.0', '::'])
import { listenForServe } from '../previousPort.js'
import { RefusedError } from '../refusedError.js'
import { UsageError } from '../usage.js'

/**
 * How long start-up waits to know whether its node id is free: another process's claim on it runs out within its
 * time to live (15 s) when that process is gone. Past this, the node serves, and a clash found later stops it.
 */
const ID_CLAIM_WAIT_MS = 30_000

/** `quire serve`: the daemon. Owns the data directory and serves MCP over HTTP on 127.0.0.1 until stopped. */
export async function serveCommand(home: string, args: string[], out: (line: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      workspace: { type: 'string', multiple: true },
      store: { type: 'string' },
      redis: { type: 'string' },
      host: { type: 'string' },
      'allow-host': { type: 'string', multiple: true },
    },
  })
  const host = values.host ?? '127.0.0.1'
  // The port file sends the person's CLI to 127.0.0.1: a node listens there, or on every address.
  if (!LISTEN_ADDRESSES.has(host)) throw new UsageError(`--host takes ${[...LISTEN_ADDRESSES].join(', ')} (loopback, or every address), not ${values.host}`)
  const port = values.port === undefined ? undefined : Number(values.port)
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535)) throw new UsageError(`--port takes a port number, not ${values.port}`)
  const storeName = values.store ?? (env.QUIRE_STORE || undefined)
  let store: SharedStore | undefined
  try {
    store = storeName === undefined ? undefined : sharedStore(storeName)
  } catch (error) {
    if (error instanceof StoreNameError) throw new UsageError(error.message)
    throw error
  }
  const redis = values.redis ?? (env.QUIRE_REDIS || undefined)
  if (redis !== undefined && !store) throw new UsageError('--redis shares presence among nodes: it needs --store (a log the nodes share)')
  // Among nodes, each needs a name: for its collaboration labels and its presence (QUIRE_NODE_ID, else host and pid).
  const node = store ? env.QUIRE_NODE_ID || `${hostname()}-${process.pid}` : undefined
  if (node !== undefined && !/^[A-Za-z0-9._-]{1,64}$/.test(node)) throw new UsageError(`QUIRE_NODE_ID takes 1 to 64 of A-Z a-z 0-9 . _ -, not ${JSON.stringify(node)}`)
  const quire = await openQuire(home, store ? { store: storeName } : {})
  let presenceBus: PresenceBus | undefined
  try {
    if (redis !== undefined) {
      // Redis's client is loaded only by a node that shares presence.
      const [{ PresenceBus }, { presenceStatusLine }] = await Promise.all([import('../../redis/presenceBus.js'), import('../../redis/presenceStatusLine.js')])
      try {
        presenceBus = new PresenceBus({ redis, presence: quire.services.presence, ...(node !== undefined ? { nodeId: node } : {}) })
      } catch (error) {
        throw new UsageError(`--redis: ${(error as Error).message}`)
      }
      let said: string | undefined
      let starting = true
      presenceBus.onStatus((status) => {
        // Said once per change of state (the reason's wording may change while it stays degraded, or while it waits
        // for another process's claim on the id); a clash at start-up is the error below.
        const state = status.state === 'connecting' && status.reason ? 'waiting' : status.state
        if (state === said || (starting && state === 'clash')) return
        said = state
        out(presenceStatusLine(status))
      })
      // Never under an id another running node uses: each would drop the other's editors as its own echoes.
      const settled = await presenceBus.settled(ID_CLAIM_WAIT_MS)
      starting = false
      if (settled.state === 'clash') {
        throw new RefusedError(
          `node id ${JSON.stringify(presenceBus.node)} is in use by another running node (found through Redis at ${presenceBus.redis}): give every node its own QUIRE_NODE_ID, or leave it unset for a unique one`,
        )
      }
    }
    for (const folder of values.workspace ?? []) {
      await openWorkspaceAsPerson(quire.services.engine.store, quire.services.engine.views.workspace, resolve(folder), USER)
    }
    // Saves killed with the previous run left their temps beside the documents' files: remove them before serving.
    const { state } = quire.services.engine.views.workspace
    const paths = [...state.documentsByPath.keys(), ...[...state.tabs.values()].flatMap((tab) => (tab.path === null ? [] : [tab.path]))]
    await removeStaleTempsIn(paths.map((path) => dirname(path)))
    const http = await listenForServe(home, port, (chosen) =>
      startHttpServer(quire.services, { port: chosen, host, allowedHosts: values['allow-host'] ?? [], ...(presenceBus ? { presenceBus } : {}), ...(node !== undefined ? { node } : {}) }),
    )
    out(`quire serving ${home} on ${http.url} (MCP at ${http.url}/mcp); the port file holds the access token`)
    if (store) out(`log: ${store.shown}, shared with every node serving from it`)
    // A one-time link: the token itself is never printed (it would stay in scrollback and service logs).
    out(`console: ${http.consoleLink}`)
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve)
      process.once('SIGTERM', resolve)
    })
    // The rooms relay their peers' goodbyes before the bus says its own.
    await http.close()
  } finally {
    await presenceBus?.close()
    await quire.close()
  }
  return 0
}
