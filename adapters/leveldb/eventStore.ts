import { readFile, writeFile, mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { ClassicLevel } from 'classic-level'
import * as encoding from 'lib0/encoding'
import * as decoding from 'lib0/decoding'
import type { EventRegistry } from '../../core/events/schema.js'
import { settlesWithin } from '../../core/deadline.js'
import { DataDirLockedError, StoreClosedError } from '../../core/log/errors.js'
import {
  addEventVersion,
  assertReadableBy,
  decodeEventVersions,
  encodeEventVersions,
  NO_EVENT_VERSIONS,
  notCovered,
  withEventVersion,
  type EventVersions,
} from '../../core/log/eventVersions.js'
import { readEventVersionsFile, writeEventVersionsFile } from './eventVersionsFile.js'
import type {
  AppendedBatch,
  QuarantinedRecord,
  AppendedStream,
  AppendOptions,
  EventInput,
  EventLog,
  IntegrityReport,
  RecordedEvent,
  Snapshot,
  StreamAppend,
  StreamHead,
  StreamRange,
} from '../../core/log/eventLog.js'
import { AppendPipeline, type AssignedStream } from '../../core/log/appendPipeline.js'
import type { BatchOperation } from '../../core/log/groupCommit.js'
import * as keys from './keys.js'
import { decodeChunk, encodeChunk, RecordDecodeError, varUintSize, writeVarUintAt, type ChunkEntry, type StoredEvent } from '../../core/log/record.js'
import { chunkLinks, checkChain, GENESIS, lastLink, LINK_BYTES, type ChainedLate, type ChainPoint, type StoredChunk } from '../../core/log/hashChain.js'
import { probeSpace } from './spaceProbe.js'


/** LevelDB only: what `enqueue` and `enqueueAtomic` return for one stream. */
export interface EnqueuedAppend extends Omit<AppendedStream, 'stream'> {
  /** The batch's `durable` (see AppendedBatch): resolves once on disk, rejects with JournalWriteError if never. */
  readonly durable: Promise<void>
}

/** LevelDB only: what `appendToStream` resolves with. */
export interface AppendResult extends Omit<AppendedStream, 'stream'> {
  readonly lastEventGlobalPosition: number
}

export interface EventStoreOptions {
  readonly registry: EventRegistry
  /** Clock for `at`; tests pin it. */
  readonly now?: () => number
  /** Wraps every batch write; tests use it to inject slow or failing disks. */
  readonly interceptWrite?: (write: () => Promise<void>, operations: readonly BatchOperation[]) => Promise<void>
  readonly maxBatchOperations?: number
  /** How long a batch whose writes keep failing is retried before it and everything behind it fail (default 5 s). */
  readonly writeRetryWindowMs?: number
  /** How long `close` waits for pending writes (and a reopen after a failed write) before failing them (default 5 s). */
  readonly closeTimeoutMs?: number
}

const DEFAULT_CLOSE_TIMEOUT_MS = 5_000
const CLOSE_GRACE_MS = 1_000

type Database = ClassicLevel<Uint8Array, Uint8Array>

interface KeyRange {
  readonly gt?: Uint8Array
  readonly gte?: Uint8Array
  readonly lt?: Uint8Array
  readonly lte?: Uint8Array
  readonly reverse?: boolean
  readonly limit?: number
}

const PAGE = 1024

/**
 * The log on LevelDB: one database holding every event under a global, gap-free position, with per-stream indexes
 * and heads for optimistic concurrency (Emmett's `appendToStream` shape), group-committed synced writes, live
 * subscriptions after catch-up, quarantine of undecodable records, and a keyspace for projection snapshots.
 *
 * Positions are assigned in memory, synchronously, so the `enqueue*` methods (LevelDB only) can hand callers their
 * events in log order before the write lands. A write the disk keeps refusing fails after a bounded time: the store
 * then takes back every position after the durable head (heads, next position, the subscribers' pending tail), and
 * since LevelDB refuses every later write once one synced write failed, it reopens its database before the next
 * one, first removing anything a failed write may have left past the durable head.
 *
 * Exactly one process may open a data directory (LevelDB's lock); the second gets DataDirLockedError. A Quire whose
 * registry cannot read every event type and version the log holds gets LogTooNewError, before anything is written
 * (eventVersions.ts, eventVersionsFile.ts).
 */
export class EventStore implements EventLog {
  private readonly pipeline: AppendPipeline<BatchOperation>
  /** A write failed on the current database handle: it must be reopened before the next write. */
  private suspect = false
  private recovering: Promise<void> | undefined
  /** A reopen got past its space check and is closing and opening the database (which holds the directory's lock). */
  private reopeningDatabase = false
  /** The database is (being) closed for good: no more reads. */
  private released = false
  /** The event versions record as the durable appends left it. */
  private recordedVersions: EventVersions
  /** The record as each pending append that grows it leaves it, oldest first. */
  private pendingVersions: { readonly lastPosition: number; readonly versions: EventVersions }[] = []

  private constructor(
    private db: Database,
    readonly location: string,
    lastPosition: number,
    versions: EventVersions,
    chainHead: Uint8Array,
    private readonly options: EventStoreOptions,
  ) {
    this.recordedVersions = versions
    // A chained batch: abstract-level's array form clones and re-validates every operation, which costs more CPU
    // than the fsync itself once many appenders share a batch.
    const write = async (operations: readonly BatchOperation[]) => {
      const versions = lastVersionsPut(operations)
      // The file first, so that it is never behind the log.
      if (versions) await writeEventVersionsFile(this.logDirectory, versions)
      const batch = this.db.batch()
      for (const operation of operations) batch.put(operation.key, operation.value)
      return batch.write({ sync: true })
    }
    const intercept = options.interceptWrite
    this.pipeline = new AppendPipeline<BatchOperation>(
      lastPosition,
      {
        write: async (operations) => {
          if (this.suspect) await this.recover()
          try {
            await (intercept ? intercept(() => write(operations), operations) : write(operations))
          } catch (error) {
            this.suspect = true
            throw error
          }
        },
        loadHead: (stream) => {
          this.assertReadable()
          return readHead((range) => this.scan(range), stream)
        },
        committed: (lastPosition) => this.committed(lastPosition),
        rolledBack: () => this.rolledBack(),
      },
      {
        registry: options.registry,
        chainHead,
        ...(options.now ? { now: options.now } : {}),
        ...(options.maxBatchOperations !== undefined ? { maxOperations: options.maxBatchOperations } : {}),
        ...(options.writeRetryWindowMs !== undefined ? { retryWindowMs: options.writeRetryWindowMs } : {}),
      },
    )
  }

  private get durablePosition(): number {
    return this.pipeline.durablePosition
  }

  /**
   * Opens (creating if needed) the log in `directory`. Refuses, with LogTooNewError, a log holding event types or
   * versions `options.registry` cannot read: from the record's file copy before the database is opened, so nothing
   * in the directory changes; or, when the copy is missing, from the record in the log, before anything is written.
   * A log kept before it had the record is read whole once to build it (a few seconds per million events).
   */
  static async open(directory: string, options: EventStoreOptions): Promise<EventStore> {
    await mkdir(directory, { recursive: true })
    const where = `the log in ${directory}`
    const logDirectory = join(directory, 'log')
    const copy = await readEventVersionsFile(logDirectory)
    const copied = copy && decodeEventVersions(copy)
    if (copied) assertReadableBy(copied, options.registry, where)
    let db: Database
    try {
      db = await openDatabase(logDirectory)
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause
      if (cause?.code === 'LEVEL_LOCKED') {
        throw new DataDirLockedError(directory, await readOwnerPid(directory), { cause: error })
      }
      throw error
    }
    let lastPosition: number
    let versions: EventVersions
    let chainHead: Uint8Array
    try {
      lastPosition = await findLastPosition(db)
      const recorded = await readEventVersions(db, lastPosition)
      versions = recorded.versions
      assertReadableBy(versions, options.registry, where)
      // After the check above: a log this Quire refuses is left as it was, links and all.
      chainHead = await extendChain(db, lastPosition, options.now ?? Date.now)
      const bytes = encodeEventVersions(versions)
      if (recorded.built) await db.put(keys.EVENT_VERSIONS_KEY, bytes, { sync: true })
      if ((copy !== undefined || versions.size > 0) && !sameBytes(copy, bytes)) await writeEventVersionsFile(logDirectory, bytes)
    } catch (error) {
      await db.close()
      throw error
    }
    await writeFile(join(directory, 'owner.pid'), `${process.pid}\n`)
    const store = new EventStore(db, directory, lastPosition, versions, chainHead, options)
    await store.loadQuarantineNotes()
    return store
  }

  private get logDirectory(): string {
    return join(this.location, 'log')
  }

  /**
   * Reads the quarantine notes in the log, judging each record again: a note stays while its record's bytes are
   * damaged, and goes when this reader decodes the record, or when the note was only a reader's judgement (an older
   * Quire's notes on records it could not read): those must not hide a record from a reader that can.
   */
  private async loadQuarantineNotes(): Promise<void> {
    const stale: Uint8Array[] = []
    for await (const key of this.db.keys({ gte: keys.quarantineKey(0), lt: keys.QUARANTINE_END })) {
      const position = keys.positionOfQuarantineKey(key)
      const damage = await this.damageAt(position)
      if (damage) this.pipeline.quarantine(position, damage.reason, damage.bytes)
      else stale.push(key)
    }
    if (stale.length > 0) await this.db.batch(stale.map((key) => ({ type: 'del' as const, key })))
  }

  /** Why the record at `position` is damaged, or undefined when it is not (or is not in the log). */
  private async damageAt(position: number): Promise<{ reason: string; bytes: number } | undefined> {
    for await (const [key, chunk] of this.db.iterator({ gte: keys.eventKey(0), lte: keys.eventKey(position), reverse: true, limit: 1 })) {
      let entries: ChunkEntry[]
      try {
        entries = decodeChunk(chunk)
      } catch (error) {
        return { reason: (error as Error).message, bytes: chunk.length }
      }
      const entry = entries[position - keys.positionOfEventKey(key)]
      return entry && 'error' in entry && entry.damaged ? { reason: entry.error, bytes: entry.bytes } : undefined
    }
    return undefined
  }

  get headPosition(): number {
    return this.pipeline.nextPosition - 1
  }

  get durableHeadPosition(): number {
    return this.durablePosition
  }

  /** Write error of a batch still being retried, if any. */
  get failing(): unknown {
    return this.pipeline.committer.failing
  }

  streamHead(stream: string): Promise<StreamHead> {
    return this.pipeline.streamHead(stream)
  }

  async append(appends: readonly StreamAppend[]): Promise<AppendedBatch> {
    this.assertWritable()
    const loading = this.pipeline.loadHeads(appends.map(({ stream }) => stream))
    if (loading) await loading
    // Nothing awaits from here on: the version checks and the positions happen in one synchronous step.
    this.assertWritable()
    return this.pipeline.assign(appends, this.toOperations)
  }

  /**
   * Appends `events` to `stream` and resolves once they are durable. Rejects with ExpectedVersionConflictError when
   * `expectedStreamVersion` does not match (of two concurrent appends expecting the same version, exactly one
   * wins), and with JournalWriteError when the write failed for good.
   */
  async appendToStream(stream: string, events: readonly EventInput[], options: AppendOptions = {}): Promise<AppendResult> {
    if (!this.pipeline.heads.has(stream)) await this.pipeline.streamHead(stream)
    const enqueued = this.enqueue(stream, events, options)
    await enqueued.durable
    return {
      events: enqueued.events,
      nextExpectedStreamVersion: enqueued.nextExpectedStreamVersion,
      createdNewStream: enqueued.createdNewStream,
      lastEventGlobalPosition: enqueued.events[enqueued.events.length - 1]!.position,
    }
  }

  /**
   * LevelDB only (callers move to `append`): the synchronous half of an append, for callers that must apply
   * events to in-memory state in log order. Assigns positions and stream versions now and hands the batch to the
   * group committer. The stream's head must already be loaded (`await streamHead(stream)` first). Throws on a
   * version conflict; `durable` rejects with JournalWriteError when the write fails for good.
   */
  enqueue(stream: string, events: readonly EventInput[], options: AppendOptions = {}): EnqueuedAppend {
    const [single] = this.enqueueAtomic([{ stream, events, ...options }])
    return single!
  }

  /**
   * LevelDB only (callers move to `append`): appends to several streams as one atomic write, all or none, each
   * checked against its own expected version before anything changes. Each stream's events get contiguous
   * positions, in the order given. Like `enqueue`, every stream's head must already be loaded.
   */
  enqueueAtomic(appends: readonly StreamAppend[]): EnqueuedAppend[] {
    this.assertWritable()
    const { streams, durable } = this.pipeline.assign(appends, this.toOperations)
    return streams.map(({ events, nextExpectedStreamVersion, createdNewStream }) => ({ events, nextExpectedStreamVersion, createdNewStream, durable }))
  }

  /**
   * The batch operations of one append: per stream a chunk of its events, its index entry and, for a new stream, its
   * marker. The append that first holds a type at a version grows the event versions record in its own batch.
   */
  private readonly toOperations = (assigned: readonly AssignedStream[], lastPosition: number): BatchOperation[] => {
    const operations: BatchOperation[] = []
    const versionsBefore = this.pendingVersions.at(-1)?.versions ?? this.recordedVersions
    let versions = versionsBefore
    for (const { stream, events, head } of assigned) {
      for (const event of events) versions = withEventVersion(versions, event.type, event.v) ?? versions
      const first = events[0]!
      const chunk = encodeChunk(events)
      operations.push(
        { type: 'put', key: keys.eventKey(first.position), value: chunk },
        { type: 'put', key: keys.chainKey(first.position), value: this.pipeline.link(first.position, chunk) },
        { type: 'put', key: keys.streamIndexKey(stream, first.streamVersion), value: varUints(first.position, events.length) },
      )
      if (head.version === 0) operations.push({ type: 'put', key: keys.streamMarkerKey(stream), value: EMPTY })
    }
    if (versions !== versionsBefore) {
      operations.push({ type: 'put', key: keys.EVENT_VERSIONS_KEY, value: encodeEventVersions(versions) })
      this.pendingVersions.push({ lastPosition, versions })
    }
    return operations
  }

  private committed(lastPosition: number): void {
    while (this.pendingVersions.length > 0 && this.pendingVersions[0]!.lastPosition <= lastPosition) {
      this.recordedVersions = this.pendingVersions.shift()!.versions
    }
  }

  /** The committer failed appends and the pipeline took their positions back: their versions record goes too. */
  private rolledBack(): void {
    this.pendingVersions = []
    // Reopen now rather than at the next write: what a failed write left on disk goes before anyone reads it, and
    // reads wait for the reopen. On a disk that is still full the space check fails at once and the old handle stays.
    if (this.suspect && !this.released) this.recover().catch(() => {})
  }

  /**
   * Reopens the database after a failed write (LevelDB refuses every write after a failed synced one), once the
   * disk takes the bytes reopening needs, and deletes whatever a failed write left past the durable head before
   * anything reads or writes the new handle. Reads wait for it; one already running resumes on the new handle.
   */
  private recover(): Promise<void> {
    this.recovering ??= this.reopen().finally(() => {
      this.recovering = undefined
      this.reopeningDatabase = false
    })
    return this.recovering
  }

  private async reopen(): Promise<void> {
    const location = join(this.location, 'log')
    await probeSpace(location, join(this.location, 'log-space-probe'))
    if (this.released) return
    this.reopeningDatabase = true
    await this.db.close()
    const db = await openDatabase(location)
    try {
      // A failed batch that reached the disk after all may have grown the record too: it goes back to the durable one.
      const recorded = encodeEventVersions(this.recordedVersions)
      const leftovers = await leftoversAfter(db, this.durablePosition)
      await db.batch([...leftovers, { type: 'put', key: keys.EVENT_VERSIONS_KEY, value: recorded }], { sync: true })
      await writeEventVersionsFile(location, recorded)
    } catch (error) {
      await db.close()
      throw error
    }
    if (this.released) {
      await db.close()
      return
    }
    this.db = db
    this.suspect = false
  }

  /** The database handle for a read, once no reopen is under way; reopens it if the last attempt failed. */
  private async handle(): Promise<Database> {
    for (;;) {
      if (this.released) throw new StoreClosedError()
      if (this.recovering) {
        await this.recovering.catch(() => {})
        continue
      }
      if (this.db.status === 'open') return this.db
      await this.recover()
    }
  }

  /** Whether `error`, from an operation on `db`, came from the store reopening its database (then: try again). */
  private reopened(db: Database): boolean {
    return (db !== this.db || this.recovering !== undefined) && !this.released
  }

  /**
   * The entries of `range`, in pages. A read can outlive the database handle it started on (the store reopens it
   * after a failed write); it then goes on after the last key it yielded, on the new handle.
   */
  private async *scan(range: KeyRange): AsyncGenerator<[Uint8Array, Uint8Array]> {
    for await (const page of this.pages(range)) yield* page
  }

  /** `scan` a page at a time, for the long reads (one await per page, not per entry). */
  private async *pages(range: KeyRange): AsyncGenerator<[Uint8Array, Uint8Array][]> {
    let current = range
    let left = range.limit ?? Number.POSITIVE_INFINITY
    for (;;) {
      const db = await this.handle()
      const iterator = db.iterator({ ...current, limit: left === Number.POSITIVE_INFINITY ? -1 : left })
      try {
        for (;;) {
          let page: [Uint8Array, Uint8Array][]
          try {
            page = await iterator.nextv(Math.min(PAGE, left))
          } catch (error) {
            if (this.reopened(db)) break
            throw error
          }
          if (page.length === 0) return
          yield page
          left -= page.length
          if (left <= 0) return
          current = rangeAfter(range, page[page.length - 1]![0])
        }
      } finally {
        await iterator.close().catch(() => {})
      }
    }
  }

  /** `db.getMany`, tried again on the new handle if the database was reopened meanwhile. */
  private async getMany(keysToGet: Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    for (;;) {
      const db = await this.handle()
      try {
        return await db.getMany(keysToGet)
      } catch (error) {
        if (!this.reopened(db)) throw error
      }
    }
  }

  private async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return (await this.getMany([key]))[0]
  }

  async *readStream(stream: string, range: StreamRange = {}): AsyncGenerator<RecordedEvent> {
    this.assertReadable()
    const from = Math.max(1, range.fromVersion ?? 1)
    const to = range.toVersion ?? Number.MAX_SAFE_INTEGER
    let lastVersion = from - 1
    // Taken before the disk is read, in one step: an event that lands meanwhile is then in `pending` too, so the disk
    // up to `durable` plus `pending` misses none. What the disk holds past `durable` is not the log's (yet).
    const { pending, durable } = this.pipeline.pendingOf(stream)
    // The index entry holding `from` may start before it: begin at the last entry at or before `from`. One forward
    // scan from there reads one state of the disk, where the stream's entries are a prefix of the stream.
    const start = await this.lastKeyAtOrBefore(keys.streamIndexKey(stream, 0), keys.streamIndexKey(stream, from))
    for await (const page of this.pages({ gte: start, lte: keys.streamIndexKey(stream, to) })) {
      const chunkPositions = page.map(([, value]) => decoding.readVarUint(decoding.createDecoder(value)))
      const chunks = await this.getMany(chunkPositions.map(keys.eventKey))
      for (let i = 0; i < chunks.length; i++) {
        for (const event of this.decodeChunkAt(chunkPositions[i]!, chunks[i])) {
          if (event.streamVersion < from || event.streamVersion > to || event.position > durable) continue
          lastVersion = event.streamVersion
          yield event
        }
      }
    }
    // Events appended but not yet on disk are part of the stream too.
    for (const event of pending) {
      if (event.streamVersion > lastVersion && event.streamVersion <= to) yield event
    }
  }

  async *readAll(after = 0, options: { readonly to?: number } = {}): AsyncGenerator<RecordedEvent> {
    this.assertReadable()
    // Durable when the read starts: the disk can hold more for a moment (a write landing, or one that failed after
    // reaching the disk).
    const to = Math.min(options.to ?? Number.MAX_SAFE_INTEGER, this.durablePosition)
    // The chunk holding `after + 1` may start before it; one forward scan from there reads one state of the disk.
    const start = await this.lastKeyAtOrBefore(keys.eventKey(0), keys.eventKey(after + 1))
    for await (const page of this.pages({ gte: start, lte: keys.eventKey(to) })) {
      for (const [key, chunk] of page) {
        for (const event of this.decodeChunkAt(keys.positionOfEventKey(key), chunk)) {
          if (event.position > after && event.position <= to) yield event
        }
      }
    }
  }

  /** The last key in [floor, key], or `floor` when there is none. */
  private async lastKeyAtOrBefore(floor: Uint8Array, key: Uint8Array): Promise<Uint8Array> {
    for await (const [found] of this.scan({ gte: floor, lte: key, reverse: true, limit: 1 })) return found
    return floor
  }

  async readEvent(position: number): Promise<RecordedEvent | undefined> {
    this.assertReadable()
    const pending = this.pipeline.pendingAt(position)
    if (pending) return pending
    for await (const event of this.readAll(position - 1, { to: position })) return event
    return undefined
  }

  /** Decodes the chunk stored at `first`, quarantining what cannot be decoded. */
  private decodeChunkAt(first: number, chunk: Uint8Array | undefined): RecordedEvent[] {
    if (!chunk) return []
    let entries
    try {
      entries = decodeChunk(chunk)
    } catch (error) {
      this.quarantine(first, (error as RecordDecodeError).message, chunk.length, true)
      return []
    }
    const events: RecordedEvent[] = []
    entries.forEach((entry, index) => {
      const position = first + index
      if ('error' in entry) {
        this.quarantine(position, entry.error, entry.bytes, entry.damaged)
        return
      }
      const event = this.upcast(position, entry.event, entry.bytes)
      if (event) events.push(event)
    })
    return events
  }

  private upcast(position: number, stored: StoredEvent, bytes: number): RecordedEvent | undefined {
    try {
      const data = this.options.registry.read(stored.type, stored.v, stored.data)
      return { position, ...stored, data }
    } catch (error) {
      this.quarantine(position, (error as Error).message, bytes, false)
      return undefined
    }
  }

  /**
   * Reports a record this store cannot decode. Damaged bytes are damaged for every reader: noted in the log too, so
   * the next process reports them before it reads. Anything else (a type, version or payload this registry
   * refuses, a record format this decoder does not know) is this reader's judgement, not a fact of the record, so it
   * is reported by this instance only and never hides the record from a reader that can decode it.
   */
  private quarantine(position: number, reason: string, bytes: number, damaged: boolean): void {
    if (!this.pipeline.quarantine(position, reason, bytes) || !damaged) return
    const value = new TextEncoder().encode(JSON.stringify({ reason, bytes }))
    // The note is a report, not part of the log: losing it (a crash, a full disk) only means finding the damage again.
    this.db.put(keys.quarantineKey(position), value).catch(() => {})
  }

  quarantinedRecords(): QuarantinedRecord[] {
    return this.pipeline.quarantinedRecords()
  }

  subscribe(after: number, handler: (event: RecordedEvent) => void | Promise<void>): () => void {
    return this.pipeline.subscribe(after, handler, (from, options) => this.readAll(from, options), () => this.released)
  }

  /** Snapshots are derived data: written without fsync and never required. */
  async saveSnapshot(projection: string, key: string, snapshot: Snapshot): Promise<void> {
    this.assertReadable()
    const encoder = encoding.createEncoder()
    encoding.writeVarUint(encoder, snapshot.position)
    encoding.writeVarUint8Array(encoder, snapshot.payload)
    await (await this.handle()).put(keys.snapshotKey(projection, key), encoding.toUint8Array(encoder))
  }

  async loadSnapshot(projection: string, key: string): Promise<Snapshot | undefined> {
    this.assertReadable()
    const value = await this.get(keys.snapshotKey(projection, key))
    if (!value) return undefined
    const decoder = decoding.createDecoder(value)
    return { position: decoding.readVarUint(decoder), payload: decoding.readVarUint8Array(decoder) }
  }

  async clearSnapshots(projection: string): Promise<void> {
    this.assertReadable()
    await (await this.handle()).clear(keys.snapshotRange(projection))
  }

  async *streams(prefix = ''): AsyncGenerator<{ stream: string; head: StreamHead }> {
    this.assertReadable()
    const range = prefix ? keys.streamMarkerRange(prefix) : { gte: keys.STREAM_MARKERS_START, lt: keys.STREAM_MARKERS_END }
    const onDisk = new Set<string>()
    for await (const [key] of this.scan(range)) {
      const stream = keys.streamOfMarkerKey(key)
      onDisk.add(stream)
      const head = this.pipeline.heads.get(stream) ?? (await readHead((range) => this.scan(range), stream))
      // A stream created by an append that failed is on disk no more; its marker may have been read just before.
      if (head.version > 0) yield { stream, head }
    }
    // Streams created by appends that are not on disk yet.
    yield* this.pipeline.unlisted(prefix, onDisk)
  }

  async checkIntegrity(options: { readonly against?: ChainPoint } = {}): Promise<IntegrityReport> {
    this.assertReadable()
    await this.flush()
    const chain = await checkChain(this.storedChunks(), this.durablePosition, await this.chainedLate(), options.against)
    const problems: string[] = []
    const lastOfStream = new Map<string, { version: number; position: number }>()
    /** The newest version of each type the records hold, with a position holding it. */
    const held = new Map<string, { v: number; position: number }>()
    let expected = 1
    let events = 0
    for await (const [key, chunk] of this.scan({ gte: keys.eventKey(0), lt: keys.EVENTS_END })) {
      const first = keys.positionOfEventKey(key)
      if (first !== expected) problems.push(`positions ${expected}..${first - 1} are missing`)
      let entries
      try {
        entries = decodeChunk(chunk)
      } catch (error) {
        problems.push(`chunk at position ${first} is damaged: ${(error as Error).message}`)
        this.quarantine(first, (error as Error).message, chunk.length, true)
        expected = first + 1
        continue
      }
      let streamOfChunk: string | undefined
      entries.forEach((entry, index) => {
        const position = first + index
        if ('error' in entry) {
          problems.push(`record at position ${position} ${entry.damaged ? 'is damaged' : 'cannot be read'}: ${entry.error}`)
          this.quarantine(position, entry.error, entry.bytes, entry.damaged)
          return
        }
        const { stream, streamVersion, type, v } = entry.event
        // Read as readAll reads it: a record this registry cannot read is quarantined for this reader.
        if (!this.upcast(position, entry.event, entry.bytes)) {
          problems.push(`record at position ${position} cannot be read: ${this.pipeline.quarantineReason(position)}`)
        }
        if ((held.get(type)?.v ?? 0) < v) held.set(type, { v, position })
        events++
        if (streamOfChunk !== undefined && streamOfChunk !== stream) problems.push(`chunk at ${first} mixes streams`)
        streamOfChunk = stream
        const previous = lastOfStream.get(stream)
        if ((previous?.version ?? 0) + 1 !== streamVersion) {
          problems.push(`${stream} jumps from version ${previous?.version ?? 0} to ${streamVersion} at position ${position}`)
        }
        lastOfStream.set(stream, { version: streamVersion, position })
      })
      const head = entries[0]
      if (streamOfChunk !== undefined && head && 'event' in head) {
        const firstVersion = head.event.streamVersion
        const index = await this.get(keys.streamIndexKey(streamOfChunk, firstVersion))
        const indexed = index ? decoding.readVarUint(decoding.createDecoder(index)) : undefined
        if (indexed !== first) problems.push(`${streamOfChunk} version ${firstVersion} is not indexed at position ${first}`)
      }
      expected = first + entries.length
    }
    if (expected - 1 !== this.durablePosition) {
      problems.push(`the log ends at ${expected - 1} but the store believes its head is ${this.durablePosition}`)
    }
    let streams = 0
    for await (const { stream, head } of this.streams()) {
      streams++
      const last = lastOfStream.get(stream)
      if (!last || last.version !== head.version || last.position !== head.position) {
        problems.push(`head of ${stream} says version ${head.version} at ${head.position}, log says ${last?.version ?? 0} at ${last?.position ?? 0}`)
      }
      lastOfStream.delete(stream)
    }
    for (const stream of lastOfStream.keys()) problems.push(`${stream} has events but no existence marker`)
    // Read after the records: it only grows, so it covers every record read before it.
    const record = await this.get(keys.EVENT_VERSIONS_KEY)
    const recorded = (record && decodeEventVersions(record)) ?? NO_EVENT_VERSIONS
    for (const [type, { v, position }] of held) {
      const uncovered = notCovered(recorded, type, v, position)
      if (uncovered) problems.push(uncovered)
    }
    return { events, streams, head: this.durablePosition, problems, quarantined: this.quarantinedRecords(), chain }
  }

  /** Every chunk of the log in key order, with the chain's links stored beside it. */
  private async *storedChunks(): AsyncGenerator<StoredChunk> {
    for await (const page of this.pages({ gte: keys.eventKey(0), lt: keys.EVENTS_END })) {
      const links = await this.getMany(page.map(([key]) => keys.chainKey(keys.positionOfEventKey(key))))
      for (const [index, [key, chunk]] of page.entries()) yield { firstPosition: keys.positionOfEventKey(key), chunk, links: links[index] }
    }
  }

  private async chainedLate(): Promise<ChainedLate[]> {
    const value = await this.get(keys.CHAINED_LATE_KEY)
    return decodeChainedLate(value)
  }

  async flush(): Promise<void> {
    await this.pipeline.flush()
  }

  /**
   * Pending appends get their write (a failing one no more retries); a disk that does not answer within the close
   * timeout fails them. The steps share one deadline, so a disk that hangs holds shutdown for about the close
   * timeout; LevelDB's own close gets a short grace past it, since it must wait for a write under way before it
   * lets go of the lock.
   */
  close(): Promise<void> {
    return this.pipeline.close(this.options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS, (left) => this.release(left))
  }

  private async release(left: () => number): Promise<void> {
    // After a failed write, the database may hold a batch whose fsync failed: reopening removes it now, so that it
    // cannot turn up when the log is next opened. On a disk that is still full this fails at once.
    if (this.suspect) await settlesWithin(this.recover(), left())
    this.released = true
    // A reopen past its space check holds the directory's lock until it finishes; LevelDB's open is bounded work.
    if (this.reopeningDatabase) await this.recovering?.catch(() => {})
    // A write the committer gave up on may still be under way: LevelDB closes after it.
    await settlesWithin(this.db.close(), Math.max(left(), CLOSE_GRACE_MS))
    await rm(join(this.location, 'owner.pid'), { force: true })
  }

  /** This process is the log's only writer: there is nothing it has not heard of. */
  async caughtUp(): Promise<void> {}

  get isClosed(): boolean {
    return this.pipeline.isClosed
  }

  private assertWritable(): void {
    if (this.pipeline.isClosed) throw new StoreClosedError()
  }

  private assertReadable(): void {
    if (this.released) throw new StoreClosedError()
  }
}

