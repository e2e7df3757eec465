import { randomUUID } from 'node:crypto'
import pg from 'pg'
import type { EventRegistry } from '../../core/events/schema.js'
import { settlesWithin } from '../../core/deadline.js'
import { AppendPipeline, validateAppends, type AssignedStream } from '../../core/log/appendPipeline.js'
import { EventStoreError, InvalidAppendError, JournalWriteError, StoreClosedError } from '../../core/log/errors.js'
import type {
  AppendedBatch,
  EventLog,
  IntegrityReport,
  QuarantinedRecord,
  RecordedEvent,
  Snapshot,
  StreamAppend,
  StreamHead,
  StreamRange,
} from '../../core/log/eventLog.js'
import { addEventVersion, assertReadableBy, notCovered } from '../../core/log/eventVersions.js'
import { isValidStreamName } from '../../core/log/streamNames.js'
import { decodeChunk, encodeChunk } from '../../core/log/record.js'
import { checkChain, GENESIS, type ChainedLate, type ChainPoint, type StoredChunk } from '../../core/log/hashChain.js'
import { migrate, quotedSchema } from './schema.js'
import { asUnreachable, isUnreachable, LogUnreachableError } from './unreachable.js'
import { WriterLease } from './writerLease.js'

export interface PostgresEventLogOptions {
  readonly registry: EventRegistry
  /** The PostgreSQL schema holding the log's tables (created on open); default `quire`. */
  readonly schema?: string
  /** Clock for `at`; tests pin it. */
  readonly now?: () => number
  /** Wraps every write transaction (one per group-committed batch); tests use it to hold or fail writes. */
  readonly interceptWrite?: (write: () => Promise<void>) => Promise<void>
  /** Most events one transaction carries; the rest go in the next. */
  readonly maxBatchEvents?: number
  /** How long a batch whose transaction keeps failing is retried before it and everything behind it fail (default 5 s). */
  readonly writeRetryWindowMs?: number
  /** How long `close` waits for pending writes before failing them (default 5 s). */
  readonly closeTimeoutMs?: number
  /** Connections for reads, snapshots and head loads (the writer and the listener have their own); default 4. */
  readonly readConnections?: number
  /** How long a node keeps the writer lease under load before making way for a node that waits (default 100 ms). */
  readonly maxLeaseHoldMs?: number
  /** How long making a connection may take before it counts as failed (default 2 s). */
  readonly connectTimeoutMs?: number
  /**
   * How long an append waits for the writer lease at most, however slowly it comes (a lock another node does not let
   * go of, a database that does not answer), before it fails (default 10 s). Failures to take it are bounded by the
   * write retry window instead.
   */
  readonly leaseTimeoutMs?: number
}

/** One event as a row of `events`, the unit the group committer batches. */
interface EventRow {
  readonly position: number
  readonly stream: string
  readonly streamVersion: number
  readonly type: string
  /** The event's schema version (in `record` too), for `event_versions`. */
  readonly v: number
  readonly record: Buffer
  /** The record's link of the hash chain (core/log/hashChain.ts). */
  readonly link: Buffer
}

interface StoredRow {
  readonly position: number
  readonly stream: string
  readonly stream_version: number
  readonly record: Buffer
  /** Null only on a row a migration has not chained (none once the schema is at version 3). */
  readonly link: Buffer | null
}

const DEFAULT_CLOSE_TIMEOUT_MS = 5_000
/** The GroupCommitter's default, used for taking the lease too. */
const DEFAULT_WRITE_RETRY_WINDOW_MS = 5_000
const LEASE_RETRY_MS = 10
const DEFAULT_CONNECT_TIMEOUT_MS = 2_000
const DEFAULT_LEASE_TIMEOUT_MS = 10_000
/** Backoff for reconnecting the listener and for reading in other nodes' commits after a failed read. */
const RECONNECT_MIN_MS = 50
const RECONNECT_MAX_MS = 1_000
const CLOSE_GRACE_MS = 1_000
const PAGE = 1_000
const INT8_OID = 20
const WRITER = 'quire writer'
const LISTENER = 'quire listener'

/** Positions and versions are bigint columns; every value Quire stores is below 2^53, so plain numbers. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
}

/**
 * The log on PostgreSQL, for several Quire nodes sharing one log (the LevelDB EventStore is the log of one
 * process). The tables are in adapters/postgres/schema.ts; records use the LevelDB store's encoding, so damage,
 * quarantine and upcasting behave the same.
 *
 * Gap-free for readers. Positions come from one writer at a time: a node takes the writer lease (a session-level
 * advisory lock on its writer connection, adapters/postgres/writerLease.ts), catches up to the log's head, and
 * while it holds the lease assigns positions in memory, exactly as the LevelDB store does, so `append` resolves
 * before the transaction commits and appends arriving while a transaction runs go into the next one (group commit:
 * one statement, one COMMIT, for many appends). Its transactions run one after another on that one connection, so
 * they commit in position order: position n+1 is never committed, and never visible to any reader, before n. Each
 * transaction also moves the single-row `log_head` from the batch's first position - 1 to its last, so a writer
 * that lost its lease (its connection dropped) cannot write over positions another node took: its statement finds
 * the head moved and writes nothing. UNIQUE (stream, stream_version) backs the expected-version check the same way.
 * A node gives the lease up when its pipeline drains, or after `maxLeaseHoldMs` under load when another node waits.
 *
 * Reads serve what this node knows to be committed (`durableHeadPosition`): its own commits, and other nodes' as
 * their NOTIFY (sent in the committing transaction) or its next lease brings them in. Subscribers get both, in
 * position order.
 *
 * A transaction whose outcome is unknown (the write reported an error after reaching the database) is retried as
 * the LevelDB store retries a write: the retry finds its rows already there and counts it committed. When the log
 * gives up on it instead, it deletes whatever of it landed before the lease goes to anyone else, so it never shows
 * up; only if the node loses its connection before that can such a batch stay in the log (the same ambiguity as an
 * fsync that failed after the bytes reached the file).
 *
 * When PostgreSQL restarts or cannot be reached, nothing needs reopening: an append that cannot take the lease (or
 * whose batch keeps failing) fails with JournalWriteError within the write retry window, and once the database is
 * known to be down each later append fails after one attempt; reads that need the database fail with
 * LogUnreachableError while what this node holds in memory still answers; the LISTEN connection is made again by
 * itself and other nodes' commits read in by position, so subscribers miss none; the pool and the writer reconnect
 * on their next use.
 *
 * Needs a session-level connection (direct, or a pooler in session mode): the lease is a session lock.
 */
