import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { z } from 'zod'
import { PostgresEventLog } from '../adapters/postgres/postgresEventLog.js'
import { defineEvent, EventRegistry } from '../core/events/schema.js'
import { encodeChunk } from '../core/log/record.js'
import { keystrokeUpdate } from './append.js'
import { processCpuMs, selfCpuMs } from './mcpSupport.js'
import { postgresCpuReader, startNode, startServer, type Node, type NodeClient } from './nodesCluster.js'
import { fmtInt, fmtMs, fmtRate, fmtRatio, median, now, percentile, printTable, settle, sized, type Benchmark, type RunOptions, type TargetResult } from './util.js'

/**
 * Durable appends on the PostgreSQL log, and MCP writes on a `quire serve` node whose log is PostgreSQL, against raw
 * PostgreSQL in the same run, on the same server (a throwaway unix-socket cluster, or QUIRE_TEST_POSTGRES), with the
 * same rows (a keystroke-sized Yjs update in the log's record encoding, into a table with the log's columns and
 * constraints):
 *
 * - raw, one row per commit: one connection doing `INSERT` (autocommit: its own COMMIT, its own WAL flush) back to back,
 *   the reference the target names; and raw with 64 connections, and with as many as there are MCP clients, doing the
 *   same at once, where PostgreSQL's WAL flush already groups commits of concurrent sessions (recorded, not judged);
 * - the log with 64 appenders, each on its own stream, one event per append, each awaiting `durable`: group commit,
 *   many appends per statement and COMMIT on the one writer connection;
 * - the log with one appender: its durable-append latency against one raw commit's;
 * - MCP writes: one `quire serve` node on this server (QUIRE_STORE, a schema of its own) taking `document.write` of a
 *   one-line change to a 20-line text (`save: false`) over Streamable HTTP, from 1 client and from
 *   QUIRE_BENCH_POSTGRES_MCP_CLIENTS (16) clients on distinct documents, each awaiting its answer (recorded against
 *   the raw one-row-per-commit rate and latency of the same round, not judged: the issue names no target for them).
 *
 * The phases run in rounds (raw serial, log 64, raw 64, log 1, raw with the MCP clients' count, MCP 1, MCP N), and
 * the ratios are the medians of the rounds' ratios, so drift in the disk's speed over the run shows in both sides of
 * each. Every phase also records what it cost: the server's write transactions (transaction ids taken: one per commit
 * that wrote, none for read-only ones; on QUIRE_TEST_POSTGRES other databases' count too), its WAL bytes, and the CPU of
 * PostgreSQL's server processes (a throwaway cluster only), of the node, and of this process (the clients). /proc counts
 * CPU in 10 ms ticks per process, so the raw phases' fresh backends (one per connection, each a few ms of CPU at the
 * start) are undercounted by up to 10 ms each: the 64-connection phase's PostgreSQL CPU is a low bound.
 */

const Appended = defineEvent({ type: 'bench.appended', version: 1, schema: z.object({ update: z.instanceof(Uint8Array) }) })
const APPENDERS = 64

/** What a phase did: operations completed, over how long, and each one's latency. */
interface Timed {
  readonly count: number
  readonly milliseconds: number
  readonly latencies: number[]
}

/** What a phase cost the server and the processes around it. */
interface Costs {
  readonly transactions: number
  readonly walBytes: number
  /** NaN where the server's processes are not this machine's (QUIRE_TEST_POSTGRES). */
  readonly postgresCpuMs: number
  readonly nodeCpuMs: number
  readonly benchCpuMs: number
}

interface Phase extends Timed {
  readonly costs: Costs
}

const rate = (phase: Timed): number => (phase.count / phase.milliseconds) * 1000

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

/** An LSN (`16/B374D848`) as a byte offset into the WAL. */
const lsnBytes = (lsn: string): number => {
  const [high, low] = lsn.split('/') as [string, string]
  return Number.parseInt(high, 16) * 2 ** 32 + Number.parseInt(low, 16)
}

