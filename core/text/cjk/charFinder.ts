/**
 * The next occurrence of any of a few characters, by one native `indexOf` per character kind: each cursor only moves
 * forward, so a whole scan costs one native pass per kind, however many hits there are. For the few characters a rule
 * acts on (spaces and tabs, ASCII punctuation), this beats looking at every code unit in JavaScript.
 */
export class CharFinder {
  private readonly chars: string[]
  private readonly next: number[]

  constructor(private readonly text: string, chars: string) {
    this.chars = [...chars]
    this.next = this.chars.map((char) => text.indexOf(char))
  }

  /** The first offset at or after `at` holding one of the characters, or -1. */
  from(at: number): number {
    let first = -1
    for (let index = 0; index < this.chars.length; index++) {
      let position = this.next[index]!
      if (position !== -1 && position < at) this.next[index] = position = this.text.indexOf(this.chars[index]!, at)
      if (position !== -1 && (first === -1 || position < first)) first = position
    }
    return first
  }
}
