import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll } from 'vitest'
import { PostgresEventLog } from '../../adapters/postgres/postgresEventLog.js'
import { usePostgresDatabase } from '../support/postgresServer.js'
import { rowsOf } from '../support/storedLog.js'
import { describeEventLogContract, type LogSetup, type LogSubject } from './eventLog.contract.js'

/**
 * The PostgreSQL log, each subject in a fresh schema of a database made for this file, on QUIRE_TEST_POSTGRES or a
 * throwaway cluster (specs/support/postgresServer.ts). Damage is an UPDATE flipping the last byte of the stored
 * record, which lies inside its event data, so it shows only in the record's checksum.
 */
const database = usePostgresDatabase()
let admin: pg.Pool

beforeAll(() => {
  admin = new pg.Pool({ connectionString: database(), max: 2 })
})

afterAll(async () => {
  await admin?.end()
})

async function openPostgresLog(setup: LogSetup): Promise<LogSubject> {
  const schema = `contract_${randomBytes(6).toString('hex')}`
  let current = setup
  const open = (options: LogSetup) =>
    PostgresEventLog.open(database(), {
      registry: options.registry,
      schema,
      ...(options.interceptWrite ? { interceptWrite: options.interceptWrite } : {}),
      ...(options.writeRetryWindowMs !== undefined ? { writeRetryWindowMs: options.writeRetryWindowMs } : {}),
      ...(options.closeTimeoutMs !== undefined ? { closeTimeoutMs: options.closeTimeoutMs } : {}),
    })
  let log = await open(current)
  return {
    get log() {
      return log
    },
    async reopen(changes = {}) {
      await log.close()
      current = { ...current, ...changes }
      log = await open(current)
      return log
    },
    async damageRecord(position) {
      const { rowCount } = await admin.query(
        `UPDATE "${schema}".events SET record = set_byte(record, length(record) - 1, get_byte(record, length(record) - 1) # 255) WHERE position = $1`,
        [position],
      )
      if (rowCount !== 1) throw new Error(`no record at position ${position} to damage`)
    },
    storedState: () => rowsOf(admin, schema),
    async noteAsOlderQuire(position, reason) {
      await admin.query(`INSERT INTO "${schema}".quarantine (position, reason, bytes) VALUES ($1, $2, 1)`, [position, reason])
    },
    // As the schema was before the record had a table (adapters/postgres/schema.ts), version 1: the migrations
    // after it (the record, then the hash chain) run again.
    async forgetSchemaRecord() {
      await admin.query(`DROP TABLE IF EXISTS "${schema}".event_versions`)
      await admin.query(`DROP TABLE IF EXISTS "${schema}".chained_late`)
      await admin.query(`ALTER TABLE "${schema}".events DROP COLUMN IF EXISTS link`)
      await admin.query(`DELETE FROM "${schema}".schema_version WHERE version > 1`)
    },
    async dispose() {
      await log.close()
      await admin.query(`DROP SCHEMA "${schema}" CASCADE`)
    },
  }
}

describeEventLogContract('PostgreSQL PostgresEventLog', openPostgresLog)
