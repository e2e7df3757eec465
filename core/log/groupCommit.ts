import { JournalWriteError } from './errors.js'

/**
 * Group commit: appends from concurrent callers share one synced LevelDB batch. While a batch is being written,
 * new appends queue up; when it lands, everything queued goes out as the next batch. One caller alone pays one
 * synced write; 64 callers pay about one synced write between them. No caller is told "done" before its batch is
 * on disk, and batches land strictly in order, so positions on disk are always a contiguous prefix.
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
}

const DEFAULT_RETRY_WINDOW_MS = 5_000

export class GroupCommitter<Operation = BatchOperation> {
  private queue: PendingAppend<Operation>[] = []
  private inFlight: PendingAppend<Operation>[] = []
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

  constructor(
    private readonly write: (operations: Operation[]) => Promise<void>,
    private readonly options: GroupCommitOptions = {},
  ) {
    this.maxOperations = options.maxOperations ?? 16_384
  }

  private returning = 0
  private scheduled = false
  submit(append: PendingAppend<Operation>): void {
    this.queue.push(append)
    this.submittedPosition = Math.max(this.submittedPosition, append.lastPosition)
    if (this.writing) return
    if (this.returning > 0 && this.queue.length * 2 >= this.returning) {
      this.returning = 0
      this.writing = this.drain()
      return
    }
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      if (this.writing || this.queue.length === 0) return
      this.returning = 0
      this.writing = this.drain()
    })
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
    while (this.writing) await this.writing
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
      // Let the appenders acked by the previous batch (whose continuations are still queued microtasks) append
      // again before this batch is cut; otherwise batches alternate between one append and all the others.
      while (this.queue.length > 0 && generation === this.generation) {
        const batch = this.takeBatch()
        this.inFlight = batch
        const operations = batch.flatMap((append) => append.operations)
        const error = await this.writeWithRetry(operations, generation)
        if (generation !== this.generation) return
        this.inFlight = []
        if (error === undefined) {
          this.committed(batch)
          if (this.queue.length === 0) this.returning = batch.length
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

  private committed(batch: readonly PendingAppend<Operation>[]): void {
    const lastPosition = batch[batch.length - 1]!.lastPosition
    this.committedPosition = lastPosition
    this.options.onCommitted?.(lastPosition)
    for (const append of batch) append.resolve()
    if (this.waiters.length > 0) {
      const ready = this.waiters.filter((waiter) => waiter.position <= lastPosition)
      this.waiters = this.waiters.filter((waiter) => waiter.position > lastPosition)
      for (const waiter of ready) waiter.resolve()
    }
  }

  /** Fails `batch` and the appends queued `behind` it (together every pending one) and takes their positions back. */
  private fail(
    batch: readonly PendingAppend<Operation>[],
    behind: readonly PendingAppend<Operation>[],
    reason: 'write-failed' | 'closed',
    cause: unknown,
  ): void {
    const firstPosition = batch[0]!.firstPosition
    this.submittedPosition = this.committedPosition
    this.lastError = undefined
    this.options.onFailed?.(firstPosition)
    for (const append of batch) append.reject(new JournalWriteError(firstPosition, reason, { cause }))
    for (const append of behind) {
      append.reject(new JournalWriteError(firstPosition, reason === 'closed' ? 'closed' : 'behind-failed-batch', { cause }))
    }
    // Every waiter was waiting for appends that are now settled.
    const waiters = this.waiters
    this.waiters = []
    for (const waiter of waiters) waiter.resolve()
  }

  private takeBatch(): PendingAppend<Operation>[] {
    let count = 0
    let taken = 0
    while (taken < this.queue.length) {
      const size = this.queue[taken]!.operations.length
      if (taken > 0 && count + size > this.maxOperations) break
      count += size
      taken++
    }
    return this.queue.splice(0, taken)
  }

  /** Writes `operations`, retrying failures within the retry window; returns the last error when it gave up. */
  private async writeWithRetry(operations: Operation[], generation: number): Promise<unknown> {
    let delay = this.options.retryDelayMs ?? 50
    const window = this.options.retryWindowMs ?? DEFAULT_RETRY_WINDOW_MS
    let firstFailure: number | undefined
    for (;;) {
      try {
        await this.write(operations)
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
}
