import type { EventLog } from '../../core/log/eventLog.js'
import type { EventRegistry } from '../../core/events/schema.js'
import type { AdvisoryTurns } from '../postgres/advisoryTurns.js'
import type { PostgresEventLogOptions } from '../postgres/postgresEventLog.js'
import { asUnreachable } from '../postgres/unreachable.js'
import { checkStoreConnection } from './storeConnection.js'

/** PostgresEventLog's own default. */
const DEFAULT_SCHEMA = 'quire'

/** Where the log lives, as `--store` or QUIRE_STORE name it: a PostgreSQL connection string, optionally `?schema=`. */
export interface SharedStore {
  /** The connection string without Quire's own `schema` parameter, safe to show (no password). */
  readonly shown: string
  /** Connects once, or throws StoreConnectionError saying in one line what to check (storeConnection.ts). */
  readonly check: () => Promise<void>
  readonly open: (registry: EventRegistry, options?: SharedLogOptions) => Promise<EventLog>
  /** Each document's write turn held among the nodes (a connection of its own, opened on first use). */
  readonly turns: () => Promise<AdvisoryTurns>
}

/** What the embedded log's options mean on the shared one too: its clock, its retry window, and tests' write faults. */
export type SharedLogOptions = Pick<PostgresEventLogOptions, 'now' | 'interceptWrite' | 'writeRetryWindowMs' | 'closeTimeoutMs'>

/** Thrown for a `--store` that names no store Quire can use. */
export class StoreNameError extends Error {}

/**
 * Reads a `--store` value: `postgres://` or `postgresql://` URLs (libpq's form, as `psql` takes them; a unix socket
 * as `?host=/path`). The log's tables are in the `quire` schema unless `schema=` says otherwise, so several
 * clusters of nodes can share one database.
 */
export function sharedStore(value: string): SharedStore {
  const scheme = /^(postgres|postgresql):\/\//.exec(value)
  if (!scheme) {
    throw new StoreNameError(`--store takes a postgres:// URL (the embedded log needs none), not ${JSON.stringify(value)}`)
  }
  const query = value.indexOf('?')
  const params = new URLSearchParams(query === -1 ? '' : value.slice(query + 1))
  const schema = params.get('schema') ?? undefined
  params.delete('schema')
  const rest = params.toString()
  const connectionString = (query === -1 ? value : value.slice(0, query)) + (rest === '' ? '' : `?${rest}`)
  // user:password@ — the password never reaches a terminal or a log line.
  const shown = connectionString.replace(/^([a-z]+:\/\/[^:@/]*):[^@/]*@/, '$1:***@')
  return {
    shown: shown + (schema === undefined ? '' : ` (schema ${schema})`),
    check: () => checkStoreConnection(connectionString),
    // The PostgreSQL client is loaded only by a process that uses the store: every other command starts without it.
    open: async (registry, options = {}) => {
      const { PostgresEventLog } = await import('../postgres/postgresEventLog.js')
      return PostgresEventLog.open(connectionString, { ...options, registry, ...(schema === undefined ? {} : { schema }) }).catch((error: unknown) => {
        // Said as the store's error (the CLI prints its message), not as a stack trace from pg.
        throw asUnreachable('opening the log', error)
      })
    },
    turns: async () => new (await import('../postgres/advisoryTurns.js')).AdvisoryTurns(connectionString, schema ?? DEFAULT_SCHEMA),
  }
}
