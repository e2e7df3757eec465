import { z } from 'zod'
import type { EventRegistry } from '../events/schema.js'
import { LogTooNewError, type UnreadableEvents } from './errors.js'

/**
 * The newest schema version of each event type a log holds: what a reader must know to read all of it. Each store
 * keeps this record with its events, grown in the same atomic write as the append that first holds a type at a
 * version, and checks it against the reader's registry when it opens: a Quire that cannot read everything the log
 * holds (a newer Quire wrote to it) refuses to open it, before it reads a record or writes anything, instead of
 * skipping what it cannot read and writing on top of a log it does not know whole.
 */
export type EventVersions = ReadonlyMap<string, number>

export const NO_EVENT_VERSIONS: EventVersions = new Map()

/** `versions` grown to hold `type` at `v`, or undefined when they already do (the usual case: a map lookup). */
export function withEventVersion(versions: EventVersions, type: string, v: number): EventVersions | undefined {
  if ((versions.get(type) ?? 0) >= v) return undefined
  return new Map(versions).set(type, v)
}

/** Adds one record to a record being built from the records themselves (a log kept before it had one is scanned once). */
export function addEventVersion(versions: Map<string, number>, type: string, v: number): void {
  if ((versions.get(type) ?? 0) < v) versions.set(type, v)
}

/** Throws LogTooNewError when `registry` cannot read every type at every version `versions` hold. */
export function assertReadableBy(versions: EventVersions, registry: EventRegistry, log: string): void {
  const unreadable: UnreadableEvents[] = []
  for (const [type, v] of [...versions].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const readsUpTo = registry.readsUpTo(type)
    if (readsUpTo === undefined || readsUpTo < v) unreadable.push({ type, v, readsUpTo })
  }
  if (unreadable.length > 0) throw new LogTooNewError(log, unreadable)
}

/** What records `versions` say about `type` at `v`, when they do not cover it (verify reports it); else undefined. */
export function notCovered(versions: EventVersions, type: string, v: number, position: number): string | undefined {
  const recorded = versions.get(type)
  if (recorded !== undefined && recorded >= v) return undefined
  return `record at position ${position} is ${type} v${v}, but the log records ${recorded === undefined ? `no ${type}` : `${type} up to v${recorded}`}`
}

/**
 * Stored as a JSON object of type → version, keys sorted: `{"document.created":1,"journal.recorded":2}`. Later
 * Quires keep this shape, since older ones read it to decide whether they may open the log at all.
 */
const Stored = z.record(z.string().min(1), z.number().int().positive())

export function encodeEventVersions(versions: EventVersions): Uint8Array {
  const sorted = Object.fromEntries([...versions].sort(([a], [b]) => (a < b ? -1 : 1)))
  return new TextEncoder().encode(JSON.stringify(sorted))
}

/** The record in `bytes`, or undefined when they hold none (damaged, or not this shape). */
export function decodeEventVersions(bytes: Uint8Array): EventVersions | undefined {
  try {
    const parsed = Stored.safeParse(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)))
    return parsed.success ? new Map(Object.entries(parsed.data)) : undefined
  } catch {
    return undefined
  }
}
