import { z } from 'zod'
import { defineEvent } from '../events/schema.js'

export const SETTINGS_STREAM = 'settings'

/**
 * The person's settings, with their defaults. `autoApproveSaves` is VMark's "Auto-approve saves to new locations
 * and genie results" (off by default, WS.SAVE_AS.4); `workspaceRail` shows workspace instances per window.
 */
export const settingsSchema = z.object({
  autoApproveSaves: z.boolean(),
  workspaceRail: z.boolean(),
})
export type Settings = z.infer<typeof settingsSchema>
export type SettingKey = keyof Settings

export const DEFAULT_SETTINGS: Settings = Object.freeze({ autoApproveSaves: false, workspaceRail: true })

export const SettingChanged = defineEvent({
  type: 'setting.changed',
  version: 1,
  schema: z.object({ key: settingsSchema.keyof(), value: z.union([z.boolean(), z.string(), z.number()]) }),
})

export const settingsEvents = [SettingChanged] as const

/** Folds the settings stream. Unknown or mistyped values (from a newer Quire) are ignored, keeping the default. */
export function applySetting(settings: Settings, key: string, value: unknown): Settings {
  const candidate = { ...settings, [key]: value }
  return settingsSchema.safeParse(candidate).success ? (candidate as Settings) : settings
}
