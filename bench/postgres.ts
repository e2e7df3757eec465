import pg from 'pg'
import { z } from 'zod'
import { PostgresEventLog } from '../adapters/postgres/postgresEventLog.js'
import { defineEvent, EventRegistry } from '../core/events/schema.js'
import { encodeChunk } from '../core/log/record.js'
import { startTestPostgres, type TestPostgres } from '../specs/support/postgresServer.js'
import { keystrokeUpdate } from './append.js'
import { fmtInt, fmtMs, fmtRate, fmtRatio, median, now, percentile, printTable, settle, sized, type Benchmark, type RunOptions, type TargetResult } from './util.js'

/**
 * Durable appends on the PostgreSQL log against raw PostgreSQL in the same run, on the same server (a throwaway
 * unix-socket cluster, or QUIRE_TEST_POSTGRES), with the same rows (a keystroke-sized Yjs update in the log's record
 * encoding, into a table with the log's columns and constraints):
 *
 * - raw, one row per commit: one connection doing `INSERT` (autocommit: its own COMMIT, its own WAL flush) back to back,
 *   the reference the target names; and raw with 64 connections doing the same at once, where PostgreSQL's WAL flush
 *   already groups commits of concurrent sessions (recorded, not judged);
 * - the log with 64 appenders, each on its own stream, one event per append, each awaiting `durable`: group commit,
 *   many appends per statement and COMMIT on the one writer connection;
 * - the log with one appender: its durable-append latency against one raw commit's.
 *
 * The phases run in rounds (raw serial, log 64, raw 64, log 1), and the ratios judged are the medians of the rounds'
 * ratios, so drift in the disk's speed over the run shows in both sides of each.
 */

const Appended = defineEvent({ type: 'bench.appended', version: 1, schema: z.object({ update: z.instanceof(Uint8Array) }) })
const APPENDERS = 64

interface Phase {
  readonly count: number
  readonly milliseconds: number
  readonly latencies: number[]
}

const rate = (phase: Phase): number => (phase.count / phase.milliseconds) * 1000

/** The raw side's table: the log's `events` columns and constraints, in a schema of its own. */
const RAW_TABLE = `
  CREATE TABLE raw.events (
    position bigint PRIMARY KEY,
    stream text NOT NULL,
    stream_version bigint NOT NULL,
    type text NOT NULL,
    record bytea NOT NULL,
    UNIQUE (stream, stream_version)
  )`

/** `connections` clients each inserting one row per commit until `ms` pass; positions from a shared counter. */
async function rawOneRowPerCommit(database: string, connections: number, ms: number, next: { position: number }, record: Buffer): Promise<Phase> {
  const clients = await Promise.all(
    Array.from({ length: connections }, async () => {
      const client = new pg.Client({ connectionString: database })
      await client.connect()
      return client
    }),
  )
  const latencies: number[] = []
  const started = now()
  const deadline = started + ms
  try {
    await Promise.all(
      clients.map(async (client, index) => {
        let version = 0
        const stream = `raw:${index}:${next.position}`
        for (let t = now(); t < deadline; ) {
          await client.query('INSERT INTO raw.events (position, stream, stream_version, type, record) VALUES ($1, $2, $3, $4, $5)', [
            next.position++,
            stream,
            ++version,
            'bench.appended',
            record,
          ])
          const end = now()
          latencies.push(end - t)
          t = end
        }
      }),
    )
    return { count: latencies.length, milliseconds: now() - started, latencies }
  } finally {
    await Promise.all(clients.map((client) => client.end()))
  }
}

/** `appenders` loops on `log`, each on its own stream, one event per append, each awaiting durability, for `ms`. */
async function logAppends(log: PostgresEventLog, appenders: number, ms: number, round: number, update: Uint8Array): Promise<Phase> {
  const latencies: number[] = []
  const started = now()
  const deadline = started + ms
  await Promise.all(
    Array.from({ length: appenders }, async (_, index) => {
      const stream = `log:${round}:${appenders}:${index}`
      for (let t = now(); t < deadline; ) {
        const batch = await log.append([{ stream, events: [{ type: 'bench.appended', data: { update }, actor: { kind: 'system' } }] }])
        await batch.durable
        const end = now()
        latencies.push(end - t)
        t = end
      }
    }),
  )
  return { count: latencies.length, milliseconds: now() - started, latencies }
}

async function startServer(): Promise<TestPostgres | string> {
  try {
    return await startTestPostgres()
  } catch (error) {
    const message = (error as Error).message
    if (message.startsWith('PostgreSQL is not installed')) return message
    throw error
  }
}

