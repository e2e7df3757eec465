/** One captured line of a page's console, as `browser_read.console` returns it (BRR.CONSOLE.1). */
export interface ConsoleEntry {
  readonly level: 'log' | 'info' | 'warn' | 'error' | 'debug'
  readonly text: string
}

export const CONSOLE_RING_SIZE = 200
const ENTRY_TEXT_CAP = 2_000

/** A bounded ring that reading does not clear (BRR.CONSOLE.6): the newest 200 entries, oldest first. */
export class ConsoleRing {
  readonly #entries: ConsoleEntry[] = []

  push(level: ConsoleEntry['level'], text: string): void {
    this.#entries.push({ level, text: text.length > ENTRY_TEXT_CAP ? text.slice(0, ENTRY_TEXT_CAP) : text })
    if (this.#entries.length > CONSOLE_RING_SIZE) this.#entries.splice(0, this.#entries.length - CONSOLE_RING_SIZE)
  }

  entries(): readonly ConsoleEntry[] {
    return [...this.#entries]
  }

  /** The entries, and the ring emptied in the same step, so no line is lost between reading and clearing (BR.CONSOLE_CLEAR). */
  drain(): readonly ConsoleEntry[] {
    return this.#entries.splice(0)
  }
}
