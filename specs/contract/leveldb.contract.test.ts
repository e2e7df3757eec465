import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EventStore } from '../../adapters/leveldb/eventStore.js'
import { eventKey, positionOfEventKey } from '../../adapters/leveldb/keys.js'
import { filesIn, quarantineKey, withRawLog } from '../support/storedLog.js'
import { describeEventLogContract, type LogSetup, type LogSubject } from './eventLog.contract.js'

/**
 * The log's record of its schema versions (adapters/leveldb/keys.ts): the key `v`, and its copy beside LevelDB's files,
 * which a Quire reads before it opens (and so changes) the database.
 */
const SCHEMA_RECORD_KEY = Uint8Array.of(0x76)
const SCHEMA_RECORD_FILE = join('log', 'event-versions.json')

/** The LevelDB store, in a fresh temp directory per subject; damage goes through LevelDB directly. */
async function openLevelDbLog(setup: LogSetup): Promise<LogSubject> {
  const home = await mkdtemp(join(tmpdir(), 'quire-contract-'))
  let current = setup
  const open = (options: LogSetup) =>
    EventStore.open(home, {
      registry: options.registry,
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
      await withRawLog(home, async (db) => {
        for await (const [key, chunk] of db.iterator({ lte: eventKey(position), gte: eventKey(0), reverse: true, limit: 1 })) {
          const damaged = chunk.slice()
          damaged[recordBodyOffset(damaged, position - positionOfEventKey(key))]! ^= 0xff
          await db.put(key, damaged, { sync: true })
        }
      })
    },
    // The data directory's files, byte for byte: LevelDB rewrites its own files whenever it is opened.
    storedState: () => filesIn(home),
    async noteAsOlderQuire(position, reason) {
      await withRawLog(home, (db) => db.put(quarantineKey(position), new TextEncoder().encode(JSON.stringify({ reason, bytes: 1 })), { sync: true }))
    },
    async forgetSchemaRecord() {
      await withRawLog(home, (db) => db.del(SCHEMA_RECORD_KEY, { sync: true }))
      await rm(join(home, SCHEMA_RECORD_FILE), { force: true })
    },
    async dispose() {
      await log.close()
      await rm(home, { recursive: true, force: true })
    },
  }
}

/**
 * Where record `index` of a chunk starts, parsed independently of the store's decoder from the layout in
 * core/log/record.ts: varUint count, count × (varUint length, uint32 CRC-32), then the records back to back.
 */
function recordBodyOffset(chunk: Uint8Array, index: number): number {
  let offset = 0
  const readVarUint = (): number => {
    let value = 0
    for (let shift = 0; ; shift += 7) {
      const byte = chunk[offset++]!
      value += (byte & 0x7f) * 2 ** shift
      if (byte < 0x80) return value
    }
  }
  const count = readVarUint()
  const lengths: number[] = []
  for (let i = 0; i < count; i++) {
    lengths.push(readVarUint())
    offset += 4
  }
  for (let i = 0; i < index; i++) offset += lengths[i]!
  // The last byte of the record: inside its event data, so the damage shows only in the checksum.
  return offset + lengths[index]! - 1
}

describeEventLogContract('LevelDB EventStore', openLevelDbLog)
