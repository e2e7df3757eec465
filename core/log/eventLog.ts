import type { ChainPoint, ChainReport } from './chainReport.js'
import type { Actor } from '../events/actor.js'
import type { ExpectedStreamVersion } from './expectedVersion.js'

/**
 * The event log every part of Quire writes to and reads from: events under one global order of positions, grouped
 * into named streams with optimistic concurrency per stream, plus a keyspace for projection snapshots.
 *
 * The contract is written so that more than one implementation can keep it: the LevelDB store in this folder (one
 * process owns the log and assigns positions in memory) and a shared database that several nodes append to. So
 * nothing here promises that positions are assigned synchronously, or that this instance has seen every append:
 * `append` resolves once the log has assigned positions, and the head positions describe what this instance knows.
 * specs/contract/eventLog.contract.ts checks every promise made here against each implementation.
 */
export interface EventLog {
  /**
   * Appends events to one or more streams as one atomic unit: either every stream's events enter the log, or none
   * do. Each stream is checked against its own `expectedStreamVersion` before anything changes; when one does not
   * match, the whole append fails with ExpectedVersionConflictError and leaves no trace. Of several appends racing
   * on the same expected version of a stream, exactly one succeeds. Rejects with InvalidAppendError for input that
   * can never be valid (no streams, a stream named twice, a stream without events, an invalid stream name) and with
   * the event registry's error for an unknown type or an invalid payload, with StoreClosedError once `close` has
   * been called, and with JournalWriteError when a log that is not this process's alone cannot be reached to assign
   * positions (nothing was appended).
   *
   * Resolves once the log has assigned the events their positions and stream versions (each stream's events get
   * contiguous positions, in the order given); this is not yet durability. The batch's `durable` promise says when
   * the events are on disk, or that they never will be.
   */
  append(appends: readonly StreamAppend[]): Promise<AppendedBatch>

  /** The current version and last position of `stream`, as far as this log knows; `{ version: 0, position: 0 }` for a stream without events. */
  streamHead(stream: string): Promise<StreamHead>

  /**
   * Yields `stream`'s events with stream versions in [`fromVersion`, `toVersion`] (1-based, inclusive, defaulting to
   * the whole stream), in version order. Includes events whose append has resolved but which are not yet durable,
   * so a caller sees its own appends at once; such an event is withdrawn again if its `durable` rejects.
   */
  readStream(stream: string, range?: StreamRange): AsyncIterable<RecordedEvent>

  /**
   * Yields every event durable when the read starts with a position greater than `after` and at most `to`
   * (default: no bound), in position order. A record that cannot be decoded is skipped and reported by `quarantinedRecords`; it never
   * makes the read fail.
   */
  readAll(after?: number, options?: { readonly to?: number }): AsyncIterable<RecordedEvent>

  /** The event at `position`, durable or appended and pending; undefined when there is none or it is quarantined. */
  readEvent(position: number): Promise<RecordedEvent | undefined>

  /** Every stream whose name starts with `prefix` and that has at least one event, with its head, in no promised order. */
  streams(prefix?: string): AsyncIterable<{ readonly stream: string; readonly head: StreamHead }>

  /** The highest position this log instance has assigned or seen; 0 for an empty log. Other nodes may be ahead. */
  readonly headPosition: number

  /**
   * The highest position known to be durable. Every position from 1 to it is durable too: the durable part of the
   * log is always a contiguous prefix.
   */
  readonly durableHeadPosition: number

  /**
   * Calls `handler` with every durable event whose position is greater than `after`, in position order, each
   * exactly once: first the events already in the log (catch-up), then each event as it becomes durable (live).
   * The next event is delivered only after the promise `handler` returns has settled. Events whose `durable`
   * rejects are never delivered. Returns a function that stops the subscription; no call starts after it.
   */
  subscribe(after: number, handler: (event: RecordedEvent) => void | Promise<void>): () => void

  /**
   * Stores `snapshot` under `projection` and `key`, replacing the one there. Snapshots are derived data, never
   * part of the log: they may be written without fsync, can be lost, and no result of the log depends on them.
   */
  saveSnapshot(projection: string, key: string, snapshot: Snapshot): Promise<void>

  /**
   * The snapshot last saved under `projection` and `key`, or undefined. The log does not check that it still
   * matches the events: a caller compares its `position` (and its own format) with what it expects and ignores a
   * snapshot it cannot trust.
   */
  loadSnapshot(projection: string, key: string): Promise<Snapshot | undefined>

  /** Deletes every snapshot of `projection`. */
  clearSnapshots(projection: string): Promise<void>

  /**
   * Every record this instance found it cannot decode, in position order. A record whose bytes are damaged is noted
   * in the log and reported from the next open on, before it is read again; one this reader's registry cannot read
   * (a payload its schema refuses) is this reader's judgement, reported by this instance only. A note never hides a
   * record: each open judges the noted records again and drops the notes of those it decodes.
   */
  quarantinedRecords(): readonly QuarantinedRecord[]