export class PostgresEventLog implements EventLog {
  /** `event_versions` as far as this node knows: read on open, grown by its own commits (other nodes' growth it may repeat). */
  private readonly recordedVersions: Map<string, number>
  private readonly pipeline: AppendPipeline<EventRow>
  private readonly lease: WriterLease
  private readonly instance = randomUUID()
  private readonly sql: Statements
  private readonly leaseKey: string
  private readonly channel: string
  /** A transaction the log gave up on may have committed: delete what it left before anything else is written. */
  private suspect = false
  private recovering: Promise<void> | undefined
  /** Other nodes' commits being read in, one catch-up after another. */
  private syncing: Promise<void> = Promise.resolve()
  private writerBroken = false
  private reconnecting: Promise<void> | undefined
  /** The connection holding this node's session lock, if any (taken once: PostgreSQL counts repeated locks). */
  private lockedOn: pg.Client | undefined
  /** The epoch the failed batches were assigned in. */
  private suspectEpoch = 0
  private readonly noteWrites = new Set<Promise<unknown>>()
  private released = false
  /**
   * Taking the lease failed for the whole retry window because the database could not be reached: until a
   * connection succeeds again, an append makes one attempt and fails at once instead of waiting another window.
   */
  private unreachable = false
  /** The LISTEN connection dropped: a new one is being made, after which other nodes' commits are read in. */
  private listenerDown = false
  private relistening: Promise<void> | undefined

  private constructor(
    private readonly pool: pg.Pool,
    private writer: pg.Client,
    private listener: pg.Client,
    private readonly connectionString: string,
    readonly schema: string,
    lastPosition: number,
    versions: ReadonlyMap<string, number>,
    chainHead: Uint8Array,
    private readonly options: PostgresEventLogOptions,
  ) {
    this.recordedVersions = new Map(versions)
    this.sql = statements(quotedSchema(schema))
    this.leaseKey = `quire.writer:${schema}`
    this.channel = `quire.events:${schema}`
    this.watchWriter(writer)
    this.lease = new WriterLease(
      {
        acquire: () => this.takeLease(),
        release: async () => {
          const client = this.writer
          this.lockedOn = undefined
          await client.query(this.sql.unlock, [this.leaseKey])
        },
        othersWaiting: async () => (await this.pool.query<{ waiting: boolean }>(this.sql.othersWaiting, [this.leaseKey])).rows[0]!.waiting,
      },
      {
        busy: () => this.pipeline.inFlight || this.suspect || this.recovering !== undefined,
        ...(options.maxLeaseHoldMs !== undefined ? { maxHoldMs: options.maxLeaseHoldMs } : {}),
      },
    )
    const intercept = options.interceptWrite
    this.pipeline = new AppendPipeline<EventRow>(
      lastPosition,
      {
        write: async (rows) => {
          if (this.released) throw new StoreClosedError()
          if (this.suspect) await this.recover()
          // A write that was held back (by the interceptor) past close must not land: its appends were failed as closed.
          const write = () => (this.released ? Promise.reject(new StoreClosedError()) : this.writeRows(rows))
          await (intercept ? intercept(write) : write())
        },
        loadHead: (stream) => this.loadHead(stream),
        committed: () => this.lease.settle(),
        rolledBack: (_, epoch) => this.rolledBack(epoch),
      },
      {
        registry: options.registry,
        chainHead,
        ...(options.now ? { now: options.now } : {}),
        maxOperations: options.maxBatchEvents ?? 4_096,
        ...(options.writeRetryWindowMs !== undefined ? { retryWindowMs: options.writeRetryWindowMs } : {}),
      },
    )
  }

  private get durablePosition(): number {
    return this.pipeline.durablePosition
  }

  /**
   * Opens the log in `options.schema` of the database at `connectionString`, creating or migrating its tables.
   * Refuses, with LogTooNewError, a log holding event types or versions `options.registry` cannot read, before it
   * writes anything.
   */
  static async open(connectionString: string, options: PostgresEventLogOptions): Promise<PostgresEventLog> {
    const schema = options.schema ?? 'quire'
    const s = quotedSchema(schema)
    const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS
    const pool = new pg.Pool({
      connectionString,
      max: options.readConnections ?? 4,
      types,
      application_name: 'quire reader',
      connectionTimeoutMillis: connectTimeoutMs,
      keepAlive: true,
    })
    // An idle connection that drops is replaced on the next query; the error itself is no one's to handle.
    pool.on('error', () => {})
    const clients: pg.Client[] = []
    try {
      const migrator = await pool.connect()
      try {
        await migrate(migrator, schema)
      } finally {
        migrator.release()
      }
      const { rows: versionRows } = await pool.query<{ type: string; version: number }>(`SELECT type, version FROM ${s}.event_versions`)
      const versions = new Map(versionRows.map(({ type, version }) => [type, version]))
      assertReadableBy(versions, options.registry, `the log in PostgreSQL schema ${schema}`)
      const writer = await connect(connectionString, WRITER, connectTimeoutMs)
      clients.push(writer)
      const listener = await connect(connectionString, LISTENER, connectTimeoutMs)
      clients.push(listener)
      const { rows } = await pool.query<{ position: number; link: Buffer | null }>(
        `SELECT h.position, e.link FROM ${s}.log_head h LEFT JOIN ${s}.events e ON e.position = h.position`,
      )
      const log = new PostgresEventLog(pool, writer, listener, connectionString, schema, rows[0]!.position, versions, rows[0]!.link ?? GENESIS, options)
      await log.listen(listener)
      // What other nodes committed before this node listened is read in now; what they commit later is notified.
      await log.syncTo((await pool.query<{ position: number }>(log.sql.head)).rows[0]!.position)
      await log.loadQuarantineNotes()
      return log
    } catch (error) {
      await Promise.allSettled([...clients.map((client) => client.end()), pool.end()])
      throw error
    }
  }

