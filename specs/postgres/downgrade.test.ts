import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { PostgresEventLog } from '../../adapters/postgres/postgresEventLog.js'
import { verify } from '../../core/audit/verify.js'
import { openEngine } from '../../core/engine.js'
import type { EventRegistry } from '../../core/events/schema.js'
import { EventStore } from '../../adapters/leveldb/eventStore.js'
import { runCli } from '../support/cli.js'
import { usePostgresAdmin, usePostgresDatabase } from '../support/postgresServer.js'
import { newerRegistry, REFUSED_AS_TOO_NEW, rowsOf, writtenByNewer } from '../support/storedLog.js'
import { useTempHomes } from '../support/tempHome.js'

/**
 * Issue 24, item 9 on the shared log: a PostgreSQL log a newer Quire wrote to is refused by this Quire's `serve`
 * and audit commands with one line naming the type and version, and not a row of it changes; the newer Quire then
 * reads all of it. `quire migrate` from a data directory a newer Quire wrote to is refused before it copies anything.
 */
const database = usePostgresDatabase()
const newHome = useTempHomes()
const { admin: adminPool, storeOf } = usePostgresAdmin(database)


describe('issue 24 item 9: a downgrade never damages the log (PostgreSQL)', () => {
  it('given a PostgreSQL log a newer Quire wrote to, when this Quire serves it or audits it (log, replay, verify), then each refuses with one line naming the type and version and no row changes; the newer Quire then reads every record and verifies', async () => {
    const schema = `downgrade_${randomBytes(4).toString('hex')}`
    const writer = await newHome()
    const openOn = (registry: EventRegistry) => openEngine(writer, { openLog: () => PostgresEventLog.open(database(), { registry, schema }) })
    const docId = await writtenByNewer(openOn)
    const before = await rowsOf(adminPool(), schema)
    const env = { ...process.env, QUIRE_STORE: storeOf(schema) }
    for (const args of [['log'], ['replay', '--doc', docId], ['verify'], ['serve', '--port', '0']]) {
      const { code, stdout, stderr } = await runCli(['--home', await newHome(), ...args], { env, timeoutMs: 20_000 })
      expect({ command: args.join(' '), code, stdout, stderr }).toEqual({ command: args.join(' '), code: 1, stdout: '', stderr: expect.stringMatching(REFUSED_AS_TOO_NEW) })
    }
    expect(await rowsOf(adminPool(), schema)).toEqual(before)

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
    await writtenByNewer((registry) => openEngine(home, { openLog: () => EventStore.open(home, { registry }) }))
    const schema = `downgrade_${randomBytes(4).toString('hex')}`
    const migrated = await runCli(['migrate', '--from', home, '--to', database(), '--schema', schema])
    expect({ code: migrated.code, stderr: migrated.stderr }).toEqual({ code: 1, stderr: expect.stringMatching(REFUSED_AS_TOO_NEW) })
    const { rows } = await adminPool().query(`SELECT 1 FROM information_schema.schemata WHERE schema_name = $1`, [schema])
    expect(rows).toEqual([])
  })
})