async function openDatabase(location: string): Promise<Database> {
  const db = new ClassicLevel<Uint8Array, Uint8Array>(location, { keyEncoding: 'view', valueEncoding: 'view' })
  await db.open()
  return db
}

/** `range` from just past `key` (in its direction) on. */
function rangeAfter(range: KeyRange, key: Uint8Array): KeyRange {
  const { gt, gte, lt, lte, ...rest } = range
  return range.reverse
    ? { ...rest, ...(gt ? { gt } : {}), ...(gte ? { gte } : {}), lt: key }
    : { ...rest, ...(lt ? { lt } : {}), ...(lte ? { lte } : {}), gt: key }
}

/**
 * Deletions for everything past `durable` in a freshly reopened database: the records of a batch whose synced
 * write failed after its bytes reached LevelDB's log, with their stream index entries and, for a stream they
 * created, its marker. The batch itself is atomic in LevelDB, so it is there whole or not at all.
 */
async function leftoversAfter(db: Database, durable: number): Promise<{ type: 'del'; key: Uint8Array }[]> {
  const deletions: { type: 'del'; key: Uint8Array }[] = []
  for await (const [key, chunk] of db.iterator({ gt: keys.eventKey(durable), lt: keys.EVENTS_END })) {
    deletions.push({ type: 'del', key }, { type: 'del', key: keys.chainKey(keys.positionOfEventKey(key)) })
    let entries
    try {
      entries = decodeChunk(chunk)
    } catch {
      continue
    }
    const first = entries[0]
    if (!first || !('event' in first)) continue
    const { stream, streamVersion } = first.event
    deletions.push({ type: 'del', key: keys.streamIndexKey(stream, streamVersion) })
    if (streamVersion === 1) deletions.push({ type: 'del', key: keys.streamMarkerKey(stream) })
  }
  return deletions
}