  /**
   * Reads the quarantine notes, judging each record again: a note stays while its record's bytes are damaged, and
   * goes when this reader decodes the record, or when it was only a reader's judgement (an older Quire's notes on
   * records it could not read): those must not be reported against a record a reader can decode.
   */
  private async loadQuarantineNotes(): Promise<void> {
    const { rows: notes } = await this.pool.query<{ position: number }>(this.sql.quarantined)
    if (notes.length === 0) return
    const { rows } = await this.pool.query<StoredRow>(this.sql.rowsAt, [notes.map((note) => note.position)])
    const damaged = new Set<number>()
    for (const row of rows) {
      const decoded = decodeRow(row, this.options.registry)
      if ('event' in decoded || !decoded.damaged) continue
      damaged.add(row.position)
      this.pipeline.quarantine(row.position, decoded.error, decoded.bytes)
    }
    const stale = notes.map((note) => note.position).filter((position) => !damaged.has(position))
    if (stale.length > 0) await this.pool.query(this.sql.dropNotes, [stale])
  }

  get headPosition(): number {
    return this.pipeline.nextPosition - 1
  }

  get durableHeadPosition(): number {
    return this.durablePosition
  }

  get isClosed(): boolean {
    return this.pipeline.isClosed
  }

  async append(appends: readonly StreamAppend[]): Promise<AppendedBatch> {
    this.assertWritable()
    validateAppends(appends)
    // Unknown types and invalid payloads are refused before the append waits for the writer lease.
    const versions = this.pipeline.prepareVersions(appends)
    const leave = await this.enterLease()
    try {
      this.assertWritable()
      try {
        // After a failed batch, nothing is assigned until what it may have left is dealt with.
        if (this.suspect) await this.recover()
        await this.pipeline.loadHeads(appends.map(({ stream }) => stream))
      } catch (error) {
        throw this.notRecorded(error)
      }
      this.assertWritable()
      return this.pipeline.assign(appends, this.rowsOf, versions)
    } finally {
      leave()
    }
  }

