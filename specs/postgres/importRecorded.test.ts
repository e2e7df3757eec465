import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { PostgresEventLog } from '../../adapters/postgres/postgresEventLog.js'
import { defineEvent, EventRegistry } from '../../core/events/schema.js'
import { InvalidAppendError } from '../../core/log/errors.js'
import type { RecordedEvent } from '../../core/log/eventLog.js'
import { usePostgresDatabase } from '../support/postgresServer.js'

/**
 * The adapter's import path (what `quire migrate` copies through): events land exactly as given, and anything that
 * would not continue the log as it stands (a gap, a position already taken, a stream version out of turn, an
 * unknown type) is refused before anything is written.
 */
const database = usePostgresDatabase()

// Version 2 reads version 1 unchanged, so an imported v1 event reads back as it was given, still saying v1.
const Noted = defineEvent({ type: 'noted', version: 2, schema: z.object({ id: z.string() }), upcasters: { 1: (data) => data } })
const open = (schema: string) => PostgresEventLog.open(database(), { registry: new EventRegistry([Noted]), schema })

const recorded = (position: number, stream: string, streamVersion: number, id: string): RecordedEvent => ({
  position,
  stream,
  streamVersion,
  type: 'noted',
  // An older schema version and a fixed time: the import keeps both, as stored.
  v: 1,
  at: 1_700_000_000_000 + position,
  actor: { kind: 'mcp', principal: 'claude', connection: 'c-1' },
  data: { id },
})

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = []
  for await (const item of iterable) items.push(item)
  return items
}

describe('PostgresEventLog.importRecorded', () => {
  it('given events with their own positions, versions, times and actors, when imported, then the log holds exactly them, also when reopened', async () => {
    const schema = `import_${randomBytes(4).toString('hex')}`
    const events = [recorded(1, 'a', 1, 'x'), recorded(2, 'b', 1, 'y'), recorded(3, 'a', 2, 'z')]
    const log = await open(schema)
    try {
      await (await log.importRecorded(events)).durable
      expect(await collect(log.readAll())).toEqual(events)
      expect(await log.streamHead('a')).toEqual({ version: 2, position: 3 })
    } finally {
      await log.close()
    }
    const reopened = await open(schema)
    try {
      expect(await collect(reopened.readAll())).toEqual(events)
      expect((await reopened.checkIntegrity()).problems).toEqual([])
      // Appends go on from where the import ended.
      const batch = await reopened.append([{ stream: 'a', events: [{ type: 'noted', data: { id: 'next' }, actor: { kind: 'system' } }], expectedStreamVersion: 2 }])
      await batch.durable
      expect(batch.streams[0]!.events[0]).toMatchObject({ position: 4, streamVersion: 3 })
    } finally {
      await reopened.close()
    }
  })

  it('given events that do not continue the log, when imported, then each import is refused with InvalidAppendError and the log is unchanged', async () => {
    const log = await open(`import_${randomBytes(4).toString('hex')}`)
    try {
      await (await log.importRecorded([recorded(1, 'a', 1, 'x')])).durable
      const refusals: [string, RecordedEvent[]][] = [
        ['a gap', [recorded(3, 'a', 2, 'gap')]],
        ['a taken position', [recorded(1, 'b', 1, 'taken')]],
        ['positions out of order', [recorded(2, 'b', 1, 'p'), recorded(4, 'b', 2, 'q')]],
        ['a version out of turn', [recorded(2, 'a', 3, 'skip')]],
        ['a new stream not at version 1', [recorded(2, 'c', 2, 'late')]],
        ['an unknown type', [{ ...recorded(2, 'a', 2, 'unknown'), type: 'never.defined' }]],
        ['nothing', []],
      ]
      for (const [what, events] of refusals) {
        await expect(log.importRecorded(events), what).rejects.toBeInstanceOf(InvalidAppendError)
      }
      expect((await collect(log.readAll())).map((event) => event.data)).toEqual([{ id: 'x' }])
      expect(log.headPosition).toBe(1)
      expect(await log.streamHead('c')).toEqual({ version: 0, position: 0 })
    } finally {
      await log.close()
    }
  })
})
