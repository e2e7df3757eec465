import type { EventRegistry } from '../events/schema.js'
import { settlesWithin } from '../deadline.js'
import { InvalidAppendError } from './errors.js'
import type { AppendedStream, QuarantinedRecord, RecordedEvent, StreamAppend, StreamHead } from './eventLog.js'
import { assertExpectedVersion, NO_CONCURRENCY_CHECK } from './expectedVersion.js'
import { GroupCommitter } from './groupCommit.js'
import { chunkLinks, GENESIS, lastLink } from './hashChain.js'
import { isValidStreamName } from './streamNames.js'
import { subscribeCatchingUp, type DurableListener } from './subscription.js'

/** What a storage driver gives the pipeline: how to write a batch atomically and how to read a stream's head. */
export interface PipelineStorage<Row> {
  /** Writes every row of one group-committed batch, all or none; rejects when it cannot (the batch is retried). */
  write(rows: Row[]): Promise<void>
  /** The stream's head as the durable log has it. */
  loadHead(stream: string): Promise<StreamHead>
  /** After a batch landed and subscribers heard of it, with the position of its last event. */
  committed?(lastPosition: number): void
  /**
   * After appends failed for good and their positions were taken back (the log ends at the durable head again),
   * with the first failed position and the epoch the earliest failed append was assigned in.
   */
  rolledBack?(firstPosition: number, epoch: number): void
}

export interface PipelineOptions {
  readonly registry: EventRegistry
  /** Clock for `at`; tests pin it. */
  readonly now?: () => number
  readonly maxOperations?: number
  readonly retryWindowMs?: number
  /** The chain's link of the last durable record (hashChain.ts), for a store that keeps the chain. */
  readonly chainHead?: Uint8Array
}

/** One stream's events as assigned, with the head it had before (`AppendedStream` without its durability). */
export interface AssignedStream {
  readonly stream: string
  readonly events: readonly RecordedEvent[]
  readonly head: StreamHead
  readonly version: number
}

/** An append not yet durable, with the heads its streams had before it (to restore if it fails). */
interface Unsettled {
  readonly lastPosition: number
  readonly epoch: number
  readonly before: readonly (readonly [string, StreamHead])[]
  /** The chain's head before it (restored with the stream heads if it fails). */
  readonly chainBefore: Uint8Array
}

/**
 * The part of the log every store shares, whatever keeps the bytes: positions and stream versions assigned in
 * memory ahead of durability (so a caller sees its events, in log order, before they land), the group committer
 * that writes them, the rollback that takes back every position after the durable head when a batch fails for
 * good, the quarantine register, in-order delivery to subscribers and a bounded settle on close. A store keeps
 * only what storage must: encoding rows, writing a batch, reading ranges and heads.
 *
 * Assignment is synchronous: between the version checks and the positions nothing awaits, so of appends racing on
 * the same expected version exactly one wins. The durable part of the log is always a contiguous prefix.
 */
export class AppendPipeline<Row> {
  readonly heads = new Map<string, StreamHead>()
  private readonly headLoads = new Map<string, Promise<StreamHead>>()
  readonly listeners = new Set<DurableListener>()
  private readonly quarantined = new Map<number, QuarantinedRecord>()
  readonly committer: GroupCommitter<Row>
  nextPosition: number
  durablePosition: number
  /** Stamped on each append: a store whose right to write can lapse (a lease) bumps it to tell old appends apart. */
  epoch = 0
  /** Events appended but not yet durable, in position order, for readers and the subscribers' live tail. */
  private undelivered: RecordedEvent[] = []
  private unsettled: Unsettled[] = []
  private closing: Promise<void> | undefined
  /** The chain's link of the last assigned record (hashChain.ts); only a store that keeps the chain moves it. */
  private chainHead: Uint8Array