  /**
   * Waits for the writer lease: taking it fails after the write retry window of failed attempts (`takeLease`), and
   * waiting for it, however it goes, ends after `leaseTimeoutMs`. Either way the append fails as a write the log
   * could not make.
   */
  private async enterLease(): Promise<() => void> {
    const timeoutMs = this.options.leaseTimeoutMs ?? DEFAULT_LEASE_TIMEOUT_MS
    const entering = this.lease.enter()
    let timer: NodeJS.Timeout | undefined
    try {
      return await Promise.race([
        entering,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`the writer lease was not taken within ${timeoutMs} ms`)), timeoutMs)
        }),
      ])
    } catch (error) {
      // Granted after this append gave up: handed straight back, so an idle lease is released as usual.
      entering.then((leave) => leave(), () => {})
      throw this.notRecorded(error)
    } finally {
      clearTimeout(timer)
    }
  }

  /**
   * Why an append that got no positions failed: closing, the log's own refusals (as they are), or otherwise a write
   * the log could not make, as JournalWriteError (core answers it with JOURNAL_UNAVAILABLE: nothing was changed).
   * A read the append needed (a stream's head, catching up after a failed batch) that found the database unreachable
   * is the latter: LogUnreachableError is what a read answers, not an append.
   */
  private notRecorded(error: unknown): Error {
    if (this.isClosed) return new StoreClosedError()
    if (error instanceof EventStoreError && !(error instanceof LogUnreachableError)) return error
    return new JournalWriteError(this.pipeline.nextPosition, 'write-failed', { cause: error })
  }

  /**
   * The import path of `quire migrate`, not part of EventLog: appends events exactly as another log recorded them, at
   * their own positions, stream versions, schema versions, times and actors, payloads verbatim (neither checked nor
   * upcast: they were checked when first appended, and are copied as stored). They must continue this log: the
   * first at its next position, positions contiguous, each event its stream's next version, every type known to the
   * registry. Resolves once they are assigned, with the promise that says when they are durable (as `append`'s
   * batch does); subscribers of this log get them as given.
   */
  async importRecorded(events: readonly RecordedEvent[]): Promise<{ readonly durable: Promise<void> }> {
    this.assertWritable()
    if (events.length === 0) throw new InvalidAppendError('an import needs at least one event')
    for (const event of events) {
      if (!isValidStreamName(event.stream)) throw new InvalidAppendError(`invalid stream name ${JSON.stringify(event.stream)} at position ${event.position}`)
      if (!this.options.registry.has(event.type)) throw new InvalidAppendError(`unknown event type ${event.type} at position ${event.position}`)
    }
    const leave = await this.enterLease()
    try {
      this.assertWritable()
      try {
        if (this.suspect) await this.recover()
        await this.pipeline.loadHeads(new Set(events.map((event) => event.stream)))
      } catch (error) {
        throw this.notRecorded(error)
      }
      this.assertWritable()
      return { durable: this.assignRecorded(events) }
    } finally {
      leave()
    }
  }

  /** The synchronous half of an import, under the lease, as `assign` is of an append. */
  private assignRecorded(events: readonly RecordedEvent[]): Promise<void> {
    const heads = new Map<string, StreamHead>()
    events.forEach((event, index) => {
      const expected = this.pipeline.nextPosition + index
      if (event.position !== expected) {
        throw new InvalidAppendError(`an imported event has position ${event.position} where the log's next position is ${expected}`)
      }
      const head = heads.get(event.stream) ?? this.pipeline.heads.get(event.stream)!
      if (event.streamVersion !== head.version + 1) {
        throw new InvalidAppendError(`the imported event at position ${event.position} is version ${event.streamVersion} of ${event.stream}, whose head is version ${head.version}`)
      }
      heads.set(event.stream, { version: event.streamVersion, position: event.position })
    })
    const before = [...heads.keys()].map((stream) => [stream, this.pipeline.heads.get(stream)!] as const)
    const chainBefore = this.pipeline.chain
    return this.pipeline.register(events, before, events.map(this.rowOf), chainBefore)
  }

  /** One row per event, each its own one-record chunk, with its link of the chain (in position order). */
  private readonly rowOf = (event: RecordedEvent): EventRow => {
    const { position, type, v, stream, streamVersion } = event
    const record = encodeChunk([event])
    return { position, stream, streamVersion, type, v, record: asBuffer(record), link: asBuffer(this.pipeline.link(position, record)) }
  }

  private readonly rowsOf = (assigned: readonly AssignedStream[]): EventRow[] => assigned.flatMap(({ events }) => events.map(this.rowOf))

  /**
   * One batch as one statement, so one transaction and one COMMIT: it moves `log_head` from the batch's first
   * position - 1 to its last and inserts the rows only if that move happened (with `event_versions` grown for the
   * types at versions this node does not know recorded), and notifies other nodes on commit.
   * When the head was not where the batch expects it, either an earlier attempt of this very batch committed (its
   * answer was lost: the rows are there, byte for byte) or another writer took the positions.
   */
  private async writeRows(rows: readonly EventRow[]): Promise<void> {
    const first = rows[0]!.position
    const last = rows[rows.length - 1]!.position
    const heads = new Map<string, { version: number; position: number }>()
    for (const row of rows) heads.set(row.stream, { version: row.streamVersion, position: row.position })
    const grown = new Map<string, number>()
    for (const row of rows) if ((this.recordedVersions.get(row.type) ?? 0) < row.v) addEventVersion(grown, row.type, row.v)
    const client = await this.writerConnection(true)
    // A named statement: parsed and planned once per writer connection, not once per batch (about a sixth of a
    // 64-row batch's time in PostgreSQL).
    const { rows: [outcome] } = await client.query<{ moved: boolean; previous: number }>({ name: 'quire-write-batch', text: this.sql.writeBatch }, [
      first,
      last,
      rows.map((row) => row.position),
      rows.map((row) => row.stream),
      rows.map((row) => row.streamVersion),
      rows.map((row) => row.type),
      rows.map((row) => row.record),
      [...heads.keys()],
      [...heads.values()].map((head) => head.version),
      [...heads.values()].map((head) => head.position),
      this.channel,
      `${this.instance} ${last}`,
      [...grown.keys()],
      [...grown.values()],
      rows.map((row) => row.link),
    ])
    const committed = () => {
      for (const [type, v] of grown) addEventVersion(this.recordedVersions, type, v)
    }
    if (outcome!.moved) return committed()
    if (outcome!.previous >= last) {
      const { rows: found } = await client.query<{ position: number; record: Buffer }>(this.sql.recordsAt, [[first, last]])
      const landed = (position: number, record: Buffer) => found.some((row) => row.position === position && row.record.equals(record))
      if (landed(first, rows[0]!.record) && landed(last, rows[rows.length - 1]!.record)) return committed()
    }
    throw new PositionsTakenError(first, last, outcome!.previous)
  }

  /**
   * The writer connection, reconnected after it dropped. The session lock went with the old connection: a write in
   * the pipeline (`relock`) takes it again before it goes on, and its statement's head guard finds out whether
   * another node wrote meanwhile; taking the lease afresh locks by itself.
   */
  private async writerConnection(relock: boolean): Promise<pg.Client> {
    // Once released, the writer stays ended: a connection made now would write after close said it was done.
    if (this.released) throw new StoreClosedError()
    while (this.writerBroken) {
      this.reconnecting ??= (async () => {
        const client = await connect(this.connectionString, WRITER, this.connectTimeoutMs)
        if (this.released) {
          void client.end().catch(() => {})
          throw new StoreClosedError()
        }
        void this.writer.end().catch(() => {})
        this.writer = client
        this.writerBroken = false
        this.unreachable = false
        this.watchWriter(client)
      })().finally(() => (this.reconnecting = undefined))
      await this.reconnecting
    }
    const client = this.writer
    if (relock && this.lockedOn !== client) await this.lockOn(client)
    return client
  }

  private async lockOn(client: pg.Client): Promise<void> {
    await client.query(this.sql.lock, [this.leaseKey])
    this.lockedOn = client
    // A batch assigned in an older epoch was assigned under a lease since lost.
    this.pipeline.epoch++
  }

  private watchWriter(client: pg.Client): void {
    const broken = () => {
      if (client !== this.writer) return
      this.writerBroken = true
      if (this.lockedOn === client) this.lockedOn = undefined
      // The session lock went with the connection; the batches in the pipeline find out at their next attempt.
      if (!this.pipeline.inFlight) this.lease.lost()
    }
    client.on('error', broken)
    client.on('end', broken)
  }

  /**
   * Takes the writer lease on the writer connection and catches up with what other nodes committed meanwhile. A
   * connection that drops on the way is replaced and the whole step tried again, for the write retry window from
   * the first failure (as the group committer retries a batch).
   */
  private async takeLease(): Promise<void> {
    const windowMs = this.options.writeRetryWindowMs ?? DEFAULT_WRITE_RETRY_WINDOW_MS
    let deadline: number | undefined
    for (let delay = LEASE_RETRY_MS; ; delay = Math.min(delay * 2, 1_000)) {
      if (this.released || this.isClosed) throw new StoreClosedError()
      try {
        const client = await this.writerConnection(false)
        if (this.lockedOn !== client) await this.lockOn(client)
        const { rows } = await client.query<{ position: number }>(this.sql.head)
        await this.syncTo(rows[0]!.position)
        this.unreachable = false
        return
      } catch (error) {
        // A database already known to be down gets one attempt per append, not another window of waiting.
        deadline ??= Date.now() + windowMs
        if (this.unreachable || Date.now() + delay > deadline) {
          if (isUnreachable(error)) this.unreachable = true
          throw error
        }
        await new Promise((resolve) => setTimeout(resolve, delay))
      }
    }
  }

  private get connectTimeoutMs(): number {
    return this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS
  }

  /** The pipeline took back the failed appends' positions; `epoch` is the one the earliest of them was assigned in. */
  private rolledBack(epoch: number): void {
    this.suspectEpoch = epoch
    // A failed transaction may have committed after all: remove what it left while the lease is still ours.
    this.suspect = true
    if (!this.released) this.recover().catch(() => {})
  }

  /**
   * Deletes every row past the durable head, and puts `log_head` and the heads of the streams those rows touched back
   * where the durable log has them; only while the lease has been this node's since the failed batches were
   * assigned, since then nothing past the durable head is anyone else's. When the lease was lost meanwhile (the
   * connection dropped), what lies past the durable head may be other nodes' events, built on whatever of this
   * node's landed: it is read in as the log instead.
   */
  private recover(): Promise<void> {
    this.recovering ??= (async () => {
      const epoch = this.suspectEpoch
      const client = await this.writerConnection(true)
      if (this.pipeline.epoch === epoch) {
        await client.query(this.sql.removeAfter, [this.durablePosition])
      } else {
        const { rows } = await client.query<{ position: number }>(this.sql.head)
        await this.syncTo(rows[0]!.position)
      }
      this.suspect = false
    })().finally(() => {
      this.recovering = undefined
      this.lease.settle()
    })
    return this.recovering
  }

  /** Hears other nodes' commits on `client` (which is `this.listener`); a connection that drops is replaced. */
  private async listen(client: pg.Client): Promise<void> {
    client.on('notification', ({ channel, payload }) => {
      if (channel !== this.channel || !payload) return
      const [instance, position] = payload.split(' ')
      if (instance === this.instance) return
      const target = Number(position)
      if (Number.isSafeInteger(target) && target > this.durablePosition) void this.readInOthers(() => Promise.resolve(target))
    })
    const lost = () => {
      if (client !== this.listener || this.released || this.isClosed) return
      this.listenerDown = true
      this.relistening ??= this.relisten().finally(() => (this.relistening = undefined))
    }
    client.on('error', lost)
    client.on('end', lost)
    await client.query(`LISTEN "${this.channel}"`)
  }

  /**
   * Makes a new LISTEN connection, with backoff while the database is down, then reads in what other nodes
   * committed while nobody listened (a notification sent then is lost). Subscribers get those events as they get
   * any other node's: in position order, after the ones they have, each once.
   */
  private async relisten(): Promise<void> {
    for (let delay = RECONNECT_MIN_MS; this.listenerDown && !this.released && !this.isClosed; delay = Math.min(delay * 2, RECONNECT_MAX_MS)) {
      await pause(delay)
      if (this.released || this.isClosed) return
      let client: pg.Client | undefined
      try {
        client = await connect(this.connectionString, LISTENER, this.connectTimeoutMs)
        if (this.released || this.isClosed) {
          void client.end().catch(() => {})
          return
        }
        void this.listener.end().catch(() => {})
        this.listener = client
        this.listenerDown = false
        await this.listen(client)
        this.unreachable = false
      } catch {
        // Tried again while the listener is down (a LISTEN that failed on a live connection counts as down too).
        if (client && client === this.listener) this.listenerDown = true
        continue
      }
      await this.readInOthers(async () => (await this.query<{ position: number }>('reading the log head', this.sql.head)).rows[0]!.position)
    }
  }

  /**
   * Reads in other nodes' commits up to the position `target` gives, trying again with backoff while the database
   * cannot be reached, until it succeeds or the log closes.
   */
  private async readInOthers(target: () => Promise<number>): Promise<void> {
    for (let delay = RECONNECT_MIN_MS; !this.released && !this.isClosed; delay = Math.min(delay * 2, RECONNECT_MAX_MS)) {
      try {
        await this.syncTo(await target())
        return
      } catch {
        await pause(delay)
      }
    }
  }

  /**
   * A query on the reader pool. A pooled connection cut by a restart may not have been noticed yet, so a query that
   * finds the database unreachable is tried once more on a fresh connection; after that it fails as
   * LogUnreachableError (reads are queries that can be repeated).
   */
  private async query<Row extends pg.QueryResultRow>(operation: string, text: string, values: readonly unknown[] = []): Promise<pg.QueryResult<Row>> {
    try {
      return await this.pool.query<Row>(text, [...values])
    } catch (error) {
      if (!isUnreachable(error)) throw error
    }
    try {
      return await this.pool.query<Row>(text, [...values])
    } catch (error) {
      throw asUnreachable(operation, error)
    }
  }

  /**
   * Reads in what other nodes committed up to `target`: their events become durable here, stream heads follow them,
   * and subscribers get them. Only while this node has nothing of its own in flight (it then holds no lease, or has
   * just taken it), so other nodes' positions and its own never interleave in memory.
   */
  private syncTo(target: number): Promise<void> {
    const run = async () => {
      while (this.durablePosition < target && !this.pipeline.inFlight && !this.released) {
        const { rows } = await this.query<StoredRow>('reading other nodes\' commits', this.sql.readAll, [this.durablePosition, target, PAGE])
        if (rows.length === 0) return
        if (this.pipeline.inFlight) return
        const events: RecordedEvent[] = []
        const heads = new Map<string, StreamHead>()
        for (const row of rows) {
          heads.set(row.stream, { version: row.stream_version, position: row.position })
          const event = this.decodeRow(row)
          if (event) events.push(event)
        }
        const last = rows[rows.length - 1]!
        this.pipeline.readIn(events, heads, last.position, last.link ?? undefined)
      }
    }
    const next = this.syncing.then(run, run)
    this.syncing = next.catch(() => {})
    return next
  }

  /** Reads the log's head as the database has it now and reads in other nodes' commits up to it. */
  async caughtUp(): Promise<void> {
    this.assertReadable()
    const { rows } = await this.query<{ position: number }>('reading the log head', this.sql.head)
    await this.syncTo(rows[0]!.position)
  }

  streamHead(stream: string): Promise<StreamHead> {
    return this.pipeline.streamHead(stream)
  }

  private async loadHead(stream: string): Promise<StreamHead> {
    this.assertReadable()
    const { rows } = await this.query<{ stream_version: number; position: number }>(`reading the head of ${stream}`, this.sql.streamHead, [stream, this.durablePosition])
    return rows[0] ? { version: rows[0].stream_version, position: rows[0].position } : { version: 0, position: 0 }
  }

  async *readStream(stream: string, range: StreamRange = {}): AsyncGenerator<RecordedEvent> {
    this.assertReadable()
    const from = Math.max(1, range.fromVersion ?? 1)
    const to = Math.min(range.toVersion ?? Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)
    // Taken in one step before the database is read: an event committed meanwhile is in `pending` too, so the rows up
    // to `durable` plus `pending` miss none.
    const { pending, durable } = this.pipeline.pendingOf(stream)
    let cursor = from - 1
    let lastVersion = from - 1
    for (;;) {
      const { rows } = await this.query<StoredRow>(`reading ${stream}`, this.sql.readStream, [stream, cursor, to, durable, PAGE])
      for (const row of rows) {
        const event = this.decodeRow(row)
        if (!event) continue
        lastVersion = event.streamVersion
        yield event
      }
      if (rows.length < PAGE) break
      cursor = rows[rows.length - 1]!.stream_version
    }
    for (const event of pending) {
      if (event.streamVersion > lastVersion && event.streamVersion >= from && event.streamVersion <= to) yield event
    }
  }

  async *readAll(after = 0, options: { readonly to?: number } = {}): AsyncGenerator<RecordedEvent> {
    this.assertReadable()
    const to = Math.min(options.to ?? Number.MAX_SAFE_INTEGER, this.durablePosition)
    let cursor = after
    while (cursor < to) {
      const { rows } = await this.query<StoredRow>('reading the log', this.sql.readAll, [cursor, to, PAGE])
      for (const row of rows) {
        const event = this.decodeRow(row)
        if (event) yield event
      }
      if (rows.length < PAGE) break
      cursor = rows[rows.length - 1]!.position
    }
  }

  async readEvent(position: number): Promise<RecordedEvent | undefined> {
    this.assertReadable()
    const pending = this.pipeline.pendingAt(position)
    if (pending) return pending
    for await (const event of this.readAll(position - 1, { to: position })) return event
    return undefined
  }

  async *streams(prefix = ''): AsyncGenerator<{ stream: string; head: StreamHead }> {
    this.assertReadable()
    const durable = this.durablePosition
    const listed = new Set<string>()
    const { rows } = await this.query<{ stream: string; version: number; position: number }>('listing streams', this.sql.streams, [prefix])
    for (const row of rows) {
      listed.add(row.stream)
      let head: StreamHead | undefined = this.pipeline.heads.get(row.stream)
      // A row past what this node knows is durable (another node's commit on its way, or a failed batch's leftover)
      // is not the head yet; the durable one is read instead.
      if (!head) head = row.position <= durable ? { version: row.version, position: row.position } : await this.streamHead(row.stream)
      if (head.version > 0) yield { stream: row.stream, head }
    }
    // Streams created by appends not committed yet.
    yield* this.pipeline.unlisted(prefix, listed)
  }

  /** The event in `row`, or undefined (and quarantined) when its record cannot be decoded or read. */
  private decodeRow(row: StoredRow): RecordedEvent | undefined {
    const decoded = decodeRow(row, this.options.registry)
    if ('event' in decoded) return decoded.event
    this.quarantine(row.position, decoded.error, decoded.bytes, decoded.damaged)
    return undefined
  }

  /**
   * Reports a record this node cannot decode. Damaged bytes are damaged for every reader: noted in `quarantine` too.
   * Anything else (a type, version or payload this registry refuses) is this reader's judgement, not a fact of the
   * record: reported by this instance only, never noted where another node would take it for the record's.
   */
  private quarantine(position: number, reason: string, bytes: number, damaged: boolean): void {
    if (!this.pipeline.quarantine(position, reason, bytes) || this.released || !damaged) return
    // The note is a report, not part of the log: losing it only means finding the damage again.
    const note = this.pool.query(this.sql.quarantine, [position, reason, bytes]).catch(() => {})
    this.noteWrites.add(note)
    void note.finally(() => this.noteWrites.delete(note))
  }

  quarantinedRecords(): QuarantinedRecord[] {
    return this.pipeline.quarantinedRecords()
  }

  subscribe(after: number, handler: (event: RecordedEvent) => void | Promise<void>): () => void {
    return this.pipeline.subscribe(after, handler, (from, options) => this.readAll(from, options), () => this.released)
  }

  /** Snapshots are derived data: committed without waiting for the WAL flush, and never required. */
  async saveSnapshot(projection: string, key: string, snapshot: Snapshot): Promise<void> {
    this.assertReadable()
    await this.inTransaction(`saving the ${projection} snapshot`, 'BEGIN', async (client) => {
      await client.query('SET LOCAL synchronous_commit TO OFF')
      await client.query(this.sql.saveSnapshot, [projection, key, snapshot.position, asBuffer(snapshot.payload)])
    })
  }

  /**
   * Runs `body` in one transaction on a pooled connection of its own (begun with `begin`), committed if it returns;
   * rolled back if it throws, which it rethrows as LogUnreachableError when the database dropped (that connection
   * then leaves the pool instead of going back to it).
   */
  private async inTransaction<T>(operation: string, begin: string, body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect().catch((error: unknown) => {
      throw asUnreachable(operation, error)
    })
    let broken: Error | undefined
    try {
      await client.query(begin)
      const result = await body(client)
      await client.query('COMMIT')
      return result
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {})
      if (isUnreachable(error)) broken = error as Error
      throw asUnreachable(operation, error)
    } finally {
      client.release(broken)
    }
  }

  async loadSnapshot(projection: string, key: string): Promise<Snapshot | undefined> {
    this.assertReadable()
    const { rows } = await this.query<{ position: number; payload: Buffer }>(`loading the ${projection} snapshot`, this.sql.loadSnapshot, [projection, key])
    const row = rows[0]
    return row ? { position: row.position, payload: new Uint8Array(row.payload) } : undefined
  }

  async clearSnapshots(projection: string): Promise<void> {
    this.assertReadable()
    await this.query(`clearing the ${projection} snapshots`, this.sql.clearSnapshots, [projection])
  }

  /**
   * Reads the whole log in one REPEATABLE READ snapshot, so other nodes committing meanwhile (or a check run while
   * this node writes) never make the events, `log_head` and `streams` disagree; the snapshot may be ahead of what
   * this node has heard, never behind it.
   */
  async checkIntegrity(options: { readonly against?: ChainPoint } = {}): Promise<IntegrityReport> {
    this.assertReadable()
    await this.flush()
    await this.recovering?.catch(() => {})
    return this.inTransaction('checking the log', 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', (client) => this.checkWithin(client, options.against))
  }

  /** Every row in position order as the chain checks it: each its own one-record chunk, with its link. */
  private async *storedChunks(client: pg.PoolClient): AsyncGenerator<StoredChunk> {
    for (let cursor = 0; ; ) {
      const { rows } = await client.query<StoredRow>(this.sql.readAll, [cursor, Number.MAX_SAFE_INTEGER, PAGE])
      for (const row of rows) yield { firstPosition: row.position, chunk: row.record, links: row.link ?? undefined }
      if (rows.length < PAGE) return
      cursor = rows[rows.length - 1]!.position
    }
  }

  private async checkWithin(client: pg.PoolClient, against: ChainPoint | undefined): Promise<IntegrityReport> {
    const problems: string[] = []
    const durable = this.durablePosition
    const lastOfStream = new Map<string, { version: number; position: number }>()
    /** Each stream's last event this node counts durable, what its in-memory head must be. */
    const lastKnown = new Map<string, { version: number; position: number }>()
    /** The newest version of each type the records hold, with a position holding it. */
    const held = new Map<string, { v: number; position: number }>()
    let expected = 1
    let events = 0
    let cursor = 0
    for (;;) {
      const { rows } = await client.query<StoredRow>(this.sql.readAll, [cursor, Number.MAX_SAFE_INTEGER, PAGE])
      for (const row of rows) {
        if (row.position !== expected) problems.push(`positions ${expected}..${row.position - 1} are missing`)
        expected = row.position + 1
        const previous = lastOfStream.get(row.stream)
        if ((previous?.version ?? 0) + 1 !== row.stream_version) {
          problems.push(`${row.stream} jumps from version ${previous?.version ?? 0} to ${row.stream_version} at position ${row.position}`)
        }
        const last = { version: row.stream_version, position: row.position }
        lastOfStream.set(row.stream, last)
        if (row.position <= durable) lastKnown.set(row.stream, last)
        const decoded = decodeRow(row, this.options.registry)
        if ('event' in decoded) {
          events++
          const { type, v } = decoded.event
          if ((held.get(type)?.v ?? 0) < v) held.set(type, { v, position: row.position })
        } else {
          problems.push(`record at position ${row.position} ${decoded.damaged ? 'is damaged' : 'cannot be read'}: ${decoded.error}`)
          this.quarantine(row.position, decoded.error, decoded.bytes, decoded.damaged)
        }
      }
      if (rows.length < PAGE) break
      cursor = rows[rows.length - 1]!.position
    }
    const end = expected - 1
    if (end < durable) problems.push(`the log ends at ${end} but this node believes its head is ${durable}`)
    const { rows: headRows } = await client.query<{ position: number }>(this.sql.head)
    if (headRows[0]!.position !== end) problems.push(`log_head says ${headRows[0]!.position}, the log ends at ${end}`)
    const { rows: streamRows } = await client.query<{ stream: string; version: number; position: number }>(this.sql.streams, [''])
    for (const row of streamRows) {
      const last = lastOfStream.get(row.stream)
      if (!last || row.version !== last.version || row.position !== last.position) {
        problems.push(`streams row of ${row.stream} says version ${row.version} at ${row.position}, log says ${last?.version ?? 0} at ${last?.position ?? 0}`)
      }
    }
    const { rows: versionRows } = await client.query<{ type: string; version: number }>(this.sql.eventVersions)
    const recorded = new Map(versionRows.map(({ type, version }) => [type, version]))
    for (const [type, { v, position }] of held) {
      const uncovered = notCovered(recorded, type, v, position)
      if (uncovered) problems.push(uncovered)
    }
    const tabled = new Set(streamRows.map((row) => row.stream))
    for (const stream of lastOfStream.keys()) if (!tabled.has(stream)) problems.push(`${stream} has events but no streams row`)
    for (const [stream, head] of this.pipeline.heads) {
      if (head.position > durable) continue
      const last = lastKnown.get(stream)
      if ((last?.version ?? 0) !== head.version || (last?.position ?? 0) !== head.position) {
        problems.push(`head of ${stream} says version ${head.version} at ${head.position}, log says ${last?.version ?? 0} at ${last?.position ?? 0}`)
      }
    }
    const { rows: late } = await client.query<{ from_position: number; to_position: number; at: number }>(this.sql.chainedLate)
    const chainedLate: ChainedLate[] = late.map((row) => ({ from: row.from_position, to: row.to_position, at: row.at }))
    const chain = await checkChain(this.storedChunks(client), end, chainedLate, against)
    return { events, streams: lastOfStream.size, head: durable, problems, quarantined: this.quarantinedRecords(), chain }
  }

  async flush(): Promise<void> {
    await this.pipeline.flush()
  }

  /**
   * Pending appends get their transaction (a failing one no more retries); a database that does not answer within
   * the close timeout fails them. The steps share one deadline, so a database that hangs holds shutdown for about
   * the close timeout.
   */
  close(): Promise<void> {
    return this.pipeline.close(this.options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS, (left) => this.release(left))
  }

  private async release(left: () => number): Promise<void> {
    // A transaction given up on may have committed: remove it now, while the lease is still this node's.
    if (this.suspect || this.recovering) await settlesWithin(this.recover(), left())
    await settlesWithin(Promise.allSettled([...this.noteWrites]), left())
    this.released = true
    // Ending the writer's session releases the lease; a statement under way is cut off with it.
    const grace = Math.max(left(), CLOSE_GRACE_MS)
    await settlesWithin(Promise.allSettled([this.writer.end(), this.listener.end(), this.pool.end()]), grace)
  }

  private assertWritable(): void {
    if (this.isClosed) throw new StoreClosedError()
  }

  private assertReadable(): void {
    if (this.released) throw new StoreClosedError()
  }
}

