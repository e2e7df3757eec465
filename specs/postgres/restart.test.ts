import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { PostgresEventLog } from '../../adapters/postgres/postgresEventLog.js'
import { LogUnreachableError } from '../../adapters/postgres/unreachable.js'
import { defineEvent, EventRegistry } from '../../core/events/schema.js'
import { JournalWriteError } from '../../core/log/errors.js'
import type { RecordedEvent } from '../../core/log/eventLog.js'
import { startRestartablePostgres, type RestartablePostgres } from '../support/postgresServer.js'

/**
 * PostgreSQL going away under running nodes: its own throwaway cluster (never QUIRE_TEST_POSTGRES, which a test must
 * not shut down), stopped with `pg_ctl stop -m fast` and started again mid-run. Appends during the outage fail with
 * JournalWriteError (core's JOURNAL_UNAVAILABLE) while the server is still down, appends succeed again once it is
 * back without reopening anything, subscribers (also on a node that never appends, which depends on its LISTEN
 * connection coming back) see every event once, and every acknowledged event is in the log, at its position.
 */
let server: RestartablePostgres
let database: string

beforeAll(async () => {
  server = await startRestartablePostgres()
  database = await server.createDatabase()
})

afterAll(async () => {
  await server?.stop()
})

const Noted = defineEvent({ type: 'noted', version: 1, schema: z.object({ id: z.string() }) })
const noted = (id: string) => ({ type: 'noted', data: { id }, actor: { kind: 'system' as const } })
const idOf = (event: RecordedEvent): string => (event.data as { id: string }).id

/** Short windows, so the outage outlasts them: the test waits for the failures before starting the server again. */
const open = (schema: string) =>
  PostgresEventLog.open(database, { registry: new EventRegistry([Noted]), schema, writeRetryWindowMs: 500, closeTimeoutMs: 2_000, connectTimeoutMs: 1_000 })

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = []
  for await (const item of iterable) items.push(item)
  return items
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise<void>((resolve) => setTimeout(resolve, 5))
}

type Outcome = { readonly acked: readonly RecordedEvent[] } | { readonly failed: unknown; readonly events: readonly RecordedEvent[] }

/** Appends one event; the outcome says whether it became durable, or how it failed (at `append` or at `durable`). */
async function appendOne(log: PostgresEventLog, stream: string, id: string): Promise<Outcome> {
  let events: readonly RecordedEvent[] = []
  try {
    const batch = await log.append([{ stream, events: [noted(id)] }])
    events = batch.streams[0]!.events
    await batch.durable
    return { acked: events }
  } catch (error) {
    return { failed: error, events }
  }
}

/** The log as `log` reads it holds exactly the acknowledged events, at their positions, and none that failed. */
async function expectExactly(log: PostgresEventLog, acked: ReadonlyMap<string, RecordedEvent>, failed: ReadonlySet<string>): Promise<void> {
  const all = await collect(log.readAll())
  expect(all.map((event) => event.position)).toEqual(all.map((_, index) => index + 1))
  const byId = new Map(all.map((event) => [idOf(event), event]))
  for (const [id, event] of acked) expect(byId.get(id)).toEqual(event)
  for (const id of failed) expect(byId.has(id)).toBe(false)
  expect(all).toHaveLength(acked.size)
  expect((await log.checkIntegrity()).problems).toEqual([])
}

