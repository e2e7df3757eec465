import { settlesWithin } from '../deadline.js'
import { QuireError } from '../errors.js'

/**
 * Serialises write-class commands per document. A caller that cannot get the turn within `waitMs` gets
 * WRITE_BUSY and never runs (CONC.4).
 */
export class DocumentTurns {
  private readonly tails = new Map<string, Promise<void>>()

  constructor(private readonly waitMs = 3_000) {}

  async run<T>(docId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(docId) ?? Promise.resolve()
    let release!: () => void
    const mine = new Promise<void>((resolve) => (release = resolve))
    const tail = previous.then(() => mine)
    this.tails.set(docId, tail)
    let timedOut = false
    if (!(await settlesWithin(previous, this.waitMs))) {
      timedOut = true
      // Pass the turn on as soon as it would have been ours, without running.
      void previous.then(release)
    }
    try {
      if (timedOut) throw new QuireError('WRITE_BUSY', `WRITE_BUSY: another write to this document held it for ${this.waitMs} ms`)
      return await work()
    } finally {
      if (!timedOut) release()
      if (this.tails.get(docId) === tail) {
        void tail.then(() => {
          if (this.tails.get(docId) === tail) this.tails.delete(docId)
        })
      }
    }
  }
}
