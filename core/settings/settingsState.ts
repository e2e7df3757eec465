import { dataOf } from '../events/schema.js'
import type { RecordedEvent } from '../log/eventLog.js'
import { applySetting, DEFAULT_SETTINGS, SettingChanged, type Settings } from './events.js'

export const initialSettings = (): Settings => DEFAULT_SETTINGS

export function evolveSettings(state: Settings, event: RecordedEvent): Settings {
  if (event.type !== SettingChanged.type) return state
  const { key, value } = dataOf(event, SettingChanged)
  return applySetting(state, key, value)
}
