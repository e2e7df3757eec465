/**
 * Group commit: appends from concurrent callers share one synced LevelDB batch. While a batch is being written,
 * new appends queue up; when it lands, everything queued goes out as the next batch. One caller alone pays one
 * synced write; 64 callers pay about one synced write between them. No caller is told "done" before its batch is
 * on disk, and batches land strictly in order, so positions on disk are always a contiguous prefix.
 *
 * A failed write is retried with backoff, same batch, same order: an append is never dropped and never reordered.
 * Callers that cannot wait that long race `durable` against their own deadline.
 */

export interface BatchOperation {
  readonly type: 'put'
  readonly key: Uint8Array
  readonly value: Uint8Array
}

export interface PendingAppend {
  readonly operations: readonly BatchOperation[]
  readonly lastPosition: number
  resolve(): void
}

export type WriteBatch = (operations: BatchOperation[]) => Promise<void>

export interface GroupCommitOptions {
  /** Most operations one batch carries; the rest wait for the next. */
  readonly maxOperations?: number
  /** Backoff after a failed write, doubling up to the maximum. */
  readonly retryDelayMs?: number
  readonly maxRetryDelayMs?: number
  /** Called with each failure (for status reporting); the batch is retried regardless. */
  readonly onWriteError?: (error: unknown, attempt: number) => void
  /** Called after each batch lands, with the position of its last event. */
  readonly onCommitted?: (lastPosition: number) => void
}

export class GroupCommitter {
  private queue: PendingAppend[] = []
  private writing: Promise<void> | undefined
  private submittedPosition = 0
  private committedPosition = 0
  private waiters: { position: number; resolve: () => void }[] = []
  private lastError: unknown
  private readonly maxOperations: number

  constructor(
    private readonly write: WriteBatch,
    private readonly options: GroupCommitOptions = {},
  ) {
    this.maxOperations = options.maxOperations ?? 16_384
  }

  submit(append: PendingAppend): void {
    this.queue.push(append)
    this.submittedPosition = Math.max(this.submittedPosition, append.lastPosition)
    if (!this.writing) this.writing = this.drain()
  }

  /** Number of appends not yet on disk. */
  get backlog(): number {
    return this.queue.length
  }

  /** The last write error while a batch is still being retried, else undefined. */
  get failing(): unknown {
    return this.lastError
  }

  /** Resolves when everything submitted before the call is on disk (later submissions do not delay it). */
  flushed(): Promise<void> {
    const position = this.submittedPosition
    if (this.committedPosition >= position) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push({ position, resolve }))
  }

  private async drain(): Promise<void> {
    try {
      // Let the appenders acked by the previous batch (whose continuations are still queued microtasks) append
      // again before this batch is cut; otherwise batches alternate between one append and all the others.
      await new Promise<void>((resolve) => setImmediate(resolve))
      while (this.queue.length > 0) {
        const batch = this.takeBatch()
        const operations = batch.flatMap((append) => append.operations)
        await this.writeWithRetry(operations)
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
    } finally {
      this.writing = undefined
    }
  }

  private takeBatch(): PendingAppend[] {
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

  private async writeWithRetry(operations: BatchOperation[]): Promise<void> {
    let delay = this.options.retryDelayMs ?? 50
    for (let attempt = 1; ; attempt++) {
      try {
        await this.write(operations)
        this.lastError = undefined
        return
      } catch (error) {
        this.lastError = error
        this.options.onWriteError?.(error, attempt)
        await new Promise((resolve) => setTimeout(resolve, delay))
        delay = Math.min(delay * 2, this.options.maxRetryDelayMs ?? 2_000)
      }
    }
  }
}
