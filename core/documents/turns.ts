import { settlesWithin } from '../deadline.js'
import { QuireError } from '../errors.js'

/**
 * The write-class queue of each document (CONC.4): write, transform, apply_patch, selection.set, comment replies and
 * review marks run one at a time per document. A caller that cannot get its turn within `waitMs` gets WRITE_BUSY and
 * never runs. An idle document's turn is taken at once, without a timer.
 */
export class DocumentTurns {
  private readonly tails = new Map<string, Promise<void>>()

  constructor(private readonly waitMs = 3_000) {}

  async run<T>(docId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(docId)
    let release!: () => void
    const mine = new Promise<void>((resolve) => (release = resolve))
    const tail = previous === undefined ? mine : previous.then(() => mine)
    this.tails.set(docId, tail)
    if (previous !== undefined && !(await settlesWithin(previous, this.waitMs))) {
      // Pass the turn on as soon as it would have been ours, without running.
      void previous.then(release)
      this.forget(docId, tail)
      throw new QuireError('WRITE_BUSY', `WRITE_BUSY: another write to this document held it for ${this.waitMs} ms`)
    }
    try {
      return await work()
    } finally {
      release()
      this.forget(docId, tail)
    }
  }

  private forget(docId: string, tail: Promise<void>): void {
    void tail.then(() => {
      if (this.tails.get(docId) === tail) this.tails.delete(docId)
    })
  }
}
