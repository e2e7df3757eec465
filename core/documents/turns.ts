import { settlesWithin } from '../deadline.js'
import { QuireError } from '../errors.js'

/**
 * A document's write turn held across the nodes that share a log (a PostgreSQL advisory lock, say). Correctness does
 * not rest on it (an append another node won is refused by its expected version and decided again); it gives the
 * turn's meaning to every node, so WRITE_BUSY and JOURNAL_BUSY say across nodes what they say on one.
 */
export interface CrossNodeTurns {
  /**
   * Takes `docId`'s turn among the nodes, waiting at most `waitMs`; resolves with the release, or undefined when
   * another node held it all that time. Rejects when the nodes cannot be asked (the database is unreachable).
   */
  take(docId: string, waitMs: number): Promise<(() => Promise<void>) | undefined>

  /**
   * Marks `docId` as having a write still on its way to the log at `stage` (JRNL.6, JRNL.8) for the other nodes to
   * see, until `withdraw`. `shown` settles once they can see it, and rejects when the database cannot be asked now:
   * the mark is then shown as soon as it can be, unless withdrawn first. It lasts while this node's connection does
   * (a node that is gone leaves no write that could still land) and is shown again on the next one.
   */
  mark(docId: string, stage: JournalStage): { readonly shown: Promise<void>; readonly withdraw: () => Promise<void> }

  markedElsewhere(docId: string): Promise<JournalStage | undefined>
}

/**
 * Where an earlier write to a document is, after its answer, on its way to the log: its journal entry not yet
 * stored (`recording`: the next write gets JOURNAL_BUSY), or its change applied but not yet stored (`applying`:
 * JOURNAL_DEGRADED).
 */
export type JournalStage = 'recording' | 'applying'

/**
 * The write-class queue of each document (CONC.4): write, transform, apply_patch, selection.set, comment replies and
 * review marks run one at a time per document. A caller that cannot get its turn within `waitMs` gets WRITE_BUSY and
 * never runs. An idle document's turn is taken at once, without a timer. With `crossNode`, the turn is also taken
 * among the nodes, within the same wait.
 */
export class DocumentTurns {
  private readonly tails = new Map<string, Promise<void>>()

  constructor(
    private readonly waitMs = 3_000,
    private readonly crossNode?: CrossNodeTurns,
  ) {}

  async run<T>(docId: string, work: () => Promise<T>): Promise<T> {
    const started = Date.now()
    const previous = this.tails.get(docId)
    let release!: () => void
    const mine = new Promise<void>((resolve) => (release = resolve))
    const tail = previous === undefined ? mine : previous.then(() => mine)
    this.tails.set(docId, tail)
    if (previous !== undefined && !(await settlesWithin(previous, this.waitMs))) {
      // Pass the turn on as soon as it would have been ours, without running.
      void previous.then(release)
      this.forget(docId, tail)
      throw busy(this.waitMs)
    }
    try {
      if (!this.crossNode) return await work()
      const releaseAcrossNodes = await this.takeAcrossNodes(docId, Math.max(0, this.waitMs - (Date.now() - started)))
      try {
        return await work()
      } finally {
        // A release the database no longer takes is moot: a lost connection has dropped the lock with it.
        await releaseAcrossNodes().catch(() => {})
      }
    } finally {
      release()
      this.forget(docId, tail)
    }
  }

  private async takeAcrossNodes(docId: string, waitMs: number): Promise<() => Promise<void>> {
    let taken: (() => Promise<void>) | undefined
    try {
      taken = await this.crossNode!.take(docId, waitMs)
    } catch (error) {
      throw new QuireError('JOURNAL_UNAVAILABLE', `the nodes' shared log cannot be reached, so nothing was changed: ${(error as Error).message}`)
    }
    if (!taken) throw busy(this.waitMs, ' on another node')
    return taken
  }

  private forget(docId: string, tail: Promise<void>): void {
    void tail.then(() => {
      if (this.tails.get(docId) === tail) this.tails.delete(docId)
    })
  }
}

function busy(waitMs: number, where = ''): QuireError {
  return new QuireError('WRITE_BUSY', `WRITE_BUSY: another write to this document held it for ${waitMs} ms${where}`)
}
