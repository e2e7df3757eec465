/**
 * The turn to assign log positions, shared by every node writing to one PostgreSQL log: a session-level advisory
 * lock that a node holds while it has appends between "positions assigned" and "committed or failed", and gives up
 * when its pipeline drains. While it holds the lease, a node assigns positions in memory (so an append resolves before
 * its transaction commits, and appends arriving meanwhile go into the next transaction) and its transactions commit
 * one after another, so commit order is position order: a reader never sees position n+1 before n. A node that does
 * not hold the lease waits for it; taking it first brings the node up to the log's head (`lock.acquire`).
 *
 * Fairness: a node under steady load never drains, so when it has held the lease longer than `maxHoldMs` and another
 * node waits for it, it stops letting new appends in, drains, and releases; PostgreSQL grants the lock to the waiting
 * session, and the node queues behind it for its next turn.
 */
export interface LeaseLock {
  /** Takes the lock, waiting for whoever holds it, and brings this node up to the log's head. */
  acquire(): Promise<void>
  release(): Promise<void>
  /** Whether another session is waiting for the lock. */
  othersWaiting(): Promise<boolean>
}

export interface WriterLeaseOptions {
  /** Whether this node has appends in its pipeline (assigned, not yet settled) or cleanup to do under the lease. */
  readonly busy: () => boolean
  readonly maxHoldMs?: number
}

const DEFAULT_MAX_HOLD_MS = 100

type State = 'released' | 'acquiring' | 'held' | 'releasing'

export class WriterLease {
  private state: State = 'released'
  private acquiring: Promise<void> | undefined
  /** Appends that entered under the lease and have not yet been assigned positions (or refused). */
  private users = 0
  /** Another node waits: let no new append in until the pipeline drains and the lease is released. */
  private yielding = false
  private heldSince = 0
  private checkingWaiters = false
  private releaseScheduled = false
  private waiters: (() => void)[] = []

  constructor(
    private readonly lock: LeaseLock,
    private readonly options: WriterLeaseOptions,
  ) {}

  get held(): boolean {
    return this.state === 'held'
  }

  /**
   * Waits until this node holds the lease and lets the caller assign positions; returns the function the caller
   * calls once it has (or has given up). The lease is not released between the two.
   */
  async enter(): Promise<() => void> {
    for (;;) {
      if (this.state === 'held' && !this.yielding) {
        this.users++
        let left = false
        return () => {
          if (left) return
          left = true
          this.users--
          this.settle()
        }
      }
      if (this.state === 'released') {
        this.acquiring = this.acquire()
        await this.acquiring
      } else if (this.state === 'acquiring') {
        await this.acquiring
      } else {
        await new Promise<void>((resolve) => this.waiters.push(resolve))
      }
    }
  }

  /**
   * Releases the lease if nothing needs it any more, after the callbacks of the batch just settled have run: callers
   * acknowledged by it usually append again at once, and giving the lease up between their batches would cost a
   * release, a lock and a catch-up per batch. Otherwise sees whether it is time to make way for another node.
   */
  settle(): void {
    if (this.state !== 'held') return
    if (this.users > 0 || this.options.busy()) {
      this.considerYielding()
      return
    }
    if (this.releaseScheduled) return
    this.releaseScheduled = true
    setImmediate(() => {
      this.releaseScheduled = false
      this.releaseIfIdle()
    })
  }

  private releaseIfIdle(): void {
    if (this.state !== 'held') return
    if (this.users > 0 || this.options.busy()) {
      this.considerYielding()
      return
    }
    this.state = 'releasing'
    void this.lock
      .release()
      .catch(() => {})
      .finally(() => {
        this.state = 'released'
        this.yielding = false
        this.changed()
      })
  }

  /** The lock went away with its connection: the next `enter` takes it again. */
  lost(): void {
    if (this.state === 'held') {
      this.state = 'released'
      this.yielding = false
      this.changed()
    }
  }

  private async acquire(): Promise<void> {
    this.state = 'acquiring'
    try {
      await this.lock.acquire()
      this.state = 'held'
      this.heldSince = Date.now()
    } catch (error) {
      this.state = 'released'
      throw error
    } finally {
      this.changed()
    }
  }

  private considerYielding(): void {
    const maxHold = this.options.maxHoldMs ?? DEFAULT_MAX_HOLD_MS
    if (this.yielding || this.checkingWaiters || Date.now() - this.heldSince < maxHold) return
    this.checkingWaiters = true
    void this.lock
      .othersWaiting()
      .then(
        (waiting) => {
          if (waiting && this.state === 'held') this.yielding = true
        },
        () => {},
      )
      .finally(() => {
        this.checkingWaiters = false
        // Ask again only after another full hold, not after every commit.
        this.heldSince = Date.now()
      })
  }

  private changed(): void {
    const waiters = this.waiters
    this.waiters = []
    for (const wake of waiters) wake()
  }
}
