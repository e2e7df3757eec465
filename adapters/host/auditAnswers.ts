import { resolve } from 'node:path'
import { realPath, type FoundDocument } from '../../core/audit/resolve.js'
import { QuireError } from '../../core/errors.js'
import type { EventLog, RecordedEvent } from '../../core/log/eventLog.js'
import { toAuditEvent, type AuditEvent } from '../../projections/audit/auditEvent.js'
import type { AuditEntry } from '../../projections/audit/auditIndex.js'
import { documentsByPath, knowsDocument, queryAudit, type AuditFilter } from '../../projections/audit/auditQuery.js'
import { historyOf, type HistoryRecord } from '../../projections/history/historyModel.js'
import { blameDocument, type Blame } from '../../projections/history/blame.js'
import { positionOfRevision } from '../../core/documents/revision.js'
import type { ReadModelStore } from '../../projections/readModel/store.js'
import type { ReadModels } from './readModels.js'

/** What `quire log` asks: the index's filters, a document by path or id, and whether to carry each event's payload. */
export interface LogQuery extends Omit<AuditFilter, 'docIds'> {
  readonly doc?: string
  readonly cwd?: string
  /** Each event whole (its data, as `quire log --json` prints it), read from the log by position. */
  readonly full?: boolean
}

/** An index entry as `quire log` prints it; `event` when the whole event was asked for. */
export interface LogLine {
  readonly entry: AuditEntry
  readonly event?: AuditEvent
}

/** Entries whose whole events are read together: one range read of the log when they lie close together. */
const FULL_PAGE = 1_000

/** The log's events matching `query`, from the audit index once it has folded everything the log holds now. */
export async function auditLog(readModels: ReadModels, log: Pick<EventLog, 'readEvent' | 'readAll'>, query: LogQuery): Promise<{ lines: LogLine[]; found?: FoundDocument }> {
  const lines: LogLine[] = []
  const found = await auditLogPages(readModels, log, query, (page) => lines.push(...page))
  return { lines, ...(found ? { found } : {}) }
}

/** The same, handed over a page at a time as the index yields it (a long listing starts printing at once). */
export async function auditLogPages(readModels: ReadModels, log: Pick<EventLog, 'readEvent' | 'readAll'>, query: LogQuery, onPage: (lines: LogLine[]) => void): Promise<FoundDocument | undefined> {
  const store = await readModels.current('audit')
  const found = query.doc === undefined ? undefined : await findIndexedDocument(store, query.doc, query.cwd)
  const { doc: _doc, cwd: _cwd, full, ...filter } = query
  let page: AuditEntry[] = []
  const flush = async () => {
    if (page.length > 0) onPage(full ? await withEvents(log, page) : page.map((entry) => ({ entry })))
    page = []
  }
  for await (const entry of queryAudit(store, { ...filter, ...(found ? { docIds: [found.docId] } : {}) })) {
    page.push(entry)
    if (page.length >= FULL_PAGE) await flush()
  }
  await flush()
  return found
}

/** Each entry with its whole event: read as one range when the entries are dense in it, else one by one. */
async function withEvents(log: Pick<EventLog, 'readEvent' | 'readAll'>, entries: readonly AuditEntry[]): Promise<LogLine[]> {
  const positions = entries.map((entry) => entry.position)
  const first = Math.min(...positions)
  const last = Math.max(...positions)
  const events = new Map<number, RecordedEvent>()
  if (last - first < entries.length * 4) {
    const wanted = new Set(positions)
    for await (const event of log.readAll(first - 1, { to: last })) if (wanted.has(event.position)) events.set(event.position, event)
  } else {
    for (const position of positions) {
      const event = await log.readEvent(position)
      if (event) events.set(position, event)
    }
  }
  return entries.map((entry) => {
    const event = events.get(entry.position)
    return event ? { entry, event: toAuditEvent(event) } : { entry }
  })
}

/** A document's history from the history model, found by id or by any path it had (the audit index's paths). */
export async function historyAnswer(readModels: ReadModels, target: string, cwd?: string): Promise<FoundDocument & { records: HistoryRecord[] }> {
  const found = await findIndexedDocument(await readModels.current('audit'), target, cwd)
  return { ...found, records: await historyOf(await readModels.current('history'), found.docId) }
}

/** Each line of a document with who last changed it, as of revision `at` (default: now). */
export async function blameAnswer(readModels: ReadModels, log: Pick<EventLog, 'readStream'>, target: string, cwd?: string, at?: string): Promise<FoundDocument & Blame> {
  const to = at === undefined ? undefined : positionOfRevision(at)
  if (at !== undefined && to === undefined) throw new QuireError('INVALID_ARGUMENT', `${JSON.stringify(at)} is not a revision token (rev-...)`)
  const found = await findIndexedDocument(await readModels.current('audit'), target, cwd)
  return { ...found, ...(await blameDocument(log, found.docId, to)) }
}

/**
 * Finds a document by id, or by a path: the document holding it now, else the one that left it (saved elsewhere,
 * its file renamed), saying where it went. A path several documents hold, or several left, is ambiguous.
 */
export async function findIndexedDocument(store: ReadModelStore, pathOrId: string, cwd = process.cwd()): Promise<FoundDocument> {
  if (await knowsDocument(store, pathOrId)) return { docId: pathOrId }
  const path = resolve(cwd, pathOrId)
  const real = await realPath(path)
  const holders = [...(await documentsByPath(store, real)), ...(real === path ? [] : await documentsByPath(store, path))]
  const asked = new Set([path, real])
  const holding = [...new Set(holders.filter((holder) => asked.has(holder.pathNow)).map((holder) => holder.docId))]
  if (holding.length === 1) return { docId: holding[0]! }
  if (holding.length > 1) throw new QuireError('AMBIGUOUS', `${path} is the path of ${holding.length} documents (${holding.join(', ')}); name one by id`)
  const left = holders.sort((a, b) => b.tookAt - a.tookAt).filter((holder, index, all) => all.findIndex((other) => other.docId === holder.docId) === index)
  if (left.length === 1) return { docId: left[0]!.docId, moved: { from: real, to: left[0]!.pathNow } }
  if (left.length > 1) {
    const each = left.map((holder) => `${holder.docId} (now ${holder.pathNow})`).join(', ')
    throw new QuireError('AMBIGUOUS', `${real} was the file of ${left.length} documents, which moved since: ${each}; name one by id or by its path now`)
  }
  throw new QuireError('NOT_FOUND', `no document has the id or path ${pathOrId}`)
}