/** Another writer took positions this node had assigned: the batch can never land at them. */
export class PositionsTakenError extends Error {
  override name = 'PositionsTakenError'
  constructor(first: number, last: number, head: number) {
    super(`positions ${first}..${last} cannot be written: the log's head is at ${head}, another writer took them`)
  }
}

/**
 * The event a row holds, upcast by `registry`, or why it cannot be had: `damaged` when the bytes are not what was
 * written (for every reader), not when only this registry cannot read them.
 */
function decodeRow(
  row: StoredRow,
  registry: EventRegistry,
): { readonly event: RecordedEvent } | { readonly error: string; readonly bytes: number; readonly damaged: boolean } {
  let entries
  try {
    entries = decodeChunk(row.record)
  } catch (error) {
    return { error: (error as Error).message, bytes: row.record.length, damaged: true }
  }
  const entry = entries[0]
  if (entries.length !== 1 || !entry) return { error: `the record holds ${entries.length} events, not one`, bytes: row.record.length, damaged: true }
  if ('error' in entry) return entry
  const stored = entry.event
  if (stored.stream !== row.stream || stored.streamVersion !== row.stream_version) {
    return { error: `the record says ${stored.stream} version ${stored.streamVersion}, its row ${row.stream} version ${row.stream_version}`, bytes: entry.bytes, damaged: true }
  }
  try {
    return { event: { position: row.position, ...stored, data: registry.read(stored.type, stored.v, stored.data) } }
  } catch (error) {
    return { error: (error as Error).message, bytes: entry.bytes, damaged: false }
  }
}