/** The ranges noted under CHAINED_LATE_KEY (JSON), none when the key is absent. */
function decodeChainedLate(value: Uint8Array | undefined): ChainedLate[] {
  return value ? (JSON.parse(Buffer.from(value).toString('utf8')) as ChainedLate[]) : []
}

/** How many chunks the chain is extended over per write when a log is found unchained. */
const CHAIN_BATCH = 1_000

/**
 * The chain's link of the log's last record, after extending the chain over the records found without one: all of
 * a log kept before the chain existed, or what an older Quire appended. Each such range is noted (CHAINED_LATE_KEY)
 * so that verify can say the chain proves those records unchanged since then, not before. Stops at a chunk whose
 * framing is damaged (its records cannot be told apart): verify reports the break there.
 */
async function extendChain(db: Database, lastPosition: number, now: () => number): Promise<Uint8Array> {
  let head = GENESIS
  let from = 1
  for await (const [key, links] of db.iterator({ gte: keys.chainKey(0), lt: keys.CHAIN_END, reverse: true, limit: 1 })) {
    head = lastLink(links).slice()
    from = keys.positionOfChainKey(key) + links.length / LINK_BYTES
  }
  if (from > lastPosition) return head
  let batch: { type: 'put'; key: Uint8Array; value: Uint8Array }[] = []
  let to = from - 1
  for await (const [key, chunk] of db.iterator({ gte: keys.eventKey(from), lt: keys.EVENTS_END })) {
    const first = keys.positionOfEventKey(key)
    let links: Uint8Array
    try {
      links = chunkLinks(head, first, chunk)
    } catch (error) {
      if (error instanceof RecordDecodeError) break
      throw error
    }
    batch.push({ type: 'put', key: keys.chainKey(first), value: links })
    head = lastLink(links).slice()
    to = first + links.length / LINK_BYTES - 1
    if (batch.length >= CHAIN_BATCH) {
      await db.batch(batch)
      batch = []
    }
  }
  const stored = await db.get(keys.CHAINED_LATE_KEY)
  const late = decodeChainedLate(stored)
  const noted: ChainedLate[] = to >= from ? [...late, { from, to, at: now() }] : late
  await db.batch([...batch, { type: 'put', key: keys.CHAINED_LATE_KEY, value: Buffer.from(JSON.stringify(noted)) }], { sync: true })
  return head
}

