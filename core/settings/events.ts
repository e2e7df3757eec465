import { z } from 'zod'
import { QuireError } from '../errors.js'
import { defineEvent } from '../events/schema.js'
import { cjkFormattingSchema, DEFAULT_CJK_FORMATTING } from '../text/cjk/settings.js'

export const SETTINGS_STREAM = 'settings'

/** Where AI tabs live: the setting `browserPosture`'s values. */
export const BROWSER_POSTURES = ['sandbox', 'shared'] as const
export type BrowserPosture = (typeof BROWSER_POSTURES)[number]

/** The bounds of the setting `mcpMessageLimitBytes`. */
export const MCP_MESSAGE_LIMIT_RANGE = Object.freeze({ min: 64 * 1024, max: 256 * 1024 * 1024 })

/**
 * The person's settings, with their defaults. `autoApproveSaves` is VMark's "Auto-approve saves to new locations
 * and genie results" (off by default, WS.SAVE_AS.4); `workspaceRail` shows workspace instances per window;
 * `cjkFormatting` drives `document.transform {kind: "cjk-format"}` (DOC.TRANSFORM.3).
 */
export const settingsSchema = z.object({
  autoApproveSaves: z.boolean(),
  workspaceRail: z.boolean(),
  cjkFormatting: cjkFormattingSchema,
  /** Unreviewed AI writes on one document at which `document.write` refuses with REVIEW_BACKLOG_FULL (DOC.WRITE.18). */
  reviewBacklogLimit: z.number().int().min(1).max(100_000),
  /**
   * The largest MCP message `quire mcp` (stdio) and `/mcp` (HTTP) take, in bytes; a larger request is answered with
   * an error naming this limit. 64 KiB holds any call but a big write; past 256 MiB one message would hold the
   * process's memory hostage.
   */
  mcpMessageLimitBytes: z.number().int().min(MCP_MESSAGE_LIMIT_RANGE.min).max(MCP_MESSAGE_LIMIT_RANGE.max),
  /** VMark's "Embedded browser" (on by default, BR.GEN.1): off, every `browser` and `browser_read` action is BROWSER_DISABLED. */
  embeddedBrowser: z.boolean(),
  /**
   * Where AI tabs live: `sandbox`, a fresh non-persistent cookie store per assistant (BR.GEN.11), or `shared`, the
   * person's own persistent browser profile, where every new origin needs the person's approval (BR.GEN.9).
   */
  browserPosture: z.enum(BROWSER_POSTURES),
  /**
   * VMark's "Track document provenance" (off by default): saves inside an open workspace are captured in its
   * `.vmark/` coherence ledger, which is created by the first capture.
   */
  trackProvenance: z.boolean(),
  /**
   * The VMark writers (lower-case UUIDs, comma-separated) whose delegation lines the person trusts. A delegation
   * counts only when the person made it: through Quire, or in the segment of a writer listed here (`quire coherence
   * trust WRITER`). Empty by default: no other program's grant authorizes an assistant.
   */
  coherenceTrustedWriters: z.string().regex(/^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?:,[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})*)?$/),
})
export type Settings = z.infer<typeof settingsSchema>
export type SettingValue = boolean | string | number

export const DEFAULT_SETTINGS: Settings = Object.freeze({
  autoApproveSaves: false,
  workspaceRail: true,
  cjkFormatting: DEFAULT_CJK_FORMATTING,
  reviewBacklogLimit: 20,
  mcpMessageLimitBytes: 4 * 1024 * 1024,
  embeddedBrowser: true,
  browserPosture: 'sandbox',
  trackProvenance: false,
  coherenceTrustedWriters: '',
})

/**
 * One setting changed. `key` names a leaf: `autoApproveSaves`, or a dotted path into a group such as
 * `cjkFormatting.quoteStyle`, so every change is one small event whatever the group's size.
 */
export const SettingChanged = defineEvent({
  type: 'setting.changed',
  version: 1,
  schema: z.object({ key: z.string().min(1), value: z.union([z.boolean(), z.string(), z.number()]) }),
})

export const settingsEvents = [SettingChanged] as const

/** Every leaf key with its value, in a stable order: what `quire settings` lists. */
export function settingEntries(settings: Settings): Array<[key: string, value: SettingValue]> {
  const entries: Array<[string, SettingValue]> = []
  for (const [key, value] of Object.entries(settings)) {
    if (typeof value === 'object' && value !== null) {
      for (const [leaf, leafValue] of Object.entries(value)) entries.push([`${key}.${leaf}`, leafValue as SettingValue])
    } else {
      entries.push([key, value as SettingValue])
    }
  }
  return entries
}

/**
 * Folds one change. Unknown keys or mistyped values (from a newer Quire) are ignored, keeping the current value:
 * the settings stream must never stop a data directory from opening.
 */
export function applySetting(settings: Settings, key: string, value: unknown): Settings {
  const [group, leaf, ...rest] = key.split('.')
  if (group === undefined || rest.length > 0) return settings
  const current = (settings as Record<string, unknown>)[group]
  if (current === undefined) return settings
  let candidate: Record<string, unknown>
  if (leaf === undefined) {
    if (typeof current === 'object') return settings
    candidate = { ...settings, [group]: value }
  } else {
    if (typeof current !== 'object' || current === null || !(leaf in current)) return settings
    candidate = { ...settings, [group]: { ...current, [leaf]: value } }
  }
  const parsed = settingsSchema.safeParse(candidate)
  return parsed.success ? Object.freeze(parsed.data) : settings
}

/** The value a leaf holds now, or undefined for an unknown key. */
export function settingValue(settings: Settings, key: string): SettingValue | undefined {
  return settingEntries(settings).find(([name]) => name === key)?.[1]
}

/**
 * Reads a value typed on a command line (`true`, `corner`, `2`) as the type the key holds now (`current` maps every
 * key to its value, as `settingEntries` lists them), so `quire settings set cjkFormatting.consecutivePunctuationLimit 1`
 * stores the number 1, not the string.
 */
export function parseSettingValue(current: Readonly<Record<string, SettingValue>>, key: string, raw: string): SettingValue {
  const existing = current[key]
  if (existing === undefined) throw new QuireError('INVALID_ARGUMENT', `unknown setting ${key}; known: ${Object.keys(current).join(', ')}`)
  if (typeof existing === 'boolean') {
    if (raw === 'true' || raw === 'on') return true
    if (raw === 'false' || raw === 'off') return false
    throw new QuireError('INVALID_ARGUMENT', `${key} is true or false, not ${raw}`)
  }
  if (typeof existing === 'number') {
    const number = Number(raw)
    if (raw.trim() === '' || !Number.isFinite(number)) throw new QuireError('INVALID_ARGUMENT', `${key} is a number, not ${raw}`)
    return number
  }
  return raw
}
