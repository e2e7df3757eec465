import { UsageError } from './usage.js'

/**
 * A point in time as the person writes it on the command line: ISO 8601 (`2026-12-05`, `2026-12-05T10:30Z`) or
 * relative to now (`90s`, `30m`, `2h`, `3d`, `1w`: that long ago). Milliseconds since the epoch.
 */
export function parseTime(value: string, now = Date.now()): number {
  const relative = /^(\d+)\s*(s|m|h|d|w)$/.exec(value.trim())
  if (relative) {
    const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[relative[2] as 's' | 'm' | 'h' | 'd' | 'w']
    return now - Number(relative[1]) * unit
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(value)) {
    const at = Date.parse(value)
    if (Number.isFinite(at)) return at
  }
  throw new UsageError(`${JSON.stringify(value)} is not a time: give an ISO 8601 time (2026-12-05T10:30Z) or how long ago (30m, 2h, 3d)`)
}

/** A revision token (`rev-…`) as it is, or a time (see parseTime). */
export function parseTimeOrRevision(value: string, now = Date.now()): string | number {
  return /^rev-[0-9a-z]+$/.test(value) ? value : parseTime(value, now)
}