/** Connections say what they are in pg_stat_activity (`application_name`): reader, writer or listener. */
async function connect(connectionString: string, role: string, timeoutMs: number): Promise<pg.Client> {
  const client = new pg.Client({ connectionString, types, application_name: role, connectionTimeoutMillis: timeoutMs, keepAlive: true })
  client.on('error', () => {})
  await client.connect()
  return client
}

/** A wait that does not keep the process alive: the loops using it stop by themselves once the log closes. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref())
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

type Statements = ReturnType<typeof statements>

function statements(s: string) {
  return {
    head: `SELECT position FROM ${s}.log_head`,
    lock: 'SELECT pg_advisory_lock(hashtextextended($1, 0))',
    unlock: 'SELECT pg_advisory_unlock(hashtextextended($1, 0))',
    // Data-modifying CTEs run once each, all on one snapshot; the outer query still sees log_head as it was.
    writeBatch: `
      WITH moved AS (
        UPDATE ${s}.log_head SET position = $2 WHERE position = $1 - 1 RETURNING position
      ), inserted AS (
        INSERT INTO ${s}.events (position, stream, stream_version, type, record, link)
        SELECT * FROM unnest($3::bigint[], $4::text[], $5::bigint[], $6::text[], $7::bytea[], $15::bytea[])
        WHERE EXISTS (SELECT 1 FROM moved)
      ), heads AS (
        INSERT INTO ${s}.streams (stream, version, position)
        SELECT * FROM unnest($8::text[], $9::bigint[], $10::bigint[])
        WHERE EXISTS (SELECT 1 FROM moved)
        ON CONFLICT (stream) DO UPDATE SET version = excluded.version, position = excluded.position
      ), versions AS (
        INSERT INTO ${s}.event_versions (type, version)
        SELECT * FROM unnest($13::text[], $14::integer[])
        WHERE EXISTS (SELECT 1 FROM moved)
        ON CONFLICT (type) DO UPDATE SET version = GREATEST(${s}.event_versions.version, excluded.version)
      )
      SELECT EXISTS (SELECT 1 FROM moved) AS moved,
             (SELECT position FROM ${s}.log_head) AS previous,
             CASE WHEN EXISTS (SELECT 1 FROM moved) THEN pg_notify($11, $12) END AS notified`,
    recordsAt: `SELECT position, record FROM ${s}.events WHERE position = ANY($1::bigint[])`,
    chainedLate: `SELECT from_position, to_position, at FROM ${s}.chained_late ORDER BY from_position`,
    rowsAt: `SELECT position, stream, stream_version, record FROM ${s}.events WHERE position = ANY($1::bigint[])`,
    // The streams whose rows go; each gets back the head its remaining events give it, or goes when none remain.
    removeAfter: `
      WITH removed AS (
        DELETE FROM ${s}.events WHERE position > $1 RETURNING stream
      ), head AS (
        UPDATE ${s}.log_head SET position = $1 WHERE position > $1
      ), touched AS (
        SELECT DISTINCT stream FROM removed
      ), restored AS (
        UPDATE ${s}.streams AS st SET version = last.stream_version, position = last.position
        FROM touched, LATERAL (
          SELECT stream_version, position FROM ${s}.events e
          WHERE e.stream = touched.stream AND e.position <= $1 ORDER BY stream_version DESC LIMIT 1
        ) AS last
        WHERE st.stream = touched.stream
      )
      DELETE FROM ${s}.streams AS st USING touched
      WHERE st.stream = touched.stream
        AND NOT EXISTS (SELECT 1 FROM ${s}.events e WHERE e.stream = touched.stream AND e.position <= $1)`,
    readAll: `SELECT position, stream, stream_version, record, link FROM ${s}.events WHERE position > $1 AND position <= $2 ORDER BY position LIMIT $3`,
    readStream: `
      SELECT position, stream, stream_version, record FROM ${s}.events
      WHERE stream = $1 AND stream_version > $2 AND stream_version <= $3 AND position <= $4
      ORDER BY stream_version LIMIT $5`,
    streamHead: `
      SELECT stream_version, position FROM ${s}.events
      WHERE stream = $1 AND position <= $2 ORDER BY stream_version DESC LIMIT 1`,
    streams: `SELECT stream, version, position FROM ${s}.streams WHERE starts_with(stream, $1)`,
    quarantine: `INSERT INTO ${s}.quarantine (position, reason, bytes) VALUES ($1, $2, $3) ON CONFLICT (position) DO NOTHING`,
    quarantined: `SELECT position FROM ${s}.quarantine ORDER BY position`,
    dropNotes: `DELETE FROM ${s}.quarantine WHERE position = ANY($1::bigint[])`,
    eventVersions: `SELECT type, version FROM ${s}.event_versions`,
    saveSnapshot: `
      INSERT INTO ${s}.snapshots (projection, key, position, payload) VALUES ($1, $2, $3, $4)
      ON CONFLICT (projection, key) DO UPDATE SET position = excluded.position, payload = excluded.payload`,
    loadSnapshot: `SELECT position, payload FROM ${s}.snapshots WHERE projection = $1 AND key = $2`,
    clearSnapshots: `DELETE FROM ${s}.snapshots WHERE projection = $1`,
    othersWaiting: `
      SELECT EXISTS (
        SELECT 1 FROM pg_locks
        WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND classid::text::bigint = (key.k >> 32) & 4294967295 AND objid::text::bigint = key.k & 4294967295
      ) AS waiting
      FROM (SELECT hashtextextended($1, 0) AS k) AS key`,
  }
}
