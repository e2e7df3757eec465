import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { USER } from '../../core/events/actor.js'
import { decodeChunk, encodeChunk } from '../../core/log/record.js'
import { runCli } from '../support/cli.js'
import { usePostgresAdmin, usePostgresDatabase } from '../support/postgresServer.js'
import { useTempHomes } from '../support/tempHome.js'

/**
 * Tamper evidence (issue 29 item 4) on the PostgreSQL log: a log migrated from LevelDB carries the chain, and rows
 * changed, deleted, swapped or inserted by SQL behind the nodes' backs make `quire verify` (a node on that log) fail
 * naming the first position that no longer links.
 */
const database = usePostgresDatabase()
const newHome = useTempHomes()
const { admin: adminPool, storeOf } = usePostgresAdmin(database)


/** A PostgreSQL log of a document written a few times, migrated from a data directory; its schema's name. */
async function migratedLog(): Promise<{ schema: string; head: number }> {
  const home = await newHome()
  const engine = await openEmbeddedEngine(home)
  let head: number
  try {
    const { docId } = await engine.commands.documents.create({ kind: 'markdown', content: 'start\n', path: null, title: 't', origin: 'untitled', actor: USER })
    for (const content of ['alpha\n', 'alpha\nbeta\n', 'gamma\n']) await engine.commands.documents.write({ docId, content, actor: USER })
    head = engine.store.headPosition
  } finally {
    await engine.close()
  }
  const schema = `tamper_${randomBytes(4).toString('hex')}`
  const migrated = await runCli(['migrate', '--from', home, '--to', database(), '--schema', schema])
  expect(migrated.code, migrated.stdout + migrated.stderr).toBe(0)
  expect(migrated.stdout).toContain(`chain carried: every record links as in the source, head ${head}:`)
  return { schema, head }
}

async function verifyOn(schema: string, ...args: string[]) {
  return runCli(['--home', await newHome(), 'verify', ...args], { env: { ...process.env, QUIRE_STORE: storeOf(schema) }, timeoutMs: 30_000 })
}

const rowAt = async (schema: string, position: number): Promise<{ record: Buffer; link: Buffer }> =>
  (await adminPool().query<{ record: Buffer; link: Buffer }>(`SELECT record, link FROM "${schema}".events WHERE position = $1`, [position])).rows[0]!

describe('the hash chain on the PostgreSQL log (issue 29 item 4)', () => {
  it('an untouched migrated log passes, with the head migrate printed', async () => {
    const { schema, head } = await migratedLog()
    const result = await verifyOn(schema, '--checkpoint')
    expect(result.code, result.stdout + result.stderr).toBe(0)
    expect(result.stdout).toContain(`chain: every record up to position ${head} links to the one before it`)
  })

  it('a record changed by an SQL UPDATE (re-encoded, valid checksum) fails verify naming its position; so do a deleted row and two swapped records', async () => {
    const changed = await migratedLog()
    const { record } = await rowAt(changed.schema, 3)
    const [entry] = decodeChunk(record)
    if (!entry || !('event' in entry)) throw new Error('the migrated record does not decode')
    const forged = Buffer.from(encodeChunk([{ ...entry.event, at: entry.event.at - 3_600_000 }]))
    await adminPool().query(`UPDATE "${changed.schema}".events SET record = $1 WHERE position = 3`, [forged])
    const afterUpdate = await verifyOn(changed.schema)
    expect(afterUpdate.code).toBe(1)
    expect(afterUpdate.stdout).toContain('chain BROKEN at position 3: the record at position 3 is not the one the chain holds')

    const deleted = await migratedLog()
    await adminPool().query(`DELETE FROM "${deleted.schema}".events WHERE position = 4`)
    const afterDelete = await verifyOn(deleted.schema)
    expect(afterDelete.code).toBe(1)
    expect(afterDelete.stdout).toContain('chain BROKEN at position 4: position 4 is missing: removed')

    const swapped = await migratedLog()
    const [two, five] = [await rowAt(swapped.schema, 2), await rowAt(swapped.schema, 5)]
    await adminPool().query(`UPDATE "${swapped.schema}".events SET record = $1, link = $2 WHERE position = 2`, [five.record, five.link])
    await adminPool().query(`UPDATE "${swapped.schema}".events SET record = $1, link = $2 WHERE position = 5`, [two.record, two.link])
    const afterSwap = await verifyOn(swapped.schema)
    expect(afterSwap.code).toBe(1)
    expect(afterSwap.stdout).toContain('chain BROKEN at position 2: the record at position 2 is not the one the chain holds')
  })

  it('a log kept before the chain (schema version 2) is chained by its migration, and verify says from when the chain proves it', async () => {
    const { schema, head } = await migratedLog()
    await adminPool().query(`ALTER TABLE "${schema}".events DROP COLUMN link`)
    await adminPool().query(`DROP TABLE "${schema}".chained_late`)
    await adminPool().query(`DELETE FROM "${schema}".schema_version WHERE version = 3`)
    const result = await verifyOn(schema)
    expect(result.code, result.stdout + result.stderr).toBe(0)
    expect(result.stdout).toContain(`chain: every record up to position ${head} links to the one before it`)
    expect(result.stdout).toMatch(new RegExp(`chain: positions 1–${head} were chained on \\d{4}-.*proven unchanged since then, not before`))
  })

  it('a row inserted without a link, and --against a checkpoint taken before a change', async () => {
    const { schema, head } = await migratedLog()
    const kept = /checkpoint: (\d+:[0-9a-f]{64})/.exec((await verifyOn(schema, '--checkpoint')).stdout)![1]!
    // Every row moves one position on and a forged one takes position 2.
    await adminPool().query(`UPDATE "${schema}".events SET position = position + 1000 WHERE position >= 2`)
    await adminPool().query(`UPDATE "${schema}".events SET position = position - 999 WHERE position >= 1002`)
    const { record, stream } = (await adminPool().query<{ record: Buffer; stream: string }>(`SELECT record, stream FROM "${schema}".events WHERE position = 3`)).rows[0]!
    await adminPool().query(`INSERT INTO "${schema}".events (position, stream, stream_version, type, record) VALUES (2, $1, 999, 'forged', $2)`, [stream, record])
    await adminPool().query(`UPDATE "${schema}".log_head SET position = $1`, [head + 1])
    const result = await verifyOn(schema, '--against', kept)
    expect(result.code).toBe(1)
    expect(result.stdout).toContain('chain BROKEN at position 2: the record at position 2 has no link of the chain')
    expect(result.stdout).toMatch(new RegExp(`against ${kept}: FAILS: the chain breaks at position 2, before the checkpoint's position ${head}`))
  })
})