describe('PostgresEventLog: PostgreSQL restarting under running nodes', () => {
  it('given a server stopped between appends, when appending during the outage, then each append fails with JournalWriteError before the server is back, known heads still answer, reads fail clearly, and after the restart appends succeed and subscribers on both nodes see every event once', async () => {
    const schema = 'restart_between'
    const writer = await open(schema)
    const quiet = await open(schema)
    try {
      const seenByWriter: RecordedEvent[] = []
      const seenByQuiet: RecordedEvent[] = []
      const stops = [writer.subscribe(0, (event) => void seenByWriter.push(event)), quiet.subscribe(0, (event) => void seenByQuiet.push(event))]
      const acked = new Map<string, RecordedEvent>()
      const failed = new Set<string>()
      const record = (id: string, outcome: Outcome) => {
        if ('acked' in outcome) acked.set(id, outcome.acked[0]!)
        else failed.add(id)
        return outcome
      }
      for (let i = 0; i < 10; i++) record(`before-${i}`, await appendOne(writer, `doc:${i % 3}`, `before-${i}`))
      expect(acked.size).toBe(10)
      const headBefore = await writer.streamHead('doc:0')

      server.stopServer()
      // The first appends wait out the retry window; once the database is known to be down, later ones fail at once.
      // Either way they fail while the server is still stopped: it is started only after they all have.
      for (let round = 0; round < 3; round++) {
        const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => appendOne(writer, `doc:${i % 3}`, `during-${round}-${i}`).then((outcome) => record(`during-${round}-${i}`, outcome))))
        for (const outcome of outcomes) {
          expect('failed' in outcome && outcome.failed).toBeInstanceOf(JournalWriteError)
        }
      }
      expect(await writer.streamHead('doc:0')).toEqual(headBefore)
      await expect(collect(writer.readAll())).rejects.toBeInstanceOf(LogUnreachableError)
      await expect(collect(quiet.readStream('doc:1'))).rejects.toBeInstanceOf(LogUnreachableError)
      server.startServer()

      for (let i = 0; i < 10; i++) {
        const outcome = record(`after-${i}`, await appendOne(writer, `doc:${i % 3}`, `after-${i}`))
        expect(outcome).toHaveProperty('acked')
      }
      expect(acked.size).toBe(20)
      await until(() => seenByWriter.length >= 20 && seenByQuiet.length >= 20)
      for (const stop of stops) stop()
      const ackedInOrder = [...acked.values()].sort((a, b) => a.position - b.position)
      expect(seenByWriter).toEqual(ackedInOrder)
      expect(seenByQuiet).toEqual(ackedInOrder)
      await until(() => quiet.durableHeadPosition === writer.durableHeadPosition)
      await expectExactly(writer, acked, failed)
      await expectExactly(quiet, acked, failed)
    } finally {
      await Promise.all([writer.close(), quiet.close()])
    }
    const reopened = await open(schema)
    try {
      expect((await collect(reopened.readAll())).map(idOf)).toEqual([...Array.from({ length: 10 }, (_, i) => `before-${i}`), ...Array.from({ length: 10 }, (_, i) => `after-${i}`)])
    } finally {
      await reopened.close()
    }
  })

  it('given the writer lease held by a write in flight, when the server stops and an append names a stream this node has not read, then it fails with JournalWriteError (not the read\'s LogUnreachableError), and appends succeed once the server is back', async () => {
    const schema = 'restart_new_stream'
    let releaseWrite: () => void = () => {}
    const held = new Promise<void>((resolve) => (releaseWrite = resolve))
    let writes = 0
    let stopped = false
    // The first write waits until the server is gone, keeping the lease held (its pipeline busy) meanwhile.
    const writer = await PostgresEventLog.open(database, {
      registry: new EventRegistry([Noted]),
      schema,
      writeRetryWindowMs: 500,
      closeTimeoutMs: 2_000,
      connectTimeoutMs: 1_000,
      interceptWrite: async (write) => {
        if (writes++ === 0) await held
        return write()
      },
    })
    try {
      const inFlight = appendOne(writer, 'doc:known', 'in-flight')
      await until(() => writes === 1)
      server.stopServer()
      stopped = true
      // The append needs the new stream's head, which only the database can tell: a write the log could not make.
      const outcome = await appendOne(writer, 'doc:never-read', 'during')
      expect('failed' in outcome && outcome.failed).toBeInstanceOf(JournalWriteError)
      releaseWrite()
      expect((await inFlight) as { failed?: unknown }).toHaveProperty('failed')
      server.startServer()
      stopped = false
      let after: Outcome = { failed: undefined, events: [] }
      for (let attempt = 0; attempt < 40 && !('acked' in after); attempt++) after = await appendOne(writer, 'doc:never-read', `after-${attempt}`)
      expect(after).toHaveProperty('acked')
    } finally {
      releaseWrite()
      await writer.close()
      if (stopped) server.startServer()
    }
  })

  it('given appenders writing without pause, when the server is stopped mid-run and started again, then every acknowledged event is in the log once at its position, every failure is a JournalWriteError, the appenders succeed again, and a quiet node subscribed throughout saw each event once', async () => {
    const schema = 'restart_midrun'
    const writer = await open(schema)
    const quiet = await open(schema)
    try {
      const seen: RecordedEvent[] = []
      const stop = quiet.subscribe(0, (event) => void seen.push(event))
      const acked = new Map<string, RecordedEvent>()
      const failed = new Set<string>()
      const failures: unknown[] = []
      let phase: 'before' | 'down' | 'back' = 'before'
      let ackedAfterRestart = 0
      let running = true
      const appenders = Array.from({ length: 16 }, async (_, appender) => {
        for (let i = 0; running; i++) {
          const id = `a${appender}-${i}`
          const outcome = await appendOne(writer, `doc:${appender % 4}`, id)
          if ('acked' in outcome) {
            acked.set(id, outcome.acked[0]!)
            if (phase === 'back') ackedAfterRestart++
          } else {
            failed.add(id)
            failures.push(outcome.failed)
          }
        }
      })
      await until(() => acked.size >= 200)
      server.stopServer()
      phase = 'down'
      // The batches in flight when the server went fail after the retry window; every appender has seen a failure.
      await until(() => failures.length >= 32)
      server.startServer()
      phase = 'back'
      await until(() => ackedAfterRestart >= 200)
      running = false
      await Promise.all(appenders)
      for (const failure of failures) expect(failure).toBeInstanceOf(JournalWriteError)

      await until(() => quiet.durableHeadPosition === writer.durableHeadPosition)
      await until(() => seen.length >= acked.size)
      stop()
      expect(seen).toEqual([...acked.values()].sort((a, b) => a.position - b.position))
      await expectExactly(writer, acked, failed)
      await expectExactly(quiet, acked, failed)
    } finally {
      await Promise.all([writer.close(), quiet.close()])
    }
  })
})