  /**
   * Checks the log's own invariants against what is stored, after waiting for pending appends: positions gap-free
   * from 1 to the durable head, per-stream versions contiguous from 1, every stream head at its stream's last
   * event, no damaged records, every record readable by this registry and within the log's event versions record.
   * Reads the whole log.
   */
  /** Checks the log's own invariants and, on a store that keeps one, its hash chain (`against` a kept checkpoint). */
  checkIntegrity(options?: { readonly against?: ChainPoint }): Promise<IntegrityReport>

  /**
   * Resolves once every append made before the call has settled: it is durable, or its `durable` has rejected.
   * Never rejects, and takes at most the retry window while the disk refuses writes (a write that hangs delays it
   * until the disk answers or `close` gives up on it). It says nothing about which of the two happened: compare
   * `durableHeadPosition`, or await the appends' own `durable`. Appends made after the call do not delay it.
   */
  flush(): Promise<void>

  /**
   * Refuses further appends, settles pending ones (writing what the disk takes; what it cannot take within a
   * bounded time fails with JournalWriteError), stops every subscription and releases the log. Resolves within a
   * bounded time whatever the disk does. Calling it again returns the same promise.
   */
  close(): Promise<void>

  /** True once `close` has been called. */
  readonly isClosed: boolean

  /**
   * Resolves once this instance has read in every event other writers had made durable when it was called: its
   * durable head, reads and subscribers then include them. A decision that must not rest on what this instance
   * merely has not heard of yet (a save checking that no later save of its file was made elsewhere) waits for it.
   * Resolves at once for a log that is this process's alone. Rejects with the store's error when it cannot ask.
   */
  caughtUp(): Promise<void>
}

/** An event as the log returns it: its global position, its place in its stream, and its decoded payload. */
export interface RecordedEvent<Type extends string = string, Data = unknown> {
  readonly position: number
  readonly stream: string
  /** 1-based number of this event within its stream. */
  readonly streamVersion: number
  readonly type: Type
  /** Schema version the payload was written with (the payload itself is upcast to the current version). */
  readonly v: number
  /** When the event was appended (ms since the epoch, by the log's clock). */
  readonly at: number
  readonly actor: Actor
  readonly data: Data
}

/** An event to append: its type and payload (validated by the event registry) and who caused it. */
export interface EventInput {
  readonly type: string
  readonly data: unknown
  readonly actor: Actor
}

export interface AppendOptions {
  /** The stream version the append expects to find (Emmett's shape); default: no check. */
  readonly expectedStreamVersion?: ExpectedStreamVersion
}

/** One stream's part of an append. */
export interface StreamAppend extends AppendOptions {
  readonly stream: string
  readonly events: readonly EventInput[]
}

/** What `append` assigned, stream by stream, and when it is durable. */
export interface AppendedBatch {
  /** One entry per `StreamAppend`, in the order given. */
  readonly streams: readonly AppendedStream[]
  /**
   * Resolves once every event of the batch is durable (fsync'd, or committed by the database). Rejects with
   * JournalWriteError when the log gave up on writing them: then none of them is in the log, each stream is back at
   * the head it had before, and their positions go to later appends, so state built from these events must be
   * thrown away. A rejection nobody awaits does not crash the process.
   */
  readonly durable: Promise<void>
}

export interface AppendedStream {
  readonly stream: string
  /** The events as recorded, with their positions and stream versions. */
  readonly events: readonly RecordedEvent[]
  /** The stream's version after this append: the `expectedStreamVersion` for the next append to it. */
  readonly nextExpectedStreamVersion: number
  /** True when the stream had no events before this append. */
  readonly createdNewStream: boolean
}

export interface StreamRange {
  readonly fromVersion?: number
  readonly toVersion?: number
}

export interface StreamHead {
  /** Number of events in the stream (0 when it has none). */
  readonly version: number
  /** Position of the stream's last event (0 when it has none). */
  readonly position: number
}

/** A stored record that could not be decoded, kept out of every read. */
export interface QuarantinedRecord {
  readonly position: number
  readonly reason: string
  /** Size of the damaged record. */
  readonly bytes: number
}

export interface IntegrityReport {
  readonly events: number
  readonly streams: number
  readonly head: number
  /** Human-readable violations; empty when the log is sound. */
  readonly problems: readonly string[]
  readonly quarantined: readonly QuarantinedRecord[]
  /** The hash chain recomputed from the records (hashChain.ts); absent on a store that does not keep one. */
  readonly chain?: ChainReport
}

/** A projection's saved state as of `position` (every event up to it folded in), in the projection's own encoding. */
export interface Snapshot {
  readonly position: number
  readonly payload: Uint8Array
}