/** Measures the costs of whatever runs between `begin` and `end`. */
interface Meter {
  begin(): Promise<{ end(timed: Timed): Promise<Phase> }>
}

/**
 * Costs read through `probe` (its own queries are read-only, so they take no transaction id), from /proc for
 * PostgreSQL's processes (`postgresCpu`) and the node's, and from this process.
 */
function meter(probe: pg.Client, postgresCpu: (() => number) | undefined, nodePid: number): Meter {
  const counters = async () => {
    const { rows } = await probe.query<{ next_xid: string; lsn: string }>(
      'SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS next_xid, pg_current_wal_lsn()::text AS lsn',
    )
    return { nextXid: Number(rows[0]!.next_xid), wal: lsnBytes(rows[0]!.lsn) }
  }
  const cpu = () => ({ postgres: postgresCpu?.() ?? Number.NaN, node: processCpuMs(nodePid), bench: selfCpuMs() })
  return {
    async begin() {
      const before = await counters()
      const cpuBefore = cpu()
      return {
        async end(timed) {
          const cpuAfter = cpu()
          const after = await counters()
          return {
            ...timed,
            costs: {
              transactions: after.nextXid - before.nextXid,
              walBytes: after.wal - before.wal,
              postgresCpuMs: cpuAfter.postgres - cpuBefore.postgres,
              nodeCpuMs: cpuAfter.node - cpuBefore.node,
              benchCpuMs: cpuAfter.bench - cpuBefore.bench,
            },
          }
        },
      }
    },
  }
}

/** `connections` clients each inserting one row per commit until `ms` pass; positions from a shared counter. */
async function rawOneRowPerCommit(database: string, connections: number, ms: number, next: { position: number }, record: Buffer, costs: Meter): Promise<Phase> {
  const clients = await Promise.all(
    Array.from({ length: connections }, async () => {
      const client = new pg.Client({ connectionString: database })
      await client.connect()
      return client
    }),
  )
  try {
    const measuring = await costs.begin()
    const latencies: number[] = []
    const started = now()
    const deadline = started + ms
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
    return await measuring.end({ count: latencies.length, milliseconds: now() - started, latencies })
  } finally {
    await Promise.all(clients.map((client) => client.end()))
  }
}

/** `appenders` loops on `log`, each on its own stream, one event per append, each awaiting durability, for `ms`. */
async function logAppends(log: PostgresEventLog, appenders: number, ms: number, round: number, update: Uint8Array, costs: Meter): Promise<Phase> {
  const measuring = await costs.begin()
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
  return measuring.end({ count: latencies.length, milliseconds: now() - started, latencies })
}

/** One MCP client with a document of its own. */
interface Writer {
  readonly client: NodeClient
  readonly tabId: string
  readonly index: number
  written: number
}

/** A 20-line text whose line `n % 20` says `n`: each write changes one line of the one before. */
function documentText(writer: number, n: number): string {
  const lines = Array.from({ length: 20 }, (_, line) => `writer ${writer} line ${line}: some words of a paragraph, ${line === n % 20 ? `edit ${n}` : 'unchanged'}`)
  return `# Document ${writer}\n\n${lines.join('\n')}\n`
}

async function write(writer: Writer): Promise<void> {
  await writer.client.call('document', { action: 'write', tabId: writer.tabId, content: documentText(writer.index, ++writer.written), save: false })
}

/** `count` clients of `node` numbered from `first`, each with its own new tab, written once. */
async function openWriters(node: Node, first: number, count: number): Promise<Writer[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, offset) => {
      const index = first + offset
      const client = await node.connect(`postgres-writer-${index}`)
      const { tabId } = (await client.call('workspace', { action: 'new' })) as { tabId: string }
      const writer: Writer = { client, tabId, index, written: 0 }
      await write(writer)
      return writer
    }),
  )
}

