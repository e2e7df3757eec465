import { SYSTEM, type Actor } from '../../events/actor.js'
import type { EventLog } from '../../log/eventLog.js'
import type { FoldedStream } from '../../streams/foldedStream.js'
import { decideRecording, type RecordCommand } from './recordDecider.js'
import type { RecordingsState } from './recordState.js'

type Without<C> = C extends unknown ? Omit<C, 'actor'> : never

/** The owner of the `browser-recordings` stream: each start and stop decided here and durable before it is answered. */
export class WorkflowRecordingCommands {
  constructor(
    private readonly store: EventLog,
    private readonly view: FoldedStream<RecordingsState>,
  ) {}

  get state(): RecordingsState {
    return this.view.state
  }

  async apply(command: Without<RecordCommand>, actor: Actor): Promise<RecordingsState> {
    return this.view.handle(this.store, (current) => decideRecording({ ...command, actor } as RecordCommand, current))
  }

  /** Ends every recording the previous process left under way (its capture went with it). */
  async endInterrupted(): Promise<void> {
    await this.apply({ type: 'end-interrupted' }, SYSTEM)
  }
}
