import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PostgresEventLog } from '../../adapters/postgres/postgresEventLog.js'
import { verify } from '../../core/audit/verify.js'
import { openEngine, type Engine } from '../../core/engine.js'
import { eventDefinitions } from '../../core/eventRegistry.js'
import { USER, type Actor } from '../../core/events/actor.js'
import { EventRegistry } from '../../core/events/schema.js'
import { EventStore } from '../../core/log/eventStore.js'
import { runCli } from '../support/cli.js'
import { usePostgresDatabase } from '../support/postgresServer.js'
import { useTempHomes } from '../support/tempHome.js'

/**
 * Issue 24, item 9 on the shared log: a PostgreSQL log a newer Quire wrote to is refused by this Quire's `serve`
 * and audit commands with one line naming the type and version, and not a row of it changes; the newer Quire then
 * reads all of it. `quire migrate` from a data directory a newer Quire wrote to is refused before it copies anything.
 */
const database = usePostgresDatabase()
const newHome = useTempHomes()
let admin: pg.Pool

beforeAll(() => {
  admin = new pg.Pool({ connectionString: database(), max: 2 })
})

afterAll(async () => {
  await admin?.end()
})

const AI: Actor = { kind: 'mcp', principal: 'claude', connection: 'c-1' }
const journalRecorded = eventDefinitions.find((definition) => definition.type === 'journal.recorded')!
const newerVersion = journalRecorded.version + 1
/** A newer Quire's registry: `journal.recorded` at the next version (its payload unchanged), every other type as here. */
const newerRegistry = (): EventRegistry =>
  new EventRegistry([
    ...eventDefinitions.filter((definition) => definition !== journalRecorded),
    { ...journalRecorded, version: newerVersion, upcasters: { ...journalRecorded.upcasters, [journalRecorded.version]: (data: unknown) => data } },
  ])
const refused = new RegExp(`^quire: [^\\n]*journal\\.recorded v${newerVersion}\\b[^\\n]*newer Quire[^\\n]*\\n$`)

const storeOf = (schema: string): string => `${database()}${database().includes('?') ? '&' : '?'}schema=${schema}`

/** Every row of every table of `schema`, as text, table by table. */
async function rowsOf(schema: string): Promise<Record<string, string[]>> {
  const { rows: tables } = await admin.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`, [schema])
  const state: Record<string, string[]> = {}
  for (const { name } of tables) {
    const { rows } = await admin.query<{ row: string }>(`SELECT t::text AS row FROM "${schema}"."${name}" AS t`)
    state[name] = rows.map(({ row }) => row).sort()
  }
  return state
}

/** A document written by this Quire and then by the newer one, on `open`'s log; returns its id. */
async function writtenByNewer(home: string, open: (registry: EventRegistry) => Promise<Engine>): Promise<string> {
  const engine = await open(new EventRegistry(eventDefinitions))
  let docId: string
  try {
    docId = (await engine.commands.documents.create({ kind: 'markdown', content: 'alpha\n', path: null, title: 'Notes', origin: 'untitled', actor: USER })).docId
    await engine.commands.documents.write({ docId, content: 'alpha\nbeta\n', actor: USER })
  } finally {
    await engine.close()
  }
  const newer = await open(newerRegistry())
  try {
    await newer.commands.documents.write({ docId, content: 'alpha\nbeta\ngamma\n', actor: AI })
  } finally {
    await newer.close()
  }
  return docId
}

describe('issue 24 item 9: a downgrade never damages the log (PostgreSQL)', () => {
  it('given a PostgreSQL log a newer Quire wrote to, when this Quire serves it or audits it (log, replay, verify), then each refuses with one line naming the type and version and no row changes; the newer Quire then reads every record and verifies', async () => {
    const schema = `downgrade_${randomBytes(4).toString('hex')}`
    const writer = await newHome()
    const openOn = (registry: EventRegistry) => openEngine(writer, { openLog: () => PostgresEventLog.open(database(), { registry, schema }) })
    const docId = await writtenByNewer(writer, openOn)
    const before = await rowsOf(schema)
    const env = { ...process.env, QUIRE_STORE: storeOf(schema) }
    for (const args of [['log'], ['replay', '--doc', docId], ['verify'], ['serve', '--port', '0']]) {
      const { code, stdout, stderr } = await runCli(['--home', await newHome(), ...args], { env, timeoutMs: 20_000 })
      expect({ command: args.join(' '), code, stdout, stderr }).toEqual({ command: args.join(' '), code: 1, stdout: '', stderr: expect.stringMatching(refused) })
    }
    expect(await rowsOf(schema)).toEqual(before)

    const newer = await openOn(newerRegistry())
    try {
      const report = await verify(newer)
      expect({ ok: report.ok, problems: report.integrity.problems, quarantined: report.integrity.quarantined }).toEqual({ ok: true, problems: [], quarantined: [] })
    } finally {
      await newer.close()
    }
  })

  it('given a data directory a newer Quire wrote to, when this Quire migrates it to PostgreSQL, then it refuses with the same line before anything is copied', async () => {
    const home = await newHome()
    await writtenByNewer(home, (registry) => openEngine(home, { openLog: () => EventStore.open(home, { registry }) }))
    const schema = `downgrade_${randomBytes(4).toString('hex')}`
    const migrated = await runCli(['migrate', '--from', home, '--to', database(), '--schema', schema])
    expect({ code: migrated.code, stderr: migrated.stderr }).toEqual({ code: 1, stderr: expect.stringMatching(refused) })
    const { rows } = await admin.query(`SELECT 1 FROM information_schema.schemata WHERE schema_name = $1`, [schema])
    expect(rows).toEqual([])
  })
})