/** The pid the process holding `directory` wrote there, if it did. */
export async function readOwnerPid(directory: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt(await readFile(join(directory, 'owner.pid'), 'utf8'), 10)
    return Number.isSafeInteger(pid) ? pid : undefined
  } catch {
    return undefined
  }
}

/**
 * The position of the last event in the log. The last chunk's own framing says how many events it holds; if that
 * chunk is damaged, its count cannot be trusted (a flipped bit could claim far more or fewer events), so the head
 * falls back to the stream heads, which were written in the same atomic batch as every chunk.
 */
async function findLastPosition(db: Database): Promise<number> {
  for await (const [key, chunk] of db.iterator({ lt: keys.EVENTS_END, gte: keys.eventKey(0), reverse: true, limit: 1 })) {
    const first = keys.positionOfEventKey(key)
    try {
      return first + decodeChunk(chunk).length - 1
    } catch {
      let last = first
      for await (const key of db.keys({ gte: keys.STREAM_MARKERS_START, lt: keys.STREAM_MARKERS_END })) {
        last = Math.max(last, (await readHead((range) => db.iterator(range), keys.streamOfMarkerKey(key))).position)
      }
      return last
    }
  }
  return 0
}

const EMPTY = new Uint8Array(0)

/** The value of the last put of the event versions record among `operations` (the newest), if any. */
function lastVersionsPut(operations: readonly BatchOperation[]): Uint8Array | undefined {
  for (let i = operations.length - 1; i >= 0; i--) if (operations[i]!.key === keys.EVENT_VERSIONS_KEY) return operations[i]!.value
  return undefined
}