/** Every writer writing its own document, each awaiting its answer before the next, for `ms`. */
async function mcpWrites(writers: readonly Writer[], ms: number, costs: Meter): Promise<Phase> {
  const measuring = await costs.begin()
  const latencies: number[] = []
  const started = now()
  const deadline = started + ms
  await Promise.all(
    writers.map(async (writer) => {
      for (let t = now(); t < deadline; ) {
        await write(writer)
        const end = now()
        latencies.push(end - t)
        t = end
      }
    }),
  )
  return measuring.end({ count: latencies.length, milliseconds: now() - started, latencies })
}

/** The node's log: its last position, and how many events of each type came after `position`. */
async function logHead(probe: pg.Client, schema: string): Promise<number> {
  const { rows } = await probe.query<{ head: string | null }>(`SELECT max(position)::text AS head FROM "${schema}".events`)
  return Number(rows[0]!.head ?? 0)
}

async function eventTypesAfter(probe: pg.Client, schema: string, position: number, into: Map<string, number>): Promise<void> {
  const { rows } = await probe.query<{ type: string; count: string }>(`SELECT type, count(*)::text AS count FROM "${schema}".events WHERE position > $1 GROUP BY type`, [position])
  for (const row of rows) into.set(row.type, (into.get(row.type) ?? 0) + Number(row.count))
}

/** `database` with the log's schema named (Quire's `schema=` parameter of QUIRE_STORE). */
function storeIn(database: string, schema: string): string {
  const url = new URL(database)
  url.searchParams.set('schema', schema)
  return url.toString()
}


/** Sums over a phase's rounds. */
const total = (phases: readonly Phase[], pick: (phase: Phase) => number): number => phases.reduce((sum, phase) => sum + pick(phase), 0)
const perOp = (phases: readonly Phase[], pick: (phase: Phase) => number, digits: number): string => {
  const value = total(phases, pick) / total(phases, (phase) => phase.count)
  return Number.isNaN(value) ? 'n/a' : value.toFixed(digits)
}
/** CPU ms over wall ms: how many of the machine's cores a process kept busy. */
const cores = (phases: readonly Phase[], pick: (costs: Costs) => number): string => {
  const value = total(phases, (phase) => pick(phase.costs)) / total(phases, (phase) => phase.milliseconds)
  return Number.isNaN(value) ? 'n/a' : value.toFixed(2)
}

