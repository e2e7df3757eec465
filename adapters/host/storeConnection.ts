import { EventStoreError } from '../../core/log/errors.js'
import { isUnreachable } from '../postgres/unreachable.js'

/** The store `--store` names refused this node, or cannot be reached: one line saying what to check. */
export class StoreConnectionError extends EventStoreError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('STORE_CONNECTION', message, options)
  }
}

/** Where a connection goes, as the PostgreSQL client read it from the connection string (and PG* variables). */
interface Target {
  readonly user: string
  readonly host: string
  readonly port: number
  readonly database: string
  readonly password: string | undefined
}

const CHECK = 'check the address in --store (or QUIRE_STORE)'

/**
 * Connects once, before anything is written in the data directory, so a wrong host, user, password or database
 * ends the command with one line naming what to check (never the password), and leaves the directory as it was.
 */
export async function checkStoreConnection(connectionString: string, timeoutMs = 10_000): Promise<void> {
  // Loaded only by a process that uses the store, as the log's own module is.
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: timeoutMs })
  const target: Target = {
    user: client.user ?? '',
    host: client.host,
    port: client.port,
    database: client.database ?? '',
    password: typeof client.password === 'string' ? client.password : undefined,
  }
  // A failed connection is also reported as an 'error' event on some paths; the rejection below says it all.
  client.on('error', () => undefined)
  try {
    await client.connect()
  } catch (error) {
    throw new StoreConnectionError(withoutPassword(explain(error, target), target.password), { cause: error })
  } finally {
    await client.end().catch(() => undefined)
  }
}

function explain(error: unknown, target: Target): string {
  const { user, host, port, database } = target
  const code = (error as { code?: unknown }).code
  const said = error instanceof Error ? error.message : String(error)
  const who = `user "${user}" on host ${host} (port ${port}), database "${database}"`
  // The driver's own words when the server asks for a password and the address has none.
  if (target.password === undefined && /password must be a string|password.*not.*provided/i.test(said)) return `PostgreSQL asks for the password of ${who}, and none is given: ${CHECK}: USER:PASSWORD@HOST`
  if (code === '28P01') return `PostgreSQL refused the password of ${who}: ${CHECK}: the user and its password`
  if (code === '28000') return `PostgreSQL did not let ${who} in (${said}): ${CHECK}: the user, and the server's pg_hba.conf`
  if (code === '3D000') return `PostgreSQL has no database "${database}" on host ${host} (port ${port}), for user "${user}": ${CHECK}: the database name, or create it`
  if (isUnreachable(error)) return `PostgreSQL on host ${host} (port ${port}) cannot be reached (${said}): ${CHECK}: the host and port, and that the server runs`
  return `PostgreSQL did not accept ${who} (${said}): ${CHECK}`
}

/**
 * The message on one line, with the password taken out should any part of it (a server's or a driver's words) repeat
 * it. Neither PostgreSQL nor pg ever does; a password of a few characters is left, or every word holding them would be.
 */
function withoutPassword(message: string, password: string | undefined): string {
  const oneLine = message.replace(/\s*\n\s*/g, ' ')
  return password !== undefined && password.length >= 4 ? oneLine.split(password).join('***') : oneLine
}
