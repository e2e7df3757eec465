import type { Actor } from '../events/actor.js'
import { QuireError } from '../errors.js'
import type { EventStore } from '../log/eventStore.js'
import type { FoldedStream } from '../../projections/foldedStream.js'
import { appendToView } from '../views.js'
import { applySetting, type SettingKey, type Settings } from './events.js'

/** The person's settings. Only a person changes them (the MCP surface has no action for it). */
export class SettingsCommands {
  constructor(
    private readonly store: EventStore,
    private readonly view: FoldedStream<Settings>,
  ) {}

  async set<K extends SettingKey>(key: K, value: Settings[K], actor: Actor): Promise<void> {
    if (applySetting(this.view.state, key, value) === this.view.state && this.view.state[key] !== value) {
      throw new QuireError('INVALID_ARGUMENT', `${String(value)} is not a valid value for ${key}`)
    }
    if (this.view.state[key] === value) return
    await appendToView(this.store, this.view, [{ type: 'setting.changed', actor, data: { key, value } }])
  }
}