export const postgresBenchmark: Benchmark = {
  name: 'postgres',
  description: 'durable appends on the PostgreSQL log (64 appenders, 1 appender) and MCP writes on a node on it (1, N clients) vs raw INSERT one row per commit',
  async run(options: RunOptions): Promise<TargetResult[]> {
    const phaseMs = sized(options, 'QUIRE_BENCH_POSTGRES_MS', 3_000, 200)
    const rounds = sized(options, 'QUIRE_BENCH_POSTGRES_ROUNDS', 3, 1)
    const mcpClients = sized(options, 'QUIRE_BENCH_POSTGRES_MCP_CLIENTS', 16, 4)
    const server = await startServer()
    if (typeof server === 'string') {
      console.log(`skipped: ${server}`)
      return []
    }
    let node: Node | undefined
    const writers: Writer[] = []
    let probe: pg.Client | undefined
    try {
      const database = await server.createDatabase()
      probe = new pg.Client({ connectionString: database })
      await probe.connect()
      await probe.query('CREATE SCHEMA raw')
      await probe.query(RAW_TABLE)
      const settings = await probe.query<{ name: string; setting: string }>(
        `SELECT name, setting FROM pg_settings WHERE name IN ('server_version', 'fsync', 'synchronous_commit', 'wal_sync_method', 'commit_delay') ORDER BY name`,
      )
      console.log(`PostgreSQL: ${settings.rows.map((row) => `${row.name}=${row.setting}`).join(', ')}`)
      const postgresCpu = postgresCpuReader(server.connectionString)
      if (!postgresCpu) console.log('PostgreSQL is not a throwaway cluster of this machine (QUIRE_TEST_POSTGRES): its CPU is not measured')
      const update = keystrokeUpdate()
      const record = Buffer.from(
        encodeChunk([{ type: 'bench.appended', v: 1, stream: 'raw:0', streamVersion: 1, at: Date.now(), actor: { kind: 'system' }, data: { update } }]),
      )
      const nodeSchema = `mcp_${randomBytes(4).toString('hex')}`
      node = await startNode(storeIn(database, nodeSchema), 'postgres-mcp')
      const costs = meter(probe, postgresCpu, node.pid)
      const log = await PostgresEventLog.open(database, { registry: new EventRegistry([Appended]), schema: 'quire' })
      const next = { position: 1 }
      const serial: Phase[] = []
      const parallel: Phase[] = []
      const parallelAsMcp: Phase[] = []
      const grouped: Phase[] = []
      const single: Phase[] = []
      const mcpOne: Phase[] = []
      const mcpMany: Phase[] = []
      const eventsOfOne = new Map<string, number>()
      const eventsOfMany = new Map<string, number>()
      try {
        writers.push(...(await openWriters(node, 0, 1 + mcpClients)))
        const [lone, ...many] = writers as [Writer, ...Writer[]]
        console.log(`one quire serve node on schema ${nodeSchema}; MCP phases with 1 and ${mcpClients} clients, each on its own document`)
        // Warm-up: connections, plans, the first pages of both tables, the node's JIT.
        const warmMs = Math.min(phaseMs, 300)
        await rawOneRowPerCommit(database, 1, warmMs, next, record, costs)
        await logAppends(log, APPENDERS, warmMs, -1, update, costs)
        await mcpWrites(writers, warmMs, costs)
        for (let round = 0; round < rounds; round++) {
          await settle()
          serial.push(await rawOneRowPerCommit(database, 1, phaseMs, next, record, costs))
          await settle()
          grouped.push(await logAppends(log, APPENDERS, phaseMs, round, update, costs))
          await settle()
          parallel.push(await rawOneRowPerCommit(database, APPENDERS, phaseMs, next, record, costs))
          await settle()
          single.push(await logAppends(log, 1, phaseMs, round, update, costs))
          await settle()
          parallelAsMcp.push(await rawOneRowPerCommit(database, mcpClients, phaseMs, next, record, costs))
          await settle()
          let head = await logHead(probe, nodeSchema)
          mcpOne.push(await mcpWrites([lone], phaseMs, costs))
          await eventTypesAfter(probe, nodeSchema, head, eventsOfOne)
          await settle()
          head = await logHead(probe, nodeSchema)
          mcpMany.push(await mcpWrites(many, phaseMs, costs))
          await eventTypesAfter(probe, nodeSchema, head, eventsOfMany)
        }
        const integrity = await log.checkIntegrity()
        if (integrity.problems.length > 0) throw new Error(`the log is not sound after the benchmark: ${integrity.problems.join('; ')}`)
      } finally {
        await log.close()
      }

      const mcpOneLabel = 'MCP document.write, 1 client'
      const mcpManyLabel = `MCP document.write, ${mcpClients} clients`
      const phases: readonly (readonly [string, readonly Phase[]])[] = [
        ['raw INSERT, 1 connection, 1 row per commit', serial],
        [`raw INSERT, ${APPENDERS} connections, 1 row per commit`, parallel],
        [`raw INSERT, ${mcpClients} connections, 1 row per commit`, parallelAsMcp],
        [`log, ${APPENDERS} appenders (group commit)`, grouped],
        ['log, 1 appender', single],
        [mcpOneLabel, mcpOne],
        [mcpManyLabel, mcpMany],
      ]
      printTable(
        `postgres: ${rounds} round(s) of ${phaseMs} ms per phase (rate: median over rounds)`,
        ['phase', 'commits/appends/writes', 'rate', 'p50', 'p99'],
        phases.map(([label, list]) => {
          const latencies = list.flatMap((phase) => phase.latencies)
          return [label, fmtInt(total(list, (phase) => phase.count)), fmtRate(median(list.map(rate))), fmtMs(percentile(latencies, 50)), fmtMs(percentile(latencies, 99))]
        }),
      )
      printTable(
        'postgres: each round',
        ['round', 'raw 1 conn', `raw ${APPENDERS} conn`, `raw ${mcpClients} conn`, `log ${APPENDERS}`, 'log 1', 'MCP 1', `MCP ${mcpClients}`, `log ${APPENDERS} / raw 1`, 'MCP 1 / raw 1', `MCP ${mcpClients} / raw 1`],
        Array.from({ length: rounds }, (_, round) => [
          String(round + 1),
          ...[serial, parallel, parallelAsMcp, grouped, single, mcpOne, mcpMany].map((list) => fmtRate(rate(list[round]!))),
          ...[grouped, mcpOne, mcpMany].map((list) => fmtRatio(rate(list[round]!) / rate(serial[round]!))),
        ]),
      )
      const isMcp = (list: readonly Phase[]) => list === mcpOne || list === mcpMany
      printTable(
        'postgres: cost per commit/append/write, over all rounds (write transactions from transaction ids; CPU per operation in ms, and as cores busy: CPU ms / wall ms)',
        ['phase', 'transactions', 'WAL bytes', 'PostgreSQL CPU', 'node CPU', 'bench process CPU', 'PostgreSQL cores', 'node cores', 'bench cores'],
        phases.map(([label, list]) => [
          label,
          perOp(list, (phase) => phase.costs.transactions, 2),
          perOp(list, (phase) => phase.costs.walBytes, 0),
          perOp(list, (phase) => phase.costs.postgresCpuMs, 3),
          isMcp(list) ? perOp(list, (phase) => phase.costs.nodeCpuMs, 3) : '-',
          perOp(list, (phase) => phase.costs.benchCpuMs, 3),
          cores(list, (each) => each.postgresCpuMs),
          isMcp(list) ? cores(list, (each) => each.nodeCpuMs) : '-',
          cores(list, (each) => each.benchCpuMs),
        ]),
      )
      const writesOf = (list: readonly Phase[]) => total(list, (phase) => phase.count)
      const types = [...new Set([...eventsOfOne.keys(), ...eventsOfMany.keys()])].sort()
      printTable(
        'postgres: events in the node\'s log per MCP write, by type',
        ['type', '1 client', `${mcpClients} clients`],
        types.map((type) => [type, ((eventsOfOne.get(type) ?? 0) / writesOf(mcpOne)).toFixed(2), ((eventsOfMany.get(type) ?? 0) / writesOf(mcpMany)).toFixed(2)]),
      )

      const perRound = (ratio: (round: number) => number) => median(Array.from({ length: rounds }, (_, round) => ratio(round)))
      const p50 = (phase: Phase) => percentile(phase.latencies, 50)
      const groupVsSerial = perRound((round) => rate(grouped[round]!) / rate(serial[round]!))
      const groupVsParallel = perRound((round) => rate(grouped[round]!) / rate(parallel[round]!))
      const latencyVsCommit = perRound((round) => p50(single[round]!) / p50(serial[round]!))
      const mcpOneVsSerial = perRound((round) => rate(mcpOne[round]!) / rate(serial[round]!))
      const mcpOneLatency = perRound((round) => p50(mcpOne[round]!) / p50(serial[round]!))
      const mcpManyVsSerial = perRound((round) => rate(mcpMany[round]!) / rate(serial[round]!))
      const mcpManyLatency = perRound((round) => p50(mcpMany[round]!) / p50(serial[round]!))
      const mcpManyVsParallel = perRound((round) => rate(mcpMany[round]!) / rate(parallelAsMcp[round]!))
      console.log(
        `\nlog with ${APPENDERS} appenders: ${fmtRatio(groupVsSerial)} the raw one-row-per-commit rate, ${fmtRatio(groupVsParallel)} that of ${APPENDERS} raw connections; ` +
          `one appender's p50 durable append is ${fmtRatio(latencyVsCommit)} one raw commit's`,
      )
      console.log(
        `MCP writes: 1 client ${fmtRatio(mcpOneVsSerial)} the raw one-row-per-commit rate (p50 ${fmtRatio(mcpOneLatency)} a raw commit's); ` +
          `${mcpClients} clients ${fmtRatio(mcpManyVsSerial)} that rate (p50 ${fmtRatio(mcpManyLatency)}), ${fmtRatio(mcpManyVsParallel)} that of ${mcpClients} raw connections`,
      )
      // What one MCP write's latency is made of, at 1 client (no group commit to share): its write transactions, each
      // about one durable append of the log (measured alone in the same rounds), one after the other (the change waits
      // for its journal entry to be on disk); the rest is HTTP, JSON-RPC, the engine's and Yjs's work, on both sides.
      const allLatencies = (list: readonly Phase[]) => list.flatMap((phase) => phase.latencies)
      const commitsPerWrite = total(mcpOne, (phase) => phase.costs.transactions) / writesOf(mcpOne)
      const mcpP50 = percentile(allLatencies(mcpOne), 50)
      const appendP50 = percentile(allLatencies(single), 50)
      const rawP50 = percentile(allLatencies(serial), 50)
      const inCommits = commitsPerWrite * appendP50
      console.log(
        `one MCP write, 1 client: p50 ${fmtMs(mcpP50)}, ${commitsPerWrite.toFixed(2)} write transactions per write; at one durable append's p50 each (${fmtMs(appendP50)}; ` +
          `a raw commit's is ${fmtMs(rawP50)}) they account for ${fmtMs(inCommits)}; the other ${fmtMs(mcpP50 - inCommits)} is HTTP, JSON-RPC, the engine's and Yjs's work, and waiting for a core ` +
          `(node CPU ${perOp(mcpOne, (phase) => phase.costs.nodeCpuMs, 2)} ms, client CPU ${perOp(mcpOne, (phase) => phase.costs.benchCpuMs, 2)} ms per write)`,
      )
      return [
        { benchmark: 'postgres', name: `log ${APPENDERS} appenders / raw 1 row per commit`, ratio: groupVsSerial, target: '≥ 10x', met: groupVsSerial >= 10 },
        { benchmark: 'postgres', name: `log ${APPENDERS} appenders / raw ${APPENDERS} connections`, ratio: groupVsParallel, target: 'recorded', met: null },
        { benchmark: 'postgres', name: 'log 1 appender p50 / raw commit p50', ratio: latencyVsCommit, target: 'recorded', met: null },
        { benchmark: 'postgres', name: 'MCP writes/s, 1 client / raw 1 row per commit', ratio: mcpOneVsSerial, target: 'recorded', met: null },
        { benchmark: 'postgres', name: 'MCP write p50, 1 client / raw commit p50', ratio: mcpOneLatency, target: 'recorded', met: null },
        { benchmark: 'postgres', name: `MCP writes/s, ${mcpClients} clients / raw 1 row per commit`, ratio: mcpManyVsSerial, target: 'recorded', met: null },
        { benchmark: 'postgres', name: `MCP write p50, ${mcpClients} clients / raw commit p50`, ratio: mcpManyLatency, target: 'recorded', met: null },
        { benchmark: 'postgres', name: `MCP writes/s, ${mcpClients} clients / raw ${mcpClients} connections`, ratio: mcpManyVsParallel, target: 'recorded', met: null },
      ]
    } finally {
      await Promise.allSettled(writers.map((writer) => writer.client.close()))
      await Promise.allSettled([node?.stop(), probe?.end()])
      await server.stop()
    }
  },
}