export const postgresBenchmark: Benchmark = {
  name: 'postgres',
  description: 'durable appends on the PostgreSQL log (64 appenders, 1 appender) vs raw INSERT one row per commit',
  async run(options: RunOptions): Promise<TargetResult[]> {
    const phaseMs = sized(options, 'QUIRE_BENCH_POSTGRES_MS', 3_000, 200)
    const rounds = sized(options, 'QUIRE_BENCH_POSTGRES_ROUNDS', 3, 1)
    const server = await startServer()
    if (typeof server === 'string') {
      console.log(`skipped: ${server}`)
      return []
    }
    try {
      const database = await server.createDatabase()
      const admin = new pg.Client({ connectionString: database })
      await admin.connect()
      await admin.query('CREATE SCHEMA raw')
      await admin.query(RAW_TABLE)
      const settings = await admin.query<{ name: string; setting: string }>(
        `SELECT name, setting FROM pg_settings WHERE name IN ('server_version', 'fsync', 'synchronous_commit', 'wal_sync_method', 'commit_delay') ORDER BY name`,
      )
      console.log(`PostgreSQL: ${settings.rows.map((row) => `${row.name}=${row.setting}`).join(', ')}`)
      await admin.end()
      const update = keystrokeUpdate()
      const record = Buffer.from(
        encodeChunk([{ type: 'bench.appended', v: 1, stream: 'raw:0', streamVersion: 1, at: Date.now(), actor: { kind: 'system' }, data: { update } }]),
      )
      const log = await PostgresEventLog.open(database, { registry: new EventRegistry([Appended]), schema: 'quire' })
      const next = { position: 1 }
      const serial: Phase[] = []
      const parallel: Phase[] = []
      const grouped: Phase[] = []
      const single: Phase[] = []
      try {
        // Warm-up: connections, plans, the first pages of both tables.
        await rawOneRowPerCommit(database, 1, Math.min(phaseMs, 300), next, record)
        await logAppends(log, APPENDERS, Math.min(phaseMs, 300), -1, update)
        for (let round = 0; round < rounds; round++) {
          await settle()
          serial.push(await rawOneRowPerCommit(database, 1, phaseMs, next, record))
          await settle()
          grouped.push(await logAppends(log, APPENDERS, phaseMs, round, update))
          await settle()
          parallel.push(await rawOneRowPerCommit(database, APPENDERS, phaseMs, next, record))
          await settle()
          single.push(await logAppends(log, 1, phaseMs, round, update))
        }
        const integrity = await log.checkIntegrity()
        if (integrity.problems.length > 0) throw new Error(`the log is not sound after the benchmark: ${integrity.problems.join('; ')}`)
      } finally {
        await log.close()
      }

      const row = (label: string, phases: readonly Phase[]) => {
        const latencies = phases.flatMap((phase) => phase.latencies)
        return [
          label,
          fmtInt(phases.reduce((sum, phase) => sum + phase.count, 0)),
          fmtRate(median(phases.map(rate))),
          fmtMs(percentile(latencies, 50)),
          fmtMs(percentile(latencies, 99)),
        ]
      }
      printTable(`postgres: ${rounds} round(s) of ${phaseMs} ms per phase (rate: median over rounds)`, ['phase', 'commits/appends', 'rate', 'p50', 'p99'], [
        row('raw INSERT, 1 connection, 1 row per commit', serial),
        row(`raw INSERT, ${APPENDERS} connections, 1 row per commit`, parallel),
        row(`log, ${APPENDERS} appenders (group commit)`, grouped),
        row('log, 1 appender', single),
      ])
      printTable('postgres: each round', ['round', 'raw 1 conn', `raw ${APPENDERS} conn`, `log ${APPENDERS}`, 'log 1', `log ${APPENDERS} / raw 1`], Array.from({ length: rounds }, (_, round) => [
        String(round + 1),
        fmtRate(rate(serial[round]!)),
        fmtRate(rate(parallel[round]!)),
        fmtRate(rate(grouped[round]!)),
        fmtRate(rate(single[round]!)),
        fmtRatio(rate(grouped[round]!) / rate(serial[round]!)),
      ]))
      const perRound = (ratio: (round: number) => number) => median(Array.from({ length: rounds }, (_, round) => ratio(round)))
      const groupVsSerial = perRound((round) => rate(grouped[round]!) / rate(serial[round]!))
      const groupVsParallel = perRound((round) => rate(grouped[round]!) / rate(parallel[round]!))
      const latencyVsCommit = perRound((round) => percentile(single[round]!.latencies, 50) / percentile(serial[round]!.latencies, 50))
      console.log(
        `log with ${APPENDERS} appenders: ${fmtRatio(groupVsSerial)} the raw one-row-per-commit rate, ${fmtRatio(groupVsParallel)} that of ${APPENDERS} raw connections; ` +
          `one appender's p50 durable append is ${fmtRatio(latencyVsCommit)} one raw commit's`,
      )
      return [
        { benchmark: 'postgres', name: `log ${APPENDERS} appenders / raw 1 row per commit`, ratio: groupVsSerial, target: '≥ 10x', met: groupVsSerial >= 10 },
        { benchmark: 'postgres', name: `log ${APPENDERS} appenders / raw ${APPENDERS} connections`, ratio: groupVsParallel, target: 'recorded', met: null },
        { benchmark: 'postgres', name: 'log 1 appender p50 / raw commit p50', ratio: latencyVsCommit, target: 'recorded', met: null },
      ]
    } finally {
      await server.stop()
    }
  },
}
