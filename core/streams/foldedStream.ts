import type { EventInput, EventLog, RecordedEvent } from '../log/eventLog.js'
import { appendFolded, type FoldingAppend } from './append.js'
import { KeyedSteps } from './steps.js'
import { retryingConflicts } from './conflicts.js'

/**
 * What a decision on a small stream appends: its own events, and the appends of other streams that must land with
 * them atomically (an approval used by the action it approved).
 */
export interface Decision {
  readonly events: readonly EventInput[]
  readonly alongside?: readonly FoldingAppend[]
}

/**
 * The write model of one small stream (workspace layout, approvals, settings, agents), folded with a pure `evolve`
 * and kept in memory: loaded once at start-up, then advanced only by `handle`, Emmett's command handling: in the
 * stream's step, a pure `decide` reads the current state and returns the events (or throws the refusal), they are
 * appended at the version decided from, and folded. So the state never lags or leads the log's order.
 */
export class FoldedStream<State> {
  private current: State
  private version = 0
  private readonly listeners = new Set<(state: State) => void>()
  private readonly steps = new KeyedSteps()

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

  async load(log: EventLog): Promise<void> {
    let state = this.initial()
    let version = 0
    for await (const event of log.readStream(this.stream)) {
      state = this.evolve(state, event)
      version = event.streamVersion
    }
    await log.streamHead(this.stream)
    this.current = state
    this.version = version
  }

  /**
   * Decides on the current state and appends what was decided (nothing when `decide` returns no events); resolves
   * once durable, with the state after.
   */
  async handle(log: EventLog, decide: (state: State) => Decision | readonly EventInput[]): Promise<State> {
    const durable = await this.steps.run(this.stream, () =>
      retryingConflicts(async () => {
        const decision = decide(this.current)
        const { events, alongside = [] } = isDecision(decision) ? decision : { events: decision }
        if (events.length === 0) return undefined
        return (await appendFolded(log, [this.own(events), ...alongside])).durable
        // Another node appended first: decide again on the state with its events (the decision is pure).
      }, () => this.reload(log)),
    )
    try {
      await durable
    } catch (error) {
      // The log could not write the events and rolled them back: the state folded them, so it is rebuilt from the
      // log (in the stream's step, before the next decision) and the caller hears of the failure.
      await this.steps.run(this.stream, () => this.load(log))
      throw error
    }
    return this.current
  }

  /** This stream's share of an append another stream's owner makes atomically (e.g. an approval's consumption). */
  own(events: readonly EventInput[]): FoldingAppend {
    return { stream: this.stream, events, expectedVersion: this.version, fold: (recorded) => this.apply(recorded) }
  }

  /**
   * Folds an event of this stream that another node appended (the shared log's subscription delivers every durable
   * event, this node's own too: those were folded as they were appended and are skipped). In the stream's step, so
   * it never lands between a decision and its fold; a gap means events this state missed, so it reloads.
   */
  follow(log: EventLog, event: RecordedEvent): Promise<void> {
    if (event.stream !== this.stream) return Promise.resolve()
    return this.steps.run(this.stream, async () => {
      if (event.streamVersion <= this.version) return
      if (event.streamVersion === this.version + 1) this.apply([event])
      else await this.reload(log)
    })
  }

  /** Loads the state from the log again and tells the listeners. */
  private async reload(log: EventLog): Promise<void> {
    await this.load(log)
    for (const listener of this.listeners) listener(this.current)
  }

  /** Folds recorded events of this stream (others are ignored) and tells the listeners. */
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

  /** Calls `listener` after each change to the state (synchronously, as the change is folded). */
  onChange(listener: (state: State) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
}

function isDecision(decision: Decision | readonly EventInput[]): decision is Decision {
  return !Array.isArray(decision)
}

/** Appends events decided elsewhere to a folded stream (tests and the person's set-up steps); resolves once durable. */
export async function appendToView<State>(log: EventLog, view: FoldedStream<State>, events: readonly EventInput[]): Promise<void> {
  await view.handle(log, () => events)
}
