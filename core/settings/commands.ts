import type { Actor } from '../events/actor.js'
import type { EventLog } from '../log/eventLog.js'
import type { FoldedStream } from '../streams/foldedStream.js'
import { decideSettings } from './decider.js'
import type { Settings, SettingValue } from './events.js'

/** The person's settings. Only a person changes them (the MCP surface has no action for it). */
export class SettingsCommands {
  constructor(
    private readonly store: EventLog,
    private readonly view: FoldedStream<Settings>,
  ) {}

  get state(): Settings {
    return this.view.state
  }

  /** Sets one leaf (`autoApproveSaves`, `cjkFormatting.quoteStyle`); setting the value it already has records nothing. */
  async set(key: string, value: SettingValue, actor: Actor): Promise<void> {
    await this.view.handle(this.store, (state) => decideSettings({ type: 'set', key, value, actor }, state))
  }
}