function sameBytes(a: Uint8Array | undefined, b: Uint8Array): boolean {
  return a !== undefined && Buffer.compare(a, b) === 0
}

/**
 * The log's event versions record, and whether it was built now: a log kept before it had one (or whose record is
 * damaged) is read whole once to build it.
 */
async function readEventVersions(db: Database, lastPosition: number): Promise<{ versions: EventVersions; built: boolean }> {
  const stored = await db.get(keys.EVENT_VERSIONS_KEY)
  const decoded = stored && decodeEventVersions(stored)
  if (decoded) return { versions: decoded, built: false }
  if (lastPosition === 0) return { versions: NO_EVENT_VERSIONS, built: false }
  const versions = new Map<string, number>()
  for await (const [, chunk] of db.iterator({ gte: keys.eventKey(0), lt: keys.EVENTS_END })) {
    let entries: ChunkEntry[]
    try {
      entries = decodeChunk(chunk)
    } catch {
      continue
    }
    for (const entry of entries) if ('event' in entry) addEventVersion(versions, entry.event.type, entry.event.v)
  }
  return { versions, built: true }
}

/** Two varUints in a fresh array: the stream index value (first position, count). */
function varUints(a: number, b: number): Uint8Array {
  const value = new Uint8Array(varUintSize(a) + varUintSize(b))
  writeVarUintAt(value, writeVarUintAt(value, 0, a), b)
  return value
}

/** A stream's head, from its last index entry (version 0 at position 0 when it has none). */
async function readHead(
  scan: (range: KeyRange) => AsyncIterable<[Uint8Array, Uint8Array]>,
  stream: string,
): Promise<StreamHead> {
  for await (const [key, value] of scan({ ...keys.streamIndexRange(stream), reverse: true, limit: 1 })) {
    const decoder = decoding.createDecoder(value)
    const first = decoding.readVarUint(decoder)
    const count = decoding.readVarUint(decoder)
    return { version: keys.versionOfStreamIndexKey(key) + count - 1, position: first + count - 1 }
  }
  return { version: 0, position: 0 }
}
