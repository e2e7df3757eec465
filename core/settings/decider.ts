import type { Actor } from '../events/actor.js'
import { QuireError } from '../errors.js'
import type { EventInput } from '../log/eventLog.js'
import { applySetting, settingEntries, settingValue, type Settings, type SettingValue } from './events.js'

export interface SetSetting {
  readonly type: 'set'
  readonly key: string
  readonly value: SettingValue
  readonly actor: Actor
}

/** The settings stream's decide: one known leaf to a valid value; setting the value it already has decides nothing. */
export function decideSettings(command: SetSetting, state: Settings): EventInput[] {
  const current = settingValue(state, command.key)
  if (current === undefined) {
    const known = settingEntries(state).map(([name]) => name).join(', ')
    throw new QuireError('INVALID_ARGUMENT', `unknown setting ${command.key}; known settings: ${known}`)
  }
  if (current === command.value) return []
  if (applySetting(state, command.key, command.value) === state) {
    throw new QuireError('INVALID_ARGUMENT', `${JSON.stringify(command.value)} is not a valid value for ${command.key}`)
  }
  return [{ type: 'setting.changed', actor: command.actor, data: { key: command.key, value: command.value } }]
}
