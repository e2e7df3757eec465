import type { Actor } from '../events/actor.js'
import { QuireError } from '../errors.js'
import type { EventStore } from '../log/eventStore.js'
import type { FoldedStream } from '../streams/foldedStream.js'
import { appendToView } from '../streams/append.js'
import { applySetting, settingEntries, settingValue, type Settings, type SettingValue } from './events.js'

/** The person's settings. Only a person changes them (the MCP surface has no action for it). */
export class SettingsCommands {
  constructor(
    private readonly store: EventStore,
    private readonly view: FoldedStream<Settings>,
  ) {}

  get state(): Settings {
    return this.view.state
  }

  /** Sets one leaf (`autoApproveSaves`, `cjkFormatting.quoteStyle`); setting the value it already has records nothing. */
  async set(key: string, value: SettingValue, actor: Actor): Promise<void> {
    const current = settingValue(this.view.state, key)
    if (current === undefined) {
      const known = settingEntries(this.view.state).map(([name]) => name).join(', ')
      throw new QuireError('INVALID_ARGUMENT', `unknown setting ${key}; known settings: ${known}`)
    }
    if (current === value) return
    if (applySetting(this.view.state, key, value) === this.view.state) {
      throw new QuireError('INVALID_ARGUMENT', `${JSON.stringify(value)} is not a valid value for ${key}`)
    }
    await appendToView(this.store, this.view, [{ type: 'setting.changed', actor, data: { key, value } }])
  }
}
