import { JournalWriteError } from './errors.js'

/**
 * Group commit: appends from concurrent callers share one synced LevelDB batch. While a batch is being written,
 * new appends queue up; when it lands, everything queued goes out as the next batch at once, before anyone hears
 * that the first one landed. One caller alone pays one synced write; 64 callers pay about one synced write between
 * them. No caller is told "done" before its batch is on disk, and batches land strictly in order (one write at a
 * time), so positions on disk are always a contiguous prefix.
 *
 * The disk cuts the batches, not a timer. When a write lands with nothing queued behind it, the disk falls idle,
 * and the appenders it just released are about to come back (their continuations run right after the ack). The next
 * batch then closes as soon as they are all back, or, on a disk whose synced write costs less than their coming
 * back does, once half of them are: the two halves then take turns, one on the disk while the other's JavaScript
 * runs, at the price of one more synced write per turn (see `closesEarly`). Only an append that finds the disk
 * idle with no one due back (the first after a pause) waits for the end of the current turn, so that appends made
 * in the same turn share its write.
 *
 * A failed write is retried with backoff, same batch, same order, for a bounded time (a disk that is full for a
 * moment must not fail anyone). When the disk still refuses it after that, the batch fails, and so does every
 * append queued behind it, since their positions come after it: `onFailed` runs first, synchronously, so the
 * owner can take those positions back before any caller hears of it, and the committer is ready for the next
 * append at once.
 */
export interface BatchOperation {
  readonly type: 'put'
  readonly key: Uint8Array
  readonly value: Uint8Array
}

/** One append's part of a batch: its operations (LevelDB puts by default; another store's rows) and positions. */
export interface PendingAppend<Operation = BatchOperation> {
  readonly operations: readonly Operation[]
  /** Position of the append's first and last event. */
  readonly firstPosition: number
  readonly lastPosition: number
  resolve(): void
  reject(error: JournalWriteError): void
}

export interface GroupCommitOptions {
  /** Most operations one batch carries; the rest wait for the next. */
  readonly maxOperations?: number
  /** Backoff after a failed write, doubling up to the maximum. */
  readonly retryDelayMs?: number
  readonly maxRetryDelayMs?: number
  /** How long a batch whose writes keep failing is retried, from its first failure, before it fails for good. */
  readonly retryWindowMs?: number
  /** Called after each batch lands, with the position of its last event. */
  readonly onCommitted?: (lastPosition: number) => void
  /**
   * Called when appends fail for good, before any of them is rejected, with the first position that will not land
   * (every submitted append from it on failed).
   */
  readonly onFailed?: (firstPosition: number) => void
  /** Clock (ms) for timing writes and how fast released appenders come back; tests drive it by hand. */
  readonly now?: () => number
}

const DEFAULT_RETRY_WINDOW_MS = 5_000

/**
 * The appends that go out in one write share one promise: on the append path a promise, its executor and its
 * resolving functions per append showed in the profile, and the acks of a batch are one event anyway. A ticket
 * stops taking appends once its batch is cut, or when one more would make the batch carry more than the most
 * operations a batch may.
 */
class Ticket {
  readonly durable: Promise<void>
  resolve!: () => void
  reject!: (error: JournalWriteError) => void
  operations = 0
  cut = false
  constructor() {
    this.durable = new Promise<void>((resolve, reject) => {
      this.resolve = resolve
      this.reject = reject
    })
    // A caller that drops the promise must not crash the process when it rejects; one that awaits it sees why.
    this.durable.catch(() => {})
  }
}

interface Queued<Operation> {
  readonly operations: readonly Operation[]
  readonly firstPosition: number
  readonly lastPosition: number
  readonly ticket: Ticket
}

export class GroupCommitter<Operation = BatchOperation> {
  private queue: Queued<Operation>[] = []
  private inFlight: Queued<Operation>[] = []
  /** The ticket appends join until its batch is cut. */
  private open: Ticket | undefined
  private writing: Promise<void> | undefined
  private submittedPosition = 0
  private committedPosition = 0
  private waiters: { position: number; resolve: () => void }[] = []
  private lastError: unknown
  private closing = false
  /** Bumped when pending appends are failed without waiting for their write; a write that returns later is ignored. */
  private generation = 0
  private wakeRetry: (() => void) | undefined
  private readonly maxOperations: number
  /**
   * Appends the last write acked (with those queued behind it, if they wait for them), until a batch is cut or the
   * turn that acked them ends: due back soon.
   */
  private released = 0
  private releasedAt = 0
  /** How long a one-append synced write takes (a moving average): the fixed cost of a write, measured. */
  private oneAppendWriteMs: number | undefined
  /** How long released appenders took to come back, per append (a moving average): their JavaScript. */
  private comebackMs: number | undefined
  private endOfTurnScheduled = false
  private readonly now: () => number

  constructor(
    private readonly write: (operations: Operation[]) => Promise<void>,
    private readonly options: GroupCommitOptions = {},
  ) {
    this.maxOperations = options.maxOperations ?? 16_384
    this.now = options.now ?? (() => performance.now())
  }

