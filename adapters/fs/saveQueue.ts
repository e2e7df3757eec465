/**
 * Per-file save queues (SAVE.1–SAVE.3, DOC.WRITE.10). Saves of one file run strictly one at a time, in the order
 * `enqueue` was called; saves of different files run in parallel.
 *
 * "One file" means one *real* file: the queue key is `realpath` of the target, or `realpath(parent)` plus the name
 * for a file that does not exist yet, so a document opened through a symlink and another opened through its target
 * share a queue, and a `save_as` that creates a file shares it with a later `save` of that file.
 *
 * Supersession: every save takes a ticket when it is issued (when the command is accepted, before any await), and
 * tickets only grow. Between issue and the queue, a save still has asynchronous work to do (its scope check, the
 * key's realpath, serialisation), so a save issued later can reach the queue — and write — first. When a save gets
 * its turn and a later-issued save has already written the file, it writes nothing and returns `superseded`: the
 * file must not go back to older content. The caller answers STALE (`save`/`save_as`) or `saved: false`
 * (`document.write`).
 *
 * The queue knows nothing about scope or bytes. The scope re-check at queue turn (SCOPE.5) is the caller's, passed
 * as `atTurn`; the write itself is the job.
 */
import { realpath } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'

/** What a save got: its job ran and wrote, or a later save had already written the file and this one did nothing. */
export type SaveOutcome<T> =
  | { readonly status: 'written'; readonly value: T }
  | { readonly status: 'superseded'; readonly supersededBy: number }

/** Passed to `atTurn` and the job when the save's turn comes. */
export interface SaveTurn {
  /** The queue key: the real path of the file. */
  readonly key: string
  readonly ticket: number
}

export interface EnqueueOptions {
  /** The ticket from `issue()` when the save was accepted; omitted, one is issued when `enqueue` is called. */
  readonly ticket?: number
  /**
   * Runs at the save's turn, after the supersession check and before the job. Throwing (e.g. INVALID_PATH because
   * the workspace closed while the save waited, SCOPE.5) rejects `enqueue` with that error; the job does not run.
   */
  readonly atTurn?: (turn: SaveTurn) => Promise<void> | void
}

/**
 * The queue key of `path`: its real path, or the real path of its parent joined with its name when it does not
 * exist. A path that cannot be resolved at all keeps its lexical form (the save will fail on its own).
 */
export async function saveQueueKey(path: string): Promise<string> {
  const absolute = resolve(path)
  try {
    return await realpath(absolute)
  } catch {
    try {
      return join(await realpath(dirname(absolute)), basename(absolute))
    } catch {
      return absolute
    }
  }
}

export class SaveQueue {
  private lastTicket = 0
  /** Settles when the last `enqueue` call has joined its lane; each call joins after the one before it. */
  private joining: Promise<void> = Promise.resolve()
  /** Per key, a promise that settles when the last save queued for it is done. Removed when a key goes idle. */
  private readonly tails = new Map<string, Promise<void>>()
  /**
   * Per key, the highest ticket whose job completed. Kept after the key goes idle (a save issued before it may still
   * be on its way to the queue); one number per file ever saved in this process.
   */
  private readonly written = new Map<string, number>()

  /** A new ticket, greater than every ticket issued before. Take it when the save command is accepted. */
  issue(): number {
    return ++this.lastTicket
  }

  /**
   * Run `job` at its turn in the queue of `path`'s real file. Resolves `written` with the job's value, or
   * `superseded` without running it; rejects with whatever `atTurn` or the job threw (the queue moves on either way).
   * A job that resolves counts as having written the file; a job that throws counts as having written nothing.
   */
  async enqueue<T>(path: string, job: (turn: SaveTurn) => Promise<T>, options: EnqueueOptions = {}): Promise<SaveOutcome<T>> {
    const ticket = options.ticket ?? this.issue()
    if (!Number.isInteger(ticket) || ticket < 1 || ticket > this.lastTicket) {
      throw new RangeError(`Save ticket ${ticket} was not issued by this queue.`)
    }
    // Keys resolve in parallel, but join their lanes in call order (each joins inside the chain, before the next call
    // may): otherwise saves of one file enqueued in order could overtake each other on realpath timing alone and be
    // superseded for nothing.
    const resolving = saveQueueKey(path)
    const joined = this.joining.then(() => resolving).then((key) => this.joinLane(key))
    this.joining = joined.then(
      () => undefined,
      () => undefined,
    )
    const { key, previous, tail, done } = await joined
    await previous
    try {
      const newer = this.written.get(key)
      if (newer !== undefined && newer > ticket) return { status: 'superseded', supersededBy: newer }
      const turn: SaveTurn = { key, ticket }
      await options.atTurn?.(turn)
      const value = await job(turn)
      this.written.set(key, Math.max(ticket, this.written.get(key) ?? 0))
      return { status: 'written', value }
    } finally {
      done()
      if (this.tails.get(key) === tail) this.tails.delete(key)
    }
  }

  /** Take the place at the end of `key`'s lane: `previous` settles when it is this save's turn, `done` hands it on. */
  private joinLane(key: string): { key: string; previous: Promise<void>; tail: Promise<void>; done: () => void } {
    const previous = this.tails.get(key) ?? Promise.resolve()
    let done!: () => void
    const mine = new Promise<void>((resolve) => (done = resolve))
    const tail = previous.then(() => mine)
    this.tails.set(key, tail)
    return { key, previous, tail, done }
  }

  /** Whether saves of `path`'s real file are queued or running (for status and tests). */
  async busy(path: string): Promise<boolean> {
    return this.tails.has(await saveQueueKey(path))
  }
}