  constructor(
    lastPosition: number,
    private readonly storage: PipelineStorage<Row>,
    private readonly options: PipelineOptions,
  ) {
    this.nextPosition = lastPosition + 1
    this.durablePosition = lastPosition
    this.chainHead = options.chainHead ?? GENESIS
    this.committer = new GroupCommitter<Row>((rows) => storage.write(rows), {
      ...(options.maxOperations !== undefined ? { maxOperations: options.maxOperations } : {}),
      ...(options.retryWindowMs !== undefined ? { retryWindowMs: options.retryWindowMs } : {}),
      onCommitted: (lastPosition) => this.committed(lastPosition),
      onFailed: (firstPosition) => this.rolledBack(firstPosition),
    })
  }

  /** Appends assigned and not yet settled. */
  get inFlight(): boolean {
    return this.unsettled.length > 0
  }

  /** The head of `stream`: this log's own when it has one, else loaded once however many ask at the same time. */
  streamHead(stream: string): Promise<StreamHead> {
    const known = this.heads.get(stream)
    if (known) return Promise.resolve(known)
    let loading = this.headLoads.get(stream)
    if (!loading) {
      loading = this.loadHead(stream).finally(() => this.headLoads.delete(stream))
      this.headLoads.set(stream, loading)
    }
    return loading
  }

  private async loadHead(stream: string): Promise<StreamHead> {
    const head = await this.storage.loadHead(stream)
    // An append (or another writer's events) may have registered the head while it was read; that one is newer.
    const known = this.heads.get(stream)
    if (known) return known
    this.heads.set(stream, head)
    return head
  }

  /**
   * Loads the heads of the streams this log does not hold yet (invalid names are refused by `assign`); undefined
   * when it holds them all, so that the usual append does not wait a turn for nothing.
   */
  loadHeads(streams: Iterable<string>): Promise<unknown> | undefined {
    let loads: Promise<StreamHead>[] | undefined
    for (const stream of streams) {
      if (!this.heads.has(stream) && isValidStreamName(stream)) (loads ??= []).push(this.streamHead(stream))
    }
    return loads && Promise.all(loads)
  }

  /**
   * The synchronous half of an append: checks the input and every stream's expected version against its head,
   * assigns positions and versions, lets `toRows` turn them into the store's rows, registers the new heads and
   * hands the rows to the group committer. Every stream's head must be loaded. Throws, changing nothing, on invalid
   * input, an unknown type or invalid payload (the registry's error) and a version conflict.
   */
  assign(
    appends: readonly StreamAppend[],
    toRows: (assigned: readonly AssignedStream[], lastPosition: number) => Row[],
    /** Each event's schema version, when the store asked the registry already (`prepareVersions`). */
    prepared?: readonly (readonly number[])[],
  ): {
    readonly streams: (Omit<AppendedStream, 'stream'> & { readonly stream: string })[]
    readonly durable: Promise<void>
  } {
    validateAppends(appends)
    for (const { stream, expectedStreamVersion } of appends) {
      const head = this.heads.get(stream)
      if (!head) throw new InvalidAppendError(`stream ${stream} is not loaded; await streamHead() before appending`)
      assertExpectedVersion(stream, expectedStreamVersion ?? NO_CONCURRENCY_CHECK, head.version)
    }
    const versions = prepared ?? this.prepareVersions(appends)
    const at = (this.options.now ?? Date.now)()
    const assigned: AssignedStream[] = []
    let position = this.nextPosition
    appends.forEach(({ stream, events }, index) => {
      const head = this.heads.get(stream)!
      const recorded: RecordedEvent[] = []
      let version = head.version
      events.forEach((event, eventIndex) => {
        version++
        recorded.push({ position, stream, streamVersion: version, type: event.type, v: versions[index]![eventIndex]!, at, actor: event.actor, data: event.data })
        position++
      })
      assigned.push({ stream, events: recorded, head, version })
    })
    const chainBefore = this.chainHead
    let rows: Row[]
    try {
      rows = toRows(assigned, position - 1)
    } catch (error) {
      // Nothing was assigned: the chain's head goes back with the positions.
      this.chainHead = chainBefore
      throw error
    }
    const events: RecordedEvent[] = []
    for (const stream of assigned) for (const event of stream.events) events.push(event)
    const durable = this.register(
      events,
      assigned.map(({ stream, head }) => [stream, head] as const),
      rows,
      chainBefore,
    )
    return {
      streams: assigned.map(({ stream, events, head, version }) => ({ stream, events, nextExpectedStreamVersion: version, createdNewStream: head.version === 0 })),
      durable,
    }
  }

