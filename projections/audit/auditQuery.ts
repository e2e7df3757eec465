import type { ReadModelStore } from '../readModel/store.js'
import { decodeJson, positionKey, positionOfKey, prefixRange } from '../readModel/store.js'
import { auditKeys, decodeKeyPart, type AuditEntry } from './auditIndex.js'

/** What `quire log` asks the audit index; every filter given must hold. */
export interface AuditFilter {
  /** An assistant's name, `person`, `disk` or `system` (see actorName). */
  readonly actor?: string
  /** Event types; one ending in `.` is a prefix (`document.` is every document event). */
  readonly types?: readonly string[]
  /** Events of any of these documents. */
  readonly docIds?: readonly string[]
  readonly stream?: string
  /** Times in ms since the epoch, inclusive. */
  readonly since?: number
  readonly until?: number
  /** Only events after this log position. */
  readonly after?: number
  readonly limit?: number
}

/**
 * The entries that match, oldest first. One index drives the read (a document's, an actor's, the types', or time),
 * the others are checked on each entry it yields, so a selective filter reads little of a large log.
 */
export async function* queryAudit(store: ReadModelStore, filter: AuditFilter): AsyncGenerator<AuditEntry> {
  const limit = filter.limit ?? Number.POSITIVE_INFINITY
  if (limit <= 0) return
  let yielded = 0
  for await (const position of drivingPositions(store, filter)) {
    const stored = await store.get(auditKeys.entry(position))
    if (stored === undefined) continue
    const entry = decodeJson<AuditEntry>(stored)
    if (!matches(entry, filter)) continue
    yield entry
    if (++yielded >= limit) return
  }
}

export function matches(entry: AuditEntry, filter: AuditFilter): boolean {
  if (filter.after !== undefined && entry.position <= filter.after) return false
  if (filter.since !== undefined && entry.at < filter.since) return false
  if (filter.until !== undefined && entry.at > filter.until) return false
  if (filter.stream !== undefined && entry.stream !== filter.stream) return false
  if (filter.docIds && (entry.docId === undefined || !filter.docIds.includes(entry.docId))) return false
  if (filter.types && !filter.types.some((type) => typeMatches(type, entry.type))) return false
  if (filter.actor !== undefined && actorOf(entry) !== filter.actor) return false
  return true
}

const typeMatches = (wanted: string, type: string): boolean => (wanted.endsWith('.') ? type.startsWith(wanted) : type === wanted)

function actorOf(entry: AuditEntry): string {
  const { actor } = entry
  return actor.kind === 'mcp' ? actor.principal : actor.kind === 'peer' || actor.kind === 'user' ? 'person' : actor.kind
}

/** Positions from the most selective index given, ascending (by time for a time range alone). */
function drivingPositions(store: ReadModelStore, filter: AuditFilter): AsyncIterable<number> {
  const after = filter.after ?? 0
  const from = (prefix: string) => positionsUnder(store, prefix, after)
  if (filter.docIds) return mergeAscending(filter.docIds.map((docId) => from(auditKeys.document(docId))))
  if (filter.actor !== undefined) return from(auditKeys.actor(filter.actor))
  if (filter.types) return typePositions(store, filter.types, after)
  if (filter.since !== undefined || filter.until !== undefined) return positionsInTime(store, filter.since ?? 0, filter.until ?? Number.MAX_SAFE_INTEGER)
  return positionsUnder(store, auditKeys.entries, after)
}

async function* positionsUnder(store: ReadModelStore, prefix: string, after: number): AsyncGenerator<number> {
  const range = after > 0 ? { gt: `${prefix}${positionKey(after)}`, lt: `${prefix}\uffff` } : prefixRange(prefix)
  for await (const [key] of store.entries(range)) yield positionOfKey(key)
}

/** The positions of every type asked for, a prefix standing for each type the log holds under it. */
async function* typePositions(store: ReadModelStore, wanted: readonly string[], after: number): AsyncGenerator<number> {
  const types = new Set<string>()
  for (const type of wanted) {
    if (!type.endsWith('.')) types.add(type)
    else for await (const [key] of store.entries(prefixRange(auditKeys.typeName(type)))) types.add(decodeKeyPart(key.slice(2)))
  }
  yield* mergeAscending([...types].map((type) => positionsUnder(store, auditKeys.type(type), after)))
}

async function* positionsInTime(store: ReadModelStore, since: number, until: number): AsyncGenerator<number> {
  for await (const [key] of store.entries({ gte: auditKeys.time(since), lt: auditKeys.time(until + 1) })) yield positionOfKey(key)
}

/** Merges ascending streams of positions into one, each position once. */
async function* mergeAscending(sources: readonly AsyncIterable<number>[]): AsyncGenerator<number> {
  const iterators = sources.map((source) => source[Symbol.asyncIterator]())
  const heads = await Promise.all(iterators.map((iterator) => iterator.next()))
  let last = -1
  for (;;) {
    let best = -1
    for (let index = 0; index < heads.length; index++) {
      const head = heads[index]!
      if (!head.done && (best < 0 || head.value < (heads[best]!.value as number))) best = index
    }
    if (best < 0) return
    const position = heads[best]!.value as number
    heads[best] = await iterators[best]!.next()
    if (position !== last) yield position
    last = position
  }
}

/** The documents that had `path`, with the position each last took it and the path each has now. */
export interface PathHolder {
  readonly docId: string
  readonly tookAt: number
  readonly pathNow: string
}

export async function documentsByPath(store: ReadModelStore, path: string): Promise<PathHolder[]> {
  const holders: PathHolder[] = []
  const prefix = auditKeys.path(path)
  for await (const [key, value] of store.entries(prefixRange(prefix))) {
    const docId = decodeKeyPart(key.slice(prefix.length))
    const now = await store.get(auditKeys.pathNow(docId))
    holders.push({ docId, tookAt: decodeJson<number>(value), pathNow: now === undefined ? path : decodeJson<string>(now) })
  }
  return holders
}

/** Whether the index knows the document. */
export async function knowsDocument(store: ReadModelStore, docId: string): Promise<boolean> {
  for await (const _ of store.entries(prefixRange(auditKeys.document(docId), { limit: 1 }))) return true
  return false
}
