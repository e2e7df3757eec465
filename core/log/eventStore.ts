import { readFile, writeFile, mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { ClassicLevel } from 'classic-level'
import * as encoding from 'lib0/encoding'
import * as decoding from 'lib0/decoding'
import type { Actor } from '../events/actor.js'
import type { EventRegistry } from '../events/schema.js'
import { DataDirLockedError, InvalidAppendError, StoreClosedError } from './errors.js'
import { assertExpectedVersion, NO_CONCURRENCY_CHECK, type ExpectedStreamVersion } from './expectedVersion.js'
import { GroupCommitter, type BatchOperation } from './groupCommit.js'
import * as keys from './keys.js'
import { decodeChunk, encodeChunk, RecordDecodeError, varUintSize, writeVarUintAt, type StoredEvent } from './record.js'

/** An event as the store returns it: its global position, its place in its stream, and its decoded payload. */
export interface RecordedEvent<Type extends string = string, Data = unknown> {
  readonly position: number
  readonly stream: string
  /** 1-based number of this event within its stream. */
  readonly streamVersion: number
  readonly type: Type
  /** Schema version the payload was written with (the payload itself is upcast to the current version). */
  readonly v: number
  readonly at: number
  readonly actor: Actor
  readonly data: Data
}

export interface EventInput {
  readonly type: string
  readonly data: unknown
  readonly actor: Actor
}

export interface AppendOptions {
  readonly expectedStreamVersion?: ExpectedStreamVersion
}

export interface StreamAppend extends AppendOptions {
  readonly stream: string
  readonly events: readonly EventInput[]
}

export interface EnqueuedAppend {
  readonly events: readonly RecordedEvent[]
  readonly nextExpectedStreamVersion: number
  readonly createdNewStream: boolean
  /** Resolves once these events are fsync'd; never rejects (failed writes are retried in order). */
  readonly durable: Promise<void>
}

export interface AppendResult {
  readonly events: readonly RecordedEvent[]
  readonly nextExpectedStreamVersion: number
  readonly createdNewStream: boolean
  readonly lastEventGlobalPosition: number
}

export interface QuarantinedRecord {
  readonly position: number
  readonly reason: string
  readonly bytes: number
}

export interface IntegrityReport {
  readonly events: number
  readonly streams: number
  readonly head: number
  /** Human-readable violations; empty when the log is sound. */
  readonly problems: readonly string[]
  readonly quarantined: readonly QuarantinedRecord[]
}

export interface Snapshot {
  readonly position: number
  readonly payload: Uint8Array
}

export interface StreamHead {
  readonly version: number
  readonly position: number
}

export interface EventStoreOptions {
  readonly registry: EventRegistry
  /** Clock for `at`; tests pin it. */
  readonly now?: () => number
  /** Wraps every batch write; tests use it to inject slow or failing disks. */
  readonly interceptWrite?: (write: () => Promise<void>, operations: readonly BatchOperation[]) => Promise<void>
  readonly maxBatchOperations?: number
}

type Listener = (events: readonly RecordedEvent[]) => void

const PAGE = 1024

/**
 * The log: one LevelDB database holding every event under a global, gap-free position, with per-stream indexes
 * and heads for optimistic concurrency (Emmett's `appendToStream` shape), group-committed synced writes, live
 * subscriptions after catch-up, quarantine of undecodable records, and a keyspace for projection snapshots.
 *
 * Exactly one process may open a data directory (LevelDB's lock); the second gets DataDirLockedError.
 */
export class EventStore {
  private readonly heads = new Map<string, StreamHead>()
  private readonly headLoads = new Map<string, Promise<StreamHead>>()
  private readonly listeners = new Set<Listener>()
  private readonly committer: GroupCommitter
  private readonly quarantined = new Map<number, QuarantinedRecord>()
  private nextPosition: number
  private durablePosition: number
  private closed = false
  /** Events enqueued but not yet durable, in position order, for subscribers' live tail. */
  private undelivered: RecordedEvent[] = []

  private constructor(
    private readonly db: ClassicLevel<Uint8Array, Uint8Array>,
    readonly location: string,
    lastPosition: number,
    private readonly options: EventStoreOptions,
  ) {
    this.nextPosition = lastPosition + 1
    this.durablePosition = lastPosition
    // A chained batch: abstract-level's array form clones and re-validates every operation, which costs more CPU
    // than the fsync itself once many appenders share a batch.
    const write = (operations: BatchOperation[]) => {
      const batch = db.batch()
      for (const operation of operations) batch.put(operation.key, operation.value)
      return batch.write({ sync: true })
    }
    this.committer = new GroupCommitter(
      options.interceptWrite ? (operations) => options.interceptWrite!(() => write(operations), operations) : write,
      {
        maxOperations: options.maxBatchOperations,
        onCommitted: (lastPosition) => this.committed(lastPosition),
      },
    )
  }

  /** Opens (creating if needed) the log in `directory`. */
  static async open(directory: string, options: EventStoreOptions): Promise<EventStore> {
    await mkdir(directory, { recursive: true })
    const location = join(directory, 'log')
    const db = new ClassicLevel<Uint8Array, Uint8Array>(location, { keyEncoding: 'view', valueEncoding: 'view' })
    try {
      await db.open()
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause
      if (cause?.code === 'LEVEL_LOCKED') {
        throw new DataDirLockedError(directory, await readOwnerPid(directory), { cause: error })
      }
      throw error
    }
    await writeFile(join(directory, 'owner.pid'), `${process.pid}\n`)
    const lastPosition = await findLastPosition(db)
    const store = new EventStore(db, directory, lastPosition, options)
    for await (const [key, value] of db.iterator({ gte: keys.quarantineKey(0), lt: keys.QUARANTINE_END })) {
      const note = JSON.parse(new TextDecoder().decode(value)) as { reason: string; bytes: number }
      const position = keys.positionOfQuarantineKey(key)
      store.quarantined.set(position, { position, ...note })
    }
    return store
  }

  /** Position of the last event enqueued (durable or not); 0 for an empty log. */
  get headPosition(): number {
    return this.nextPosition - 1
  }

  /** Position of the last event known to be on disk. */
  get durableHeadPosition(): number {
    return this.durablePosition
  }

  /** Write error of a batch still being retried, if any. */
  get failing(): unknown {
    return this.committer.failing
  }

  /** Current version and last position of `stream` (version 0 when it has no events). */
  async streamHead(stream: string): Promise<StreamHead> {
    const known = this.heads.get(stream)
    if (known) return known
    let loading = this.headLoads.get(stream)
    if (!loading) {
      loading = this.loadHead(stream)
      this.headLoads.set(stream, loading)
    }
    return loading
  }

  private async loadHead(stream: string): Promise<StreamHead> {
    this.assertOpen()
    const head = await readHead(this.db, stream)
    // An append may have registered the head while we were reading; the in-memory one is then newer.
    const known = this.heads.get(stream)
    if (known) return known
    this.heads.set(stream, head)
    this.headLoads.delete(stream)
    return head
  }

  /**
   * Appends `events` to `stream` and resolves once they are durable. Rejects with ExpectedVersionConflictError when
   * `expectedStreamVersion` does not match; of two concurrent appends expecting the same version, exactly one wins.
   */
  async appendToStream(stream: string, events: readonly EventInput[], options: AppendOptions = {}): Promise<AppendResult> {
    if (!this.heads.has(stream)) await this.streamHead(stream)
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
   * Synchronous half of an append, for callers that must apply events to in-memory state in log order: assigns
   * positions and stream versions now and hands the batch to the group committer. The stream's head must already
   * be loaded (`await streamHead(stream)` first). Throws on a version conflict; `durable` never rejects.
   */
  enqueue(stream: string, events: readonly EventInput[], options: AppendOptions = {}): EnqueuedAppend {
    const [single] = this.enqueueAtomic([{ stream, events, ...options }])
    return single!
  }

  /**
   * Appends to several streams as one atomic write: all land or none does, each checked against its own expected
   * version before anything changes. Each stream's events get contiguous positions, in the order given. Like
   * `enqueue`, every stream's head must already be loaded.
   */
  enqueueAtomic(appends: readonly StreamAppend[]): EnqueuedAppend[] {
    this.assertOpen()
    if (appends.length === 0) throw new InvalidAppendError('an atomic append needs at least one stream')
    const seen = new Set<string>()
    for (const { stream, events, expectedStreamVersion } of appends) {
      if (!keys.isValidStreamName(stream)) throw new InvalidAppendError(`invalid stream name ${JSON.stringify(stream)}`)
      if (seen.has(stream)) throw new InvalidAppendError(`stream ${stream} appears twice in one atomic append`)
      seen.add(stream)
      if (events.length === 0) throw new InvalidAppendError('an append needs at least one event')
      const head = this.heads.get(stream)
      if (!head) throw new InvalidAppendError(`stream ${stream} is not loaded; await streamHead() before enqueue()`)
      assertExpectedVersion(stream, expectedStreamVersion ?? NO_CONCURRENCY_CHECK, head.version)
    }

    const at = (this.options.now ?? Date.now)()
    const operations: BatchOperation[] = []
    const results: { stream: string; events: RecordedEvent[]; head: StreamHead; version: number }[] = []
    let position = this.nextPosition
    for (const { stream, events } of appends) {
      const head = this.heads.get(stream)!
      const recorded: RecordedEvent[] = []
      let version = head.version
      for (const event of events) {
        const v = this.options.registry.prepare(event.type, event.data)
        version++
        recorded.push({ position, stream, streamVersion: version, type: event.type, v, at, actor: event.actor, data: event.data })
        position++
      }
      const first = recorded[0]!
      operations.push(
        { type: 'put', key: keys.eventKey(first.position), value: encodeChunk(recorded) },
        { type: 'put', key: keys.streamIndexKey(stream, first.streamVersion), value: varUints(first.position, recorded.length) },
      )
      if (head.version === 0) operations.push({ type: 'put', key: keys.streamMarkerKey(stream), value: EMPTY })
      results.push({ stream, events: recorded, head, version })
    }

    // Everything below is synchronous: no other append can interleave between the checks above and this point.
    for (const { stream, events, version } of results) {
      this.heads.set(stream, { version, position: events[events.length - 1]!.position })
      for (const event of events) this.undelivered.push(event)
    }
    this.nextPosition = position
    const durable = new Promise<void>((resolve) =>
      this.committer.submit({ operations, lastPosition: position - 1, resolve }),
    )
    return results.map(({ events, head, version }) => ({
      events,
      nextExpectedStreamVersion: version,
      createdNewStream: head.version === 0,
      durable,
    }))
  }

  private committed(lastPosition: number): void {
    this.durablePosition = lastPosition
    let count = 0
    while (count < this.undelivered.length && this.undelivered[count]!.position <= lastPosition) count++
    const delivered = this.undelivered.splice(0, count)
    for (const listener of this.listeners) listener(delivered)
  }

  /** Reads `stream`'s events with versions in [fromVersion, toVersion] (1-based, inclusive), in order. */
  async *readStream(
    stream: string,
    range: { fromVersion?: number; toVersion?: number } = {},
  ): AsyncGenerator<RecordedEvent> {
    this.assertOpen()
    const from = Math.max(1, range.fromVersion ?? 1)
    const to = range.toVersion ?? Number.MAX_SAFE_INTEGER
    let lastVersion = from - 1
    // Taken in the same synchronous step as the iterators' snapshots, so disk + pending covers every enqueued event.
    const pending = this.undelivered.filter((event) => event.stream === stream)
    const streamStart = keys.streamIndexKey(stream, 0)
    // The index entry holding `from` may start before it: begin at the last entry at or before `from`.
    const before = this.db.iterator({ gte: streamStart, lte: keys.streamIndexKey(stream, from), reverse: true, limit: 1 })
    const after = this.db.iterator({ gt: keys.streamIndexKey(stream, from), lte: keys.streamIndexKey(stream, to) })
    try {
      for (const iterator of [before, after]) {
        for (;;) {
          const entries = await iterator.nextv(PAGE)
          if (entries.length === 0) break
          const chunkPositions = entries.map(([, value]) => decoding.readVarUint(decoding.createDecoder(value)))
          const chunks = await this.db.getMany(chunkPositions.map(keys.eventKey))
          for (let i = 0; i < chunks.length; i++) {
            for (const event of this.decodeChunkAt(chunkPositions[i]!, chunks[i])) {
              if (event.streamVersion < from || event.streamVersion > to) continue
              lastVersion = event.streamVersion
              yield event
            }
          }
        }
      }
    } finally {
      await Promise.all([before.close(), after.close()])
    }
    // Events enqueued but not yet on disk are part of the stream too.
    for (const event of pending) {
      if (event.streamVersion > lastVersion && event.streamVersion <= to) yield event
    }
  }

  /** Reads every event with position > `after` (up to `to`), in order, skipping and quarantining damaged records. */
  async *readAll(after = 0, options: { to?: number } = {}): AsyncGenerator<RecordedEvent> {
    this.assertOpen()
    const to = options.to ?? Number.MAX_SAFE_INTEGER
    const before = this.db.iterator({ gte: keys.eventKey(0), lte: keys.eventKey(after + 1), reverse: true, limit: 1 })
    const rest = this.db.iterator({ gt: keys.eventKey(after + 1), lte: keys.eventKey(to) })
    try {
      for (const iterator of [before, rest]) {
        for (;;) {
          const entries = await iterator.nextv(PAGE)
          if (entries.length === 0) break
          for (const [key, chunk] of entries) {
            for (const event of this.decodeChunkAt(keys.positionOfEventKey(key), chunk)) {
              if (event.position > after && event.position <= to) yield event
            }
          }
        }
      }
    } finally {
      await Promise.all([before.close(), rest.close()])
    }
  }

  /** Reads a single event by position (undefined when absent or quarantined). */
  async readEvent(position: number): Promise<RecordedEvent | undefined> {
    this.assertOpen()
    const pending = this.undelivered.find((event) => event.position === position)
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
      this.quarantine(first, (error as RecordDecodeError).message, chunk.length)
      return []
    }
    const events: RecordedEvent[] = []
    entries.forEach((entry, index) => {
      const position = first + index
      if (this.quarantined.has(position)) return
      if ('error' in entry) {
        this.quarantine(position, entry.error, entry.bytes)
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
      this.quarantine(position, (error as Error).message, bytes)
      return undefined
    }
  }

  private quarantine(position: number, reason: string, bytes: number): void {
    const note: QuarantinedRecord = { position, reason, bytes }
    this.quarantined.set(position, note)
    const value = new TextEncoder().encode(JSON.stringify({ reason, bytes }))
    // The note is a report, not part of the log: losing it in a crash only means finding the damage again.
    this.db.put(keys.quarantineKey(position), value).catch(() => {})
  }

  /** Records found undecodable so far (persisted across restarts), in position order. */
  quarantinedRecords(): QuarantinedRecord[] {
    return [...this.quarantined.values()].sort((a, b) => a.position - b.position)
  }

  /**
   * Delivers every event after `after` to `handler` in order: first the stored ones (catch-up), then each batch as
   * it becomes durable (live tail). Returns a function that stops the subscription.
   */
  subscribe(after: number, handler: (event: RecordedEvent) => void | Promise<void>): () => void {
    let stopped = false
    let buffered: RecordedEvent[] = []
    let live = false
    let delivering: Promise<void> = Promise.resolve()
    let cursor = after
    const listener: Listener = (events) => {
      if (stopped) return
      if (!live) {
        buffered.push(...events)
        return
      }
      delivering = delivering.then(async () => {
        for (const event of events) {
          if (stopped) return
          if (event.position <= cursor) continue
          cursor = event.position
          await handler(event)
        }
      })
    }
    this.listeners.add(listener)
    void (async () => {
      for await (const event of this.readAll(after, { to: this.durablePosition })) {
        if (stopped) return
        cursor = event.position
        await handler(event)
      }
      // Events that became durable during catch-up were buffered by the listener; deliver the ones not yet seen.
      live = true
      const pending = buffered
      buffered = []
      listener(pending)
    })()
    return () => {
      stopped = true
      this.listeners.delete(listener)
    }
  }

  /** Stores a projection snapshot. Snapshots are derived data: written without fsync and never required. */
  async saveSnapshot(projection: string, key: string, snapshot: Snapshot): Promise<void> {
    this.assertOpen()
    const encoder = encoding.createEncoder()
    encoding.writeVarUint(encoder, snapshot.position)
    encoding.writeVarUint8Array(encoder, snapshot.payload)
    await this.db.put(keys.snapshotKey(projection, key), encoding.toUint8Array(encoder))
  }

  async loadSnapshot(projection: string, key: string): Promise<Snapshot | undefined> {
    this.assertOpen()
    const value = await this.db.get(keys.snapshotKey(projection, key))
    if (!value) return undefined
    const decoder = decoding.createDecoder(value)
    return { position: decoding.readVarUint(decoder), payload: decoding.readVarUint8Array(decoder) }
  }

  /** Deletes every snapshot of `projection`. */
  async clearSnapshots(projection: string): Promise<void> {
    this.assertOpen()
    await this.db.clear(keys.snapshotRange(projection))
  }

  /** Names of streams starting with `prefix`, with their heads. */
  async *streams(prefix = ''): AsyncGenerator<{ stream: string; head: StreamHead }> {
    this.assertOpen()
    const range = prefix ? keys.streamMarkerRange(prefix) : { gte: keys.STREAM_MARKERS_START, lt: keys.STREAM_MARKERS_END }
    const onDisk = new Set<string>()
    for await (const key of this.db.keys(range)) {
      const stream = keys.streamOfMarkerKey(key)
      onDisk.add(stream)
      yield { stream, head: this.heads.get(stream) ?? (await readHead(this.db, stream)) }
    }
    // Streams created by appends that are not on disk yet.
    for (const [stream, head] of this.heads) {
      if (head.version > 0 && stream.startsWith(prefix) && !onDisk.has(stream)) yield { stream, head }
    }
  }

  /**
   * Checks the log's own invariants against what is on disk: positions gap-free from 1 to the head, every event
   * indexed under its stream and version, every stream head pointing at its stream's last event, and no damaged
   * records. Reads the whole log.
   */
  async checkIntegrity(): Promise<IntegrityReport> {
    this.assertOpen()
    await this.flush()
    const problems: string[] = []
    const lastOfStream = new Map<string, { version: number; position: number }>()
    let expected = 1
    let events = 0
    for await (const [key, chunk] of this.db.iterator({ gte: keys.eventKey(0), lt: keys.EVENTS_END })) {
      const first = keys.positionOfEventKey(key)
      if (first !== expected) problems.push(`positions ${expected}..${first - 1} are missing`)
      let entries
      try {
        entries = decodeChunk(chunk)
      } catch (error) {
        problems.push(`chunk at position ${first} is damaged: ${(error as Error).message}`)
        this.quarantine(first, (error as Error).message, chunk.length)
        expected = first + 1
        continue
      }
      let streamOfChunk: string | undefined
      entries.forEach((entry, index) => {
        const position = first + index
        if ('error' in entry) {
          problems.push(`record at position ${position} is damaged: ${entry.error}`)
          this.quarantine(position, entry.error, entry.bytes)
          return
        }
        events++
        const { stream, streamVersion } = entry.event
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
        const index = await this.db.get(keys.streamIndexKey(streamOfChunk, firstVersion))
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
    return { events, streams, head: this.durablePosition, problems, quarantined: this.quarantinedRecords() }
  }

  /** Resolves once every append made before the call is on disk. */
  async flush(): Promise<void> {
    await this.committer.flushed()
  }

  /** Waits for pending appends, then closes the database. */
  async close(): Promise<void> {
    if (this.closed) return
    await this.committer.flushed()
    this.closed = true
    this.listeners.clear()
    await this.db.close()
    await rm(join(this.location, 'owner.pid'), { force: true })
  }

  get isClosed(): boolean {
    return this.closed
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreClosedError()
  }

  /** Raw access for tools that check the log itself (verify) and for tests that damage it on purpose. */
  get raw(): ClassicLevel<Uint8Array, Uint8Array> {
    return this.db
  }
}

async function readOwnerPid(directory: string): Promise<number | undefined> {
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
async function findLastPosition(db: ClassicLevel<Uint8Array, Uint8Array>): Promise<number> {
  for await (const [key, chunk] of db.iterator({ lt: keys.EVENTS_END, gte: keys.eventKey(0), reverse: true, limit: 1 })) {
    const first = keys.positionOfEventKey(key)
    try {
      return first + decodeChunk(chunk).length - 1
    } catch {
      let last = first
      for await (const key of db.keys({ gte: keys.STREAM_MARKERS_START, lt: keys.STREAM_MARKERS_END })) {
        last = Math.max(last, (await readHead(db, keys.streamOfMarkerKey(key))).position)
      }
      return last
    }
  }
  return 0
}

const EMPTY = new Uint8Array(0)

/** Two varUints in a fresh array: the stream index value (first position, count). */
function varUints(a: number, b: number): Uint8Array {
  const value = new Uint8Array(varUintSize(a) + varUintSize(b))
  writeVarUintAt(value, writeVarUintAt(value, 0, a), b)
  return value
}

/** A stream's head, from its last index entry (version 0 at position 0 when it has none). */
async function readHead(db: ClassicLevel<Uint8Array, Uint8Array>, stream: string): Promise<StreamHead> {
  for await (const [key, value] of db.iterator({ ...keys.streamIndexRange(stream), reverse: true, limit: 1 })) {
    const decoder = decoding.createDecoder(value)
    const first = decoding.readVarUint(decoder)
    const count = decoding.readVarUint(decoder)
    return { version: keys.versionOfStreamIndexKey(key) + count - 1, position: first + count - 1 }
  }
  return { version: 0, position: 0 }
}