  /**
   * Registers events already given their positions (from `nextPosition` on, contiguous, in position order) and
   * stream versions, with the heads their streams had `before`, and hands their rows to the group committer;
   * resolves once they are durable, rejects with JournalWriteError if never.
   */
  register(events: readonly RecordedEvent[], before: readonly (readonly [string, StreamHead])[], rows: Row[], chainBefore = this.chainHead): Promise<void> {
    for (const event of events) {
      this.heads.set(event.stream, { version: event.streamVersion, position: event.position })
      this.undelivered.push(event)
    }
    const firstPosition = events[0]!.position
    const lastPosition = events[events.length - 1]!.position
    this.unsettled.push({ lastPosition, epoch: this.epoch, before, chainBefore })
    this.nextPosition = lastPosition + 1
    // Shared by the appends that go out in the same write; a caller may drop it (the committer handles a rejection).
    return this.committer.append(rows, firstPosition, lastPosition)
  }

  /** The chain's link of the last record assigned (to restore if what computed links after it fails). */
  get chain(): Uint8Array {
    return this.chainHead
  }

  /**
   * The chain's links of a chunk about to be written whose first record is at `firstPosition` (from `toRows`, in
   * position order): they follow the last record assigned, and the next chunk's follow them.
   */
  link(firstPosition: number, chunk: Uint8Array): Uint8Array {
    const links = chunkLinks(this.chainHead, firstPosition, chunk)
    this.chainHead = lastLink(links)
    return links
  }

  /** Each event's schema version; throws the registry's error for an unknown type or an invalid payload. */
  prepareVersions(appends: readonly StreamAppend[]): number[][] {
    return appends.map(({ events }) => events.map((event) => this.options.registry.prepare(event.type, event.data)))
  }

  private committed(lastPosition: number): void {
    this.durablePosition = lastPosition
    let settled = 0
    while (settled < this.unsettled.length && this.unsettled[settled]!.lastPosition <= lastPosition) settled++
    this.unsettled.splice(0, settled)
    let count = 0
    while (count < this.undelivered.length && this.undelivered[count]!.position <= lastPosition) count++
    const delivered = this.undelivered.splice(0, count)
    for (const listener of this.listeners) listener(delivered)
    this.storage.committed?.(lastPosition)
  }

  /** Takes back every position from `firstPosition` on (the committer failed those appends): the log ends at the durable head again. */
  private rolledBack(firstPosition: number): void {
    const epoch = this.unsettled[0]?.epoch ?? this.epoch
    if (this.unsettled[0]) this.chainHead = this.unsettled[0].chainBefore
    // Newest first, so each stream ends at the head it had before the earliest failed append touched it.
    for (let i = this.unsettled.length - 1; i >= 0; i--) {
      for (const [stream, head] of this.unsettled[i]!.before) this.heads.set(stream, head)
    }
    this.unsettled = []
    this.undelivered = this.undelivered.filter((event) => event.position < firstPosition)
    this.nextPosition = firstPosition
    this.storage.rolledBack?.(firstPosition, epoch)
  }

