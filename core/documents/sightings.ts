import type { Actor } from '../events/actor.js'
import { IdRangeCollector, type IdRanges } from './idRanges.js'
import type { Phantom } from './rebase.js'
import { positionOfRevision, revisionToken } from './revision.js'
import type { Hunk } from './textDiff.js'

/**
 * Its own text, as a principal knows it after a write that was merged into edits of others it has not seen: the
 * document's text at revision `origin` with `hunks` applied, and which of the document's characters make it up (the
 * characters origin's snapshot holds, less `dropped`, plus `added`; see rebase.ts's DocumentBase).
 */
export interface WrittenText {
  readonly origin: number
  readonly hunks: readonly Hunk[]
  readonly length: number
  readonly dropped: IdRanges
  readonly added: IdRanges
  readonly phantoms: readonly Phantom[]
}

/**
 * What a principal last saw of a document through one tab, folded from the document's `document.seen` events: the
 * document as it was at `revisionPosition`, or, with `written`, its own text after a merged write.
 */
export interface Sighting {
  /** Log position of the `document.seen` event (STALE_PARENT compares later writes with it). */
  readonly position: number
  /** The document's revision (a log position) when it was seen. */
  readonly revisionPosition: number
  readonly written?: WrittenText
}

/** The most sightings a document keeps; beyond it the oldest is forgotten (its principal's next write is blind). */
export const SIGHTINGS_KEPT = 256

/**
 * Who saw: an assistant by its principal (the token's identity, the same on every node and every connection), anyone
 * else by the kind of actor.
 */
export function viewerOf(actor: Actor): string {
  return actor.kind === 'mcp' ? `mcp:${actor.principal}` : actor.kind
}

/** The key a document keeps a sighting under: one per tab and viewer. */
export const sightingKey = (tabId: string, actor: Actor): string => `${tabId}\u0000${viewerOf(actor)}`

/** The sightings of one document, in the order they were last renewed (a Map keeps insertion order). */
export class Sightings {
  private readonly byKey = new Map<string, Sighting>()

  get(tabId: string, actor: Actor): Sighting | undefined {
    return this.byKey.get(sightingKey(tabId, actor))
  }

  /** Folds a `document.seen` event; the oldest sighting goes once more than SIGHTINGS_KEPT are kept. */
  note(key: string, sighting: Sighting): void {
    this.byKey.delete(key)
    this.byKey.set(key, sighting)
    if (this.byKey.size > SIGHTINGS_KEPT) this.byKey.delete(this.byKey.keys().next().value!)
  }

  entries(): IterableIterator<[string, Sighting]> {
    return this.byKey.entries()
  }

  get size(): number {
    return this.byKey.size
  }
}

/** `WrittenText` as `document.seen` records it (ids as `[client, clock, length]`, the origin as a revision token). */
export type RecordedWrittenText = {
  origin: string
  hunks: { start: number; deleteCount: number; insert: string }[]
  length: number
  dropped: [number, number, number][]
  added: [number, number, number][]
  phantoms: { position: number; length: number }[]
}

export function recordedWrittenText(written: WrittenText): RecordedWrittenText {
  return {
    origin: revisionToken(written.origin),
    hunks: written.hunks.map(({ start, deleteCount, insert }) => ({ start, deleteCount, insert })),
    length: written.length,
    dropped: triplesOf(written.dropped),
    added: triplesOf(written.added),
    phantoms: written.phantoms.map(({ position, length }) => ({ position, length })),
  }
}

export function writtenTextOf(recorded: RecordedWrittenText): WrittenText {
  const origin = positionOfRevision(recorded.origin)
  if (origin === undefined) throw new Error(`a written base names ${JSON.stringify(recorded.origin)}, which is not a revision`)
  return { origin, hunks: recorded.hunks, length: recorded.length, dropped: idsOf(recorded.dropped), added: idsOf(recorded.added), phantoms: recorded.phantoms }
}

function triplesOf(ids: IdRanges): [number, number, number][] {
  const triples: [number, number, number][] = []
  for (const [client, ranges] of ids) for (const { clock, len } of ranges) triples.push([client, clock, len])
  return triples
}

function idsOf(triples: readonly (readonly [number, number, number])[]): IdRanges {
  const collector = new IdRangeCollector()
  for (const [client, clock, len] of triples) collector.add(client, clock, len)
  return collector.ids()
}
