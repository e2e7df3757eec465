import type { EventLog, RecordedEvent } from '../../core/log/eventLog.js'
import { FoldBatch } from './foldBatch.js'
import type { ReadModel } from './readModel.js'
import { decodeJson, encodeJson, type ReadModelStore } from './store.js'

/** Where a model's store says how far it folded, and in which layout; models keep their own keys off `~`. */
export const CHECKPOINT_KEY = '~checkpoint'
export const FORMAT_KEY = '~format'

/** Events folded before their writes and the checkpoint go to the store together. */
const BATCH_EVENTS = 2_000
/** How long folded events may wait to be stored while the log's head runs ahead of them. */
const COMMIT_AFTER_MS = 50
/** How long `current` waits for the model before it checks that anything readable is left to fold. */
const IDLE_CHECK_MS = 250

export interface RunnerStatus {
  readonly name: string
  /** Every event up to this position is folded and stored. */
  readonly checkpoint: number
}

/**
 * Runs one read model: subscribes to the log after the checkpoint its store holds, folds each event and stores the
 * writes of a batch of events together with the new checkpoint, in one atomic write. A process killed at any moment
 * leaves the store at some checkpoint with exactly the events up to it folded, and the next start goes on from there.
 */
export class ReadModelRunner {
  private batch: FoldBatch
  private folded = 0
  private stored = 0
  private pendingEvents = 0
  private work: Promise<void> = Promise.resolve()
  private stop: (() => void) | undefined
  private commitTimer: ReturnType<typeof setTimeout> | undefined
  private failure: unknown
  /** Counts the subscriptions started: events of one stopped by a rebuild are not folded into the new store. */
  private generation = 0
  private readonly waiters = new Set<{ position: number; resolve: () => void; reject: (error: unknown) => void }>()

  constructor(
    readonly model: ReadModel,
    private readonly store: ReadModelStore,
    private readonly log: Pick<EventLog, 'subscribe' | 'durableHeadPosition' | 'caughtUp' | 'readAll'>,
  ) {
    this.batch = new FoldBatch(store)
  }

  get status(): RunnerStatus {
    return { name: this.model.name, checkpoint: this.stored }
  }

  /** Reads the checkpoint (clearing a store of another layout) and follows the log from it. */
  async start(): Promise<void> {
    const format = await this.store.get(FORMAT_KEY)
    if (format === undefined || decodeJson<number>(format) !== this.model.format) await this.clearStore()
    const checkpoint = await this.store.get(CHECKPOINT_KEY)
    this.stored = this.folded = checkpoint === undefined ? 0 : decodeJson<number>(checkpoint)
    this.follow()
  }

  /**
   * Resolves once the model has folded everything the log held durably when called (other nodes' appends too). A
   * position the log holds no readable event at (a quarantined record at the head) is never delivered, so while the
   * model waits with nothing left to fold, it asks the log whether anything readable remains up to the head.
   */
  async current(): Promise<void> {
    await this.log.caughtUp()
    const head = this.log.durableHeadPosition
    while (!(await this.reachedWithin(head, IDLE_CHECK_MS))) {
      if (this.folded !== this.stored) continue
      let readable = false
      for await (const _ of this.log.readAll(this.stored, { to: head })) {
        readable = true
        break
      }
      if (!readable) return
    }
  }

  /** Whether every event up to `position` is stored within `ms`. */
  private async reachedWithin(position: number, ms: number): Promise<boolean> {
    if (this.failure !== undefined) throw this.failure
    if (this.stored >= position) return true
    return new Promise<boolean>((resolve, reject) => {
      const waiter = { position, resolve: () => { clearTimeout(timer); resolve(true) }, reject: (error: unknown) => { clearTimeout(timer); reject(error) } }
      const timer = Number.isFinite(ms) ? setTimeout(() => { this.waiters.delete(waiter); resolve(false) }, ms) : undefined
      this.waiters.add(waiter)
    })
  }

  /** Runs `task` while nothing is folded (what it reads of the store stays at one checkpoint). */
  exclusive<T>(task: (checkpoint: number) => Promise<T>): Promise<T> {
    const result = this.work.then(() => task(this.stored))
    this.work = result.then(() => undefined, () => undefined)
    return result
  }

  /** Drops what the model folded and folds the whole log again; resolves once it has caught up. */
  async rebuild(): Promise<void> {
    await this.exclusive(async () => {
      this.stop?.()
      this.stop = undefined
      this.generation++
      await this.clearStore()
      this.stored = this.folded = 0
      this.pendingEvents = 0
      this.failure = undefined
    })
    this.follow()
    await this.current()
  }

  /** Stops following the log and stores what was folded. */
  async close(): Promise<void> {
    this.stop?.()
    this.stop = undefined
    clearTimeout(this.commitTimer)
    this.commitTimer = undefined
    await this.enqueue(() => this.commit())
  }

  private follow(): void {
    const generation = ++this.generation
    // A failed fold is recorded by `fail`; the subscription must not see it as its own error.
    this.stop = this.log.subscribe(this.folded, (event) => this.enqueue(() => this.fold(event, generation)).catch(() => undefined))
  }

  private async fold(event: RecordedEvent, generation: number): Promise<void> {
    if (generation !== this.generation || this.failure !== undefined || event.position <= this.folded) return
    await this.model.fold(event, this.batch)
    this.folded = event.position
    this.pendingEvents++
    if (this.pendingEvents >= BATCH_EVENTS || event.position >= this.log.durableHeadPosition) await this.commit()
    else this.scheduleCommit()
  }

  /**
   * A batch is stored when it is full or the model has reached the log's head; this timer stores the rest of a batch
   * whose head moved on meanwhile, so a query never waits long for it.
   */
  private scheduleCommit(): void {
    if (this.commitTimer) return
    this.commitTimer = setTimeout(() => {
      this.commitTimer = undefined
      void this.enqueue(() => this.commit()).catch(() => undefined)
    }, COMMIT_AFTER_MS)
    this.commitTimer.unref()
  }

  private async commit(): Promise<void> {
    if (this.folded === this.stored) return
    const checkpoint = this.folded
    await this.batch.commit(new Map([[CHECKPOINT_KEY, encodeJson(checkpoint)]]))
    this.pendingEvents = 0
    this.stored = checkpoint
    for (const waiter of this.waiters) {
      if (waiter.position <= checkpoint) {
        this.waiters.delete(waiter)
        waiter.resolve()
      }
    }
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const result = this.work.then(task)
    this.work = result.catch((error: unknown) => this.fail(error))
    return result
  }

  /** A fold or store write that failed stops the model: answers from it would be wrong; `rebuild` starts it again. */
  private fail(error: unknown): void {
    this.failure = error
    this.stop?.()
    this.stop = undefined
    for (const waiter of this.waiters) waiter.reject(error)
    this.waiters.clear()
  }

  private async clearStore(): Promise<void> {
    this.batch.discard()
    await this.store.clear()
    await this.store.write(new Map([[FORMAT_KEY, encodeJson(this.model.format)]]))
  }
}