  /**
   * Events another writer made durable, read in with their stream heads: only while this log has nothing of its own
   * in flight, so their positions and its own never interleave. Subscribers get them in order.
   */
  readIn(events: readonly RecordedEvent[], heads: Iterable<readonly [string, StreamHead]>, lastPosition: number, chainHead?: Uint8Array): void {
    for (const [stream, head] of heads) this.heads.set(stream, head)
    if (chainHead) this.chainHead = chainHead
    this.durablePosition = lastPosition
    this.nextPosition = lastPosition + 1
    for (const listener of this.listeners) listener(events)
  }

  /**
   * What a read of `stream` merges with the durable log, taken in one step before the storage is read: an event
   * that lands meanwhile is then in `pending` too, so the storage up to `durable` plus `pending` misses none.
   */
  pendingOf(stream: string): { readonly pending: readonly RecordedEvent[]; readonly durable: number } {
    return { pending: this.undelivered.filter((event) => event.stream === stream), durable: this.durablePosition }
  }

  /** The appended, not yet durable event at `position`, if any. */
  pendingAt(position: number): RecordedEvent | undefined {
    return this.undelivered.find((event) => event.position === position)
  }

  /** Heads of streams starting with `prefix` that storage did not list (created by appends not durable yet). */
  *unlisted(prefix: string, listed: ReadonlySet<string>): Generator<{ stream: string; head: StreamHead }> {
    for (const [stream, head] of this.heads) {
      if (head.version > 0 && stream.startsWith(prefix) && !listed.has(stream)) yield { stream, head }
    }
  }

  /** Notes a record this log cannot decode; false when it was noted already. */
  quarantine(position: number, reason: string, bytes: number): boolean {
    if (this.quarantined.has(position)) return false
    this.quarantined.set(position, { position, reason, bytes })
    return true
  }

  quarantineReason(position: number): string | undefined {
    return this.quarantined.get(position)?.reason
  }

  quarantinedRecords(): QuarantinedRecord[] {
    return [...this.quarantined.values()].sort((a, b) => a.position - b.position)
  }

  subscribe(
    after: number,
    handler: (event: RecordedEvent) => void | Promise<void>,
    readAll: (after: number, options: { readonly to: number }) => AsyncIterable<RecordedEvent>,
    closed: () => boolean,
  ): () => void {
    return subscribeCatchingUp({ listeners: this.listeners, readAll, durableHead: () => this.durablePosition, closed }, after, handler)
  }

  flush(): Promise<void> {
    return this.committer.flushed()
  }

  /** True once `close` has been called. */
  get isClosed(): boolean {
    return this.closing !== undefined
  }

  /**
   * Closes within one deadline, `timeoutMs` from now: settles pending appends (a failing write no more retries; what
   * does not settle in time fails as closed), stops every subscription, then lets the store `release` itself with
   * the time `left`. Calling it again returns the same promise.
   */
  close(timeoutMs: number, release: (left: () => number) => Promise<void>): Promise<void> {
    this.closing ??= (async () => {
      const deadline = Date.now() + timeoutMs
      const left = () => Math.max(0, deadline - Date.now())
      if (!(await settlesWithin(this.committer.close(), left()))) this.committer.abandon()
      this.listeners.clear()
      await release(left)
    })()
    return this.closing
  }
}

/** Refuses input no append can take: no streams, a stream named twice, a stream without events, an invalid name. */
export function validateAppends(appends: readonly StreamAppend[]): void {
  if (appends.length === 0) throw new InvalidAppendError('an atomic append needs at least one stream')
  // One stream (the usual append) cannot appear twice: no set to build.
  const seen = appends.length > 1 ? new Set<string>() : undefined
  for (const { stream, events } of appends) {
    if (!isValidStreamName(stream)) throw new InvalidAppendError(`invalid stream name ${JSON.stringify(stream)}`)
    if (seen?.has(stream)) throw new InvalidAppendError(`stream ${stream} appears twice in one atomic append`)
    seen?.add(stream)
    if (events.length === 0) throw new InvalidAppendError('an append needs at least one event')
  }
}
