import type { RecordedEvent } from '../log/eventStore.js'
import { applySetting, DEFAULT_SETTINGS, type Settings } from './events.js'

export const initialSettings = (): Settings => DEFAULT_SETTINGS

export function evolveSettings(state: Settings, event: RecordedEvent): Settings {
  if (event.type !== 'setting.changed') return state
  const { key, value } = event.data as { key: string; value: unknown }
  return applySetting(state, key, value)
}