  /** Queues an append (positions `firstPosition`..`lastPosition`, in order after every earlier one). */
  submit(append: PendingAppend<Operation>): void {
    this.append(append.operations, append.firstPosition, append.lastPosition).then(append.resolve, append.reject)
  }

  /**
   * Queues an append; resolves once it is on disk, rejects with JournalWriteError if it never will be. Appends that
   * go out in the same write share the promise.
   */
  append(operations: readonly Operation[], firstPosition: number, lastPosition: number): Promise<void> {
    let ticket = this.open
    if (!ticket || ticket.cut || (ticket.operations > 0 && ticket.operations + operations.length > this.maxOperations)) {
      ticket = this.open = new Ticket()
    }
    ticket.operations += operations.length
    this.queue.push({ operations, firstPosition, lastPosition, ticket })
    this.submittedPosition = Math.max(this.submittedPosition, lastPosition)
    this.wake()
    return ticket.durable
  }

  private wake(): void {
    // With a write in flight, the append goes out when it returns.
    if (this.writing) return
    if (this.released > 0 && this.closesNow()) this.startWriting()
    else this.closeAtEndOfTurn()
  }

  /**
   * Whether the batch waiting for the appenders the last write released closes now: when they are all back, or
   * when half are back and taking turns pays (`turnsPay`, judged on the JavaScript they took to come back so far).
   */
  private closesNow(): boolean {
    const back = this.queue.length
    if (back >= this.released) {
      this.measuredComeback((this.now() - this.releasedAt) / back)
      return true
    }
    if (back * 2 < this.released) return false
    const perAppendMs = (this.now() - this.releasedAt) / back
    if (!this.turnsPay(this.released, perAppendMs)) return false
    this.measuredComeback(perAppendMs)
    return true
  }

  /**
   * Whether `appenders` that each take `perAppendMs` of JavaScript to come back are better served by two batches
   * taking turns than by one. One batch keeps the disk idle for the whole turn's JavaScript; two cost one more
   * synced write per turn, whose fixed cost is about what a one-append write takes. So: turns pay when the
   * JavaScript of a whole turn costs more than that write (a disk with a cheap fsync and many appenders), and never
   * before both have been measured.
   */
  private turnsPay(appenders: number, perAppendMs: number | undefined): boolean {
    if (perAppendMs === undefined || this.oneAppendWriteMs === undefined) return false
    return perAppendMs * appenders > this.oneAppendWriteMs
  }

  /**
   * After a write lands: whether the appends queued behind it go out at once. They do when they are a turn of their
   * own (at least half of the appenders) and turns pay. Otherwise they wait for the appenders just acked to come
   * back, so that the two groups merge into one batch (a slow disk) or split evenly (`closesNow`): left to
   * themselves, a small group and a big one would keep taking turns for ever.
   */
  private queuedGoOut(landed: number): boolean {
    const queued = this.queue.length
    if (queued === 0) return false
    const appenders = landed + queued
    return queued * 2 >= appenders && this.turnsPay(appenders, this.comebackMs)
  }

  /**
   * The end of the current turn: for appends that found the disk idle and nobody due back, for released appenders
   * that did not all come back, and to end a release.
   */
  private closeAtEndOfTurn(): void {
    if (this.endOfTurnScheduled) return
    this.endOfTurnScheduled = true
    setImmediate(this.endOfTurn)
  }

  private readonly endOfTurn = (): void => {
    this.endOfTurnScheduled = false
    // Appenders that come back do so in the turn that acked them; after it, a release says nothing (an append much
    // later is not a "comeback" to time) and whatever is queued goes out.
    this.released = 0
    if (!this.writing && this.queue.length > 0) this.startWriting()
  }

  private startWriting(): void {
    this.released = 0
    this.writing = this.drain()
  }

  /** The last write error while a batch is still being retried, else undefined. */
  get failing(): unknown {
    return this.lastError
  }

