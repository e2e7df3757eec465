import type { EventStore, RecordedEvent } from '../log/eventStore.js'

/**
 * A read model folded from one stream with a pure `evolve`, kept in memory: loaded once at start-up, then advanced
 * by the commands that append to the stream, in the same synchronous step as their append (so it never lags or
 * leads the log's order). Small streams only (workspace layout, approvals, settings, agents).
 */
export class FoldedStream<State> {
  private current: State
  private version = 0
  private readonly listeners = new Set<(state: State) => void>()

  constructor(
    readonly stream: string,
    private readonly initial: () => State,
    private readonly evolve: (state: State, event: RecordedEvent) => State,
  ) {
    this.current = initial()
  }

  get state(): State {
    return this.current
  }

  /** Stream version folded so far. */
  get streamVersion(): number {
    return this.version
  }

  async load(store: EventStore): Promise<void> {
    let state = this.initial()
    let version = 0
    for await (const event of store.readStream(this.stream)) {
      state = this.evolve(state, event)
      version = event.streamVersion
    }
    await store.streamHead(this.stream)
    this.current = state
    this.version = version
  }

  apply(events: readonly RecordedEvent[]): State {
    const before = this.current
    for (const event of events) {
      if (event.stream !== this.stream) continue
      this.current = this.evolve(this.current, event)
      this.version = event.streamVersion
    }
    if (this.current !== before) for (const listener of this.listeners) listener(this.current)
    return this.current
  }

  /** Calls `listener` after each change to the state (synchronously, inside the append's step). */
  onChange(listener: (state: State) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
}
