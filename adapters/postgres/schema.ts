import type pg from 'pg'
import { addEventVersion } from '../../core/log/eventVersions.js'
import { decodeChunk } from '../../core/log/record.js'
import { chunkLinks, GENESIS } from '../../core/log/hashChain.js'

/**
 * The log's tables in one PostgreSQL schema, and the migrations that create them. `migrate` runs on every open: it
 * applies the migrations the schema does not have yet, each recorded in `schema_version`, all in one transaction
 * under a transaction-level advisory lock, so nodes opening at once apply each migration exactly once (the others
 * wait, then find nothing to do), and a failed migration leaves nothing half done.
 *
 *   events(position, stream, stream_version, type, record)   the log: `position` is the global order (primary key,
 *                                                             gap-free), UNIQUE (stream, stream_version) backs the
 *                                                             expected-version check, `record` is the event in the
 *                                                             LevelDB store's record encoding (core/log/record.ts:
 *                                                             self-checking, so damage shows as a checksum mismatch)
 *   streams(stream, version, position)                       each stream's head, written with its events
 *   log_head(position)                                       one row: the last position written (the writers' guard)
 *   snapshots(projection, key, position, payload)            projection snapshots (derived data)
 *   quarantine(position, reason, bytes)                      records whose bytes are damaged (a report, not the log)
 *   events.link                                              the record's link of the hash chain (hashChain.ts)
 *   chained_late(from_position, to_position, at)             ranges chained when found unchained (an upgraded log)
 *   event_versions(type, version)                            the newest schema version of each event type the log
 *                                                             holds (core/log/eventVersions.ts), grown in the
 *                                                             statement that writes the first event holding it
 */
export const SCHEMA_VERSION = 3

interface Migration {
  readonly version: number
  readonly statements: (schema: string) => readonly string[]
  /** Run after the statements, in the same transaction: to fill what they created from what the log holds. */
  readonly fill?: (client: pg.ClientBase, schema: string) => Promise<void>
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    statements: (s) => [
      `CREATE TABLE ${s}.events (
        position bigint PRIMARY KEY CHECK (position > 0),
        stream text NOT NULL,
        stream_version bigint NOT NULL CHECK (stream_version > 0),
        type text NOT NULL,
        record bytea NOT NULL,
        UNIQUE (stream, stream_version)
      )`,
      `CREATE TABLE ${s}.streams (
        stream text PRIMARY KEY,
        version bigint NOT NULL,
        position bigint NOT NULL
      )`,
      `CREATE TABLE ${s}.log_head (
        only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
        position bigint NOT NULL
      )`,
      `INSERT INTO ${s}.log_head (position) VALUES (0)`,
      `CREATE TABLE ${s}.snapshots (
        projection text NOT NULL,
        key text NOT NULL,
        position bigint NOT NULL,
        payload bytea NOT NULL,
        PRIMARY KEY (projection, key)
      )`,
      `CREATE TABLE ${s}.quarantine (
        position bigint PRIMARY KEY,
        reason text NOT NULL,
        bytes integer NOT NULL
      )`,
    ],
  },
  {
    version: 2,
    statements: (s) => [
      `CREATE TABLE ${s}.event_versions (
        type text PRIMARY KEY,
        version integer NOT NULL CHECK (version > 0)
      )`,
    ],
    fill: fillEventVersions,
  },
  {
    version: 3,
    statements: (s) => [
      `ALTER TABLE ${s}.events ADD COLUMN link bytea`,
      `CREATE TABLE ${s}.chained_late (
        from_position bigint PRIMARY KEY,
        to_position bigint NOT NULL,
        at bigint NOT NULL
      )`,
    ],
    fill: fillChain,
  },
]

/**
 * Chains the rows of a log kept before the chain (core/log/hashChain.ts), in position order, and notes the range:
 * verify then says the chain proves those records unchanged since now, not before. Stops at a row whose framing is
 * damaged (verify reports the break there).
 */
