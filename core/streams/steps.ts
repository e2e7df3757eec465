/**
 * A per-key mutual exclusion for the short decide-append-fold step of a stream's owner: steps of one key run one at
 * a time in the order asked, steps of different keys do not wait for each other. A step of an idle key starts at
 * once. Unlike the documents' write turns (CONC.4), a step never times out: it spans one append, not a journal wait.
 */
export class KeyedSteps {
  private readonly tails = new Map<string, Promise<void>>()

  async run<T>(key: string, step: () => Promise<T> | T): Promise<T> {
    const previous = this.tails.get(key)
    let release!: () => void
    const mine = new Promise<void>((resolve) => (release = resolve))
    const tail = previous === undefined ? mine : previous.then(() => mine)
    this.tails.set(key, tail)
    try {
      if (previous !== undefined) await previous
      return await step()
    } finally {
      release()
      void tail.then(() => {
        if (this.tails.get(key) === tail) this.tails.delete(key)
      })
    }
  }
}
