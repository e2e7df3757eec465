/**
 * RFC 3339 instants as the coherence ledger uses them (VMark coherence format 0, spec §5.1, §5.3): entry `time`,
 * waiver and delegation `expires`. Readers order entries by the instant a `time` names, not by its spelling, so two
 * writers that print offsets differently still agree on which entry is first.
 */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/

/** Nanoseconds since the Unix epoch of an RFC 3339 timestamp, or undefined when it is not one (a day that does not exist counts as not one). */
export function rfc3339Nanoseconds(text: string): bigint | undefined {
  const match = RFC3339.exec(text)
  if (match === null) return undefined
  const [, year, month, day, hour, minute, second, fraction, zone] = match as unknown as [string, string, string, string, string, string, string, string | undefined, string]
  const y = Number(year)
  const mo = Number(month)
  const d = Number(day)
  const h = Number(hour)
  const mi = Number(minute)
  const s = Number(second)
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return undefined
  const dayStart = Date.UTC(y, mo - 1, d)
  const check = new Date(dayStart)
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return undefined
  let offsetMinutes = 0
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone.startsWith('-') ? -1 : 1
    const offsetHours = Number(zone.slice(1, 3))
    const offsetMins = Number(zone.slice(4, 6))
    if (offsetHours > 23 || offsetMins > 59) return undefined
    offsetMinutes = sign * (offsetHours * 60 + offsetMins)
  }
  const wholeSeconds = BigInt(Math.floor(dayStart / 1000)) + BigInt(h * 3600 + mi * 60 + s) - BigInt(offsetMinutes * 60)
  const nanos = fraction === undefined ? 0n : BigInt(fraction.slice(1, 10).padEnd(9, '0'))
  return wholeSeconds * 1_000_000_000n + nanos
}

export const isRfc3339 = (text: string): boolean => rfc3339Nanoseconds(text) !== undefined

/** The one form our writers print: UTC, milliseconds, `Z` (`2026-07-18T09:30:12.415Z`). */
export const formatEntryTime = (at: Date): string => at.toISOString()