async function fillChain(client: pg.ClientBase, s: string): Promise<void> {
  let previous = GENESIS
  let last = 0
  for (let after = 0; ; ) {
    const { rows } = await client.query<{ position: string; record: Buffer }>(`SELECT position, record FROM ${s}.events WHERE position > $1 ORDER BY position LIMIT 1000`, [after])
    const positions: number[] = []
    const links: Buffer[] = []
    let damaged = false
    for (const { position, record } of rows) {
      try {
        previous = chunkLinks(previous, Number(position), record)
      } catch {
        damaged = true
        break
      }
      positions.push(Number(position))
      links.push(Buffer.from(previous))
    }
    if (positions.length > 0) {
      await client.query(`UPDATE ${s}.events e SET link = d.link FROM unnest($1::bigint[], $2::bytea[]) AS d(position, link) WHERE e.position = d.position`, [positions, links])
      last = positions[positions.length - 1]!
    }
    if (damaged || rows.length < 1000) break
    after = Number(rows[rows.length - 1]!.position)
  }
  if (last > 0) await client.query(`INSERT INTO ${s}.chained_late (from_position, to_position, at) VALUES (1, $1, $2)`, [last, Date.now()])
}

/**
 * Fills `event_versions` of a log kept before the table, reading every record once (nodes of that Quire that still
 * append meanwhile write only what this one reads). Damaged records are left out: what they hold cannot be known.
 */
async function fillEventVersions(client: pg.ClientBase, s: string): Promise<void> {
  const versions = new Map<string, number>()
  for (let after = 0; ; ) {
    const { rows } = await client.query<{ position: string; record: Buffer }>(`SELECT position, record FROM ${s}.events WHERE position > $1 ORDER BY position LIMIT 1000`, [after])
    for (const { record } of rows) {
      try {
        for (const entry of decodeChunk(record)) if ('event' in entry) addEventVersion(versions, entry.event.type, entry.event.v)
      } catch {
        // Damaged framing: left out.
      }
    }
    if (rows.length < 1000) break
    after = Number(rows[rows.length - 1]!.position)
  }
  await client.query(`INSERT INTO ${s}.event_versions (type, version) SELECT * FROM unnest($1::text[], $2::integer[])`, [[...versions.keys()], [...versions.values()]])
}

/** Schema names Quire accepts: plain lower-case identifiers, short enough to prefix a notification channel. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,47}$/

export class SchemaNameError extends Error {
  override name = 'SchemaNameError'
}

export class SchemaTooNewError extends Error {
  override name = 'SchemaTooNewError'
}

/** `name` as a quoted identifier, after checking it is one Quire accepts. */
export function quotedSchema(name: string): string {
  if (!SCHEMA_NAME.test(name)) {
    throw new SchemaNameError(`invalid PostgreSQL schema name ${JSON.stringify(name)}: use lower-case letters, digits and _ (at most 48), not starting with a digit`)
  }
  return `"${name}"`
}

/** Brings `schema` to SCHEMA_VERSION, creating it if needed; refuses one migrated by a newer Quire. */
export async function migrate(client: pg.ClientBase, schema: string): Promise<void> {
  const s = quotedSchema(schema)
  await client.query('BEGIN')
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`quire.migrate:${schema}`])
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`)
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.schema_version (
      version integer PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`)
    const { rows } = await client.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${s}.schema_version`)
    const current = rows[0]?.version ?? 0
    if (current > SCHEMA_VERSION) {
      throw new SchemaTooNewError(`the log in PostgreSQL schema ${schema} has schema version ${current}, newer than this Quire knows (${SCHEMA_VERSION}): upgrade Quire`)
    }
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue
      for (const statement of migration.statements(s)) await client.query(statement)
      await migration.fill?.(client, s)
      await client.query(`INSERT INTO ${s}.schema_version (version) VALUES ($1)`, [migration.version])
    }
    await client.query('COMMIT')
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  }
}