  /** Resolves when everything submitted before the call has landed or failed (later submissions do not delay it). */
  flushed(): Promise<void> {
    const position = this.submittedPosition
    if (this.committedPosition >= position) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push({ position, resolve }))
  }

  /**
   * Stops retrying: from now on a batch fails at its first failed write. Resolves once nothing is pending. Appends
   * may still be submitted (and are written) until the owner stops taking them.
   */
  close(): Promise<void> {
    this.closing = true
    this.wakeRetry?.()
    return this.settled()
  }

  /** Resolves once nothing is queued or being written. */
  async settled(): Promise<void> {
    for (;;) {
      // Appends waiting for their batch to close go out now: nobody waits for a batch to fill on the way out.
      if (!this.writing && this.queue.length > 0) this.startWriting()
      if (!this.writing) return
      await this.writing
    }
  }

  /**
   * Fails every pending append now, including a batch whose write has not returned: for a shutdown that cannot
   * wait for a disk that hangs. Such a write may still land; its result is ignored.
   */
  abandon(): void {
    const pending = [...this.inFlight, ...this.queue]
    this.inFlight = []
    this.queue = []
    this.generation++
    this.writing = undefined
    this.wakeRetry?.()
    if (pending.length > 0) this.fail(pending, [], 'closed', undefined)
  }

  private async drain(): Promise<void> {
    const generation = this.generation
    try {
      while (this.queue.length > 0 && generation === this.generation) {
        const batch = this.takeBatch()
        this.inFlight = batch
        const operations: Operation[] = []
        for (const append of batch) for (const operation of append.operations) operations.push(operation)
        const error = await this.writeWithRetry(operations, generation, batch.length === 1)
        if (generation !== this.generation) return
        this.inFlight = []
        if (error === undefined) {
          this.committed(batch)
          // The acked appenders' continuations run after this turn. Unless what is queued goes out now, the loop
          // ends here and the next batch closes as they come back (`submit`).
          if (!this.queuedGoOut(batch.length)) {
            this.released = batch.length + this.queue.length
            this.releasedAt = this.now()
            this.closeAtEndOfTurn()
            break
          }
        } else {
          // Everything queued behind the failed batch holds later positions: it cannot land before the batch does.
          const behind = this.queue
          this.queue = []
          this.fail(batch, behind, 'write-failed', error)
        }
      }
    } finally {
      if (generation === this.generation) this.writing = undefined
    }
  }

  private committed(batch: readonly Queued<Operation>[]): void {
    const lastPosition = batch[batch.length - 1]!.lastPosition
    this.committedPosition = lastPosition
    this.options.onCommitted?.(lastPosition)
    // A batch is one ticket (`takeBatch`).
    batch[0]!.ticket.resolve()
    if (this.waiters.length > 0) {
      const ready = this.waiters.filter((waiter) => waiter.position <= lastPosition)
      this.waiters = this.waiters.filter((waiter) => waiter.position > lastPosition)
      for (const waiter of ready) waiter.resolve()
    }
  }

  /** Fails `batch` and the appends queued `behind` it (together every pending one) and takes their positions back. */
  private fail(
    batch: readonly Queued<Operation>[],
    behind: readonly Queued<Operation>[],
    reason: 'write-failed' | 'closed',
    cause: unknown,
  ): void {
    const firstPosition = batch[0]!.firstPosition
    this.submittedPosition = this.committedPosition
    this.lastError = undefined
    this.options.onFailed?.(firstPosition)
    // Each ticket once: its appends are next to each other. (Abandoned, `batch` may hold several.)
    let rejected: Ticket | undefined
    const reject = (append: Queued<Operation>, failure: JournalWriteError['reason']) => {
      if (append.ticket === rejected) return
      rejected = append.ticket
      // Settled: no later append may join it.
      append.ticket.cut = true
      append.ticket.reject(new JournalWriteError(firstPosition, failure, { cause }))
    }
    for (const append of batch) reject(append, reason)
    for (const append of behind) reject(append, reason === 'closed' ? 'closed' : 'behind-failed-batch')
    // Every waiter was waiting for appends that are now settled.
    const waiters = this.waiters
    this.waiters = []
    for (const waiter of waiters) waiter.resolve()
  }

  /** The appends of the first ticket in the queue: one batch. */
  private takeBatch(): Queued<Operation>[] {
    const ticket = this.queue[0]!.ticket
    ticket.cut = true
    let taken = 1
    while (taken < this.queue.length && this.queue[taken]!.ticket === ticket) taken++
    return this.queue.splice(0, taken)
  }

  /** Writes `operations`, retrying failures within the retry window; returns the last error when it gave up. */
  private async writeWithRetry(operations: Operation[], generation: number, oneAppend: boolean): Promise<unknown> {
    let delay = this.options.retryDelayMs ?? 50
    const window = this.options.retryWindowMs ?? DEFAULT_RETRY_WINDOW_MS
    let firstFailure: number | undefined
    for (;;) {
      try {
        const started = this.now()
        await this.write(operations)
        if (oneAppend && firstFailure === undefined) this.measuredOneAppendWrite(this.now() - started)
        this.lastError = undefined
        return undefined
      } catch (error) {
        if (generation !== this.generation) return error
        this.lastError = error
        firstFailure ??= Date.now()
        const left = firstFailure + window - Date.now()
        if (this.closing || left <= 0) return error
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(delay, left))
          this.wakeRetry = () => {
            clearTimeout(timer)
            resolve()
          }
        })
        this.wakeRetry = undefined
        if (generation !== this.generation) return error
        delay = Math.min(delay * 2, this.options.maxRetryDelayMs ?? 2_000)
      }
    }
  }

  private measuredOneAppendWrite(ms: number): void {
    this.oneAppendWriteMs = movingAverage(this.oneAppendWriteMs, ms)
  }

  private measuredComeback(perAppendMs: number): void {
    this.comebackMs = movingAverage(this.comebackMs, perAppendMs)
  }
}

const movingAverage = (average: number | undefined, sample: number): number =>
  average === undefined ? sample : average + (sample - average) / 8
