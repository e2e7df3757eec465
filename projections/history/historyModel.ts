import { describeActor } from '../../core/events/actor.js'
import { DocumentChanged, DocumentCreated, DocumentSaved, JournalRecorded } from '../../core/documents/events.js'
import { revisionToken } from '../../core/documents/revision.js'
import { dataOf } from '../../core/events/schema.js'
import type { RecordedEvent } from '../../core/log/eventLog.js'
import { restoredRevision } from '../../core/review/restore.js'
import { DocumentRetargeted, TabOpened } from '../../core/workspace/events.js'
import { summarize } from '../audit/auditEvent.js'
import { documentOf } from '../audit/auditIndex.js'
import { foldWriteOutcome, type WriteOutcome } from '../audit/writeOutcome.js'
import type { FoldContext, ReadModel } from '../readModel/readModel.js'
import { decodeJson, encodeJson, positionKey, prefixRange, type ReadModelStore } from '../readModel/store.js'
import { SESSION_GAP_MS } from './editSessions.js'

/** What a history record stands for. */
export type HistoryKind = 'created' | 'open' | 'save' | 'reload' | 'ai-write' | 'restore' | 'write' | 'move' | 'review' | 'edits'

/** One line of a document's history. */
export interface HistoryRecord {
  readonly position: number
  readonly at: number
  /** `describeActor`'s label: `mcp:claude/c-3`, `peer:…`, `user`, `disk`. */
  readonly actor: string
  readonly kind: HistoryKind
  /** The document's revision once the record took effect (a save's: the revision the file holds). */
  readonly revision: string
  /** The document's file then (after a move: the new one); null for a document without a file. */
  readonly path: string | null
  /** What happened, in a few words. */
  readonly detail: string
  /** An assistant's save (SAVE.4–5: shown as `(mcp)`). */
  readonly mcp?: boolean
  /** A save's or open's length in characters. */
  readonly length?: number
  /** For a journaled write: whether it changed the document. */
  readonly outcome?: WriteOutcome
  /** For a typing session: its last keystroke's time and how many it held. */
  readonly until?: number
  readonly edits?: number
}

const part = (value: string): string => encodeURIComponent(value)
const keys = {
  record: (docId: string, position?: number) => `h|${part(docId)}|${position === undefined ? '' : positionKey(position)}`,
  /** The position of the document's last content change: its revision. */
  revision: (docId: string) => `r|${part(docId)}`,
  pathNow: (docId: string) => `n|${part(docId)}`,
  /** The file the document had before a save wrote it elsewhere (save_as): where the move that follows comes from. */
  pathBefore: (docId: string) => `b|${part(docId)}`,
  /** The person's typing session still open: the position of its record. */
  session: (docId: string) => `s|${part(docId)}`,
  openWrite: (docId: string) => `j|${part(docId)}`,
}

async function read<T>(context: Pick<FoldContext, 'get'>, key: string): Promise<T | undefined> {
  const value = await context.get(key)
  return value === undefined ? undefined : decodeJson<T>(value)
}

/**
 * Each document's history, by document: opens, saves and reloads with the revision the file holds, assistants' writes
 * and whether they applied, the person's restores, moves (a save elsewhere, a rename), reviews, and the person's
 * typing as sessions (keystrokes no more than five minutes apart).
 */
export const documentHistoryModel: ReadModel = {
  name: 'history',
  format: 2,
  async fold(event: RecordedEvent, context: FoldContext): Promise<void> {
    const docId = documentOf(event)
    if (docId === undefined) return
    const put = (record: HistoryRecord) => context.put(keys.record(docId, record.position), encodeJson(record))
    if (event.type === TabOpened.type) {
      const { path } = dataOf(event, TabOpened)
      if (path !== null) context.put(keys.pathNow(docId), encodeJson(path))
      return
    }
    const path = (await read<string>(context, keys.pathNow(docId))) ?? null
    const changesContent = event.type === DocumentCreated.type || event.type === DocumentChanged.type
    if (changesContent) context.put(keys.revision(docId), encodeJson(event.position))
    const revision = revisionToken((await read<number>(context, keys.revision(docId))) ?? 0)
    const base = { position: event.position, at: event.at, actor: describeActor(event.actor), revision, path }
    await foldWriteOutcome(event, context, keys.openWrite, async (journal, outcome) => {
      const before = await read<HistoryRecord>(context, keys.record(docId, journal))
      if (before && before.outcome !== outcome) put({ ...before, outcome, ...(outcome === 'applied' ? { revision } : {}) })
    })
    switch (event.type) {
      case DocumentCreated.type: {
        const data = dataOf(event, DocumentCreated)
        if (data.path !== null) context.put(keys.pathNow(docId), encodeJson(data.path))
        put({ ...base, path: data.path, kind: 'created', detail: `${data.kind} from ${data.origin}` })
        return
      }
      case DocumentChanged.type:
        return foldTyping(event, context, docId, base, put)
      case JournalRecorded.type: {
        const data = dataOf(event, JournalRecorded)
        const restored = event.actor.kind === 'user' ? restoredRevision(data.detail) : undefined
        const kind = event.actor.kind === 'mcp' ? 'ai-write' : restored !== undefined ? 'restore' : 'write'
        const detail = restored !== undefined ? `restore of ${restored}` : `${data.operation}${data.detail ? ` ${data.detail.slice(0, 80)}` : ''} of ${data.length} chars`
        context.delete(keys.session(docId))
        put({ ...base, kind, detail, outcome: 'pending' })
        return
      }
      case DocumentSaved.type: {
        const data = dataOf(event, DocumentSaved)
        if (path !== null && data.path !== path) context.put(keys.pathBefore(docId), encodeJson(path))
        context.put(keys.pathNow(docId), encodeJson(data.path))
        put({ ...base, path: data.path, kind: data.reason, revision: data.revision ?? revision, detail: summarize(event), mcp: event.actor.kind === 'mcp', length: data.length })
        return
      }
      case DocumentRetargeted.type: {
        const data = dataOf(event, DocumentRetargeted)
        const from = path === data.path ? ((await read<string>(context, keys.pathBefore(docId))) ?? path) : path
        context.delete(keys.pathBefore(docId))
        context.put(keys.pathNow(docId), encodeJson(data.path))
        put({ ...base, path: data.path, kind: 'move', detail: `moved from ${from ?? 'no file'}` })
        return
      }
      default:
        if (event.type.startsWith('review.')) put({ ...base, kind: 'review', detail: `${event.type.slice('review.'.length)}: ${summarize(event)}` })
    }
  },
}

/** The person's keystrokes join the open session when it is theirs and recent; anything else content-wise ends it. */
async function foldTyping(event: RecordedEvent, context: FoldContext, docId: string, base: Omit<HistoryRecord, 'kind' | 'detail'>, put: (record: HistoryRecord) => void): Promise<void> {
  const keystroke = event.actor.kind === 'peer' && dataOf(event, DocumentChanged).journal === undefined
  if (!keystroke) {
    context.delete(keys.session(docId))
    return
  }
  const open = await read<number>(context, keys.session(docId))
  const session = open === undefined ? undefined : await read<HistoryRecord>(context, keys.record(docId, open))
  if (session && session.actor === base.actor && event.at - (session.until ?? session.at) <= SESSION_GAP_MS) {
    const edits = (session.edits ?? 1) + 1
    put({ ...session, until: event.at, edits, revision: base.revision, detail: `typed: ${edits} edits` })
    return
  }
  context.put(keys.session(docId), encodeJson(event.position))
  put({ ...base, kind: 'edits', until: event.at, edits: 1, detail: 'typed: 1 edit' })
}

/** A document's history, oldest first. */
export async function historyOf(store: ReadModelStore, docId: string): Promise<HistoryRecord[]> {
  const records: HistoryRecord[] = []
  for await (const [, value] of store.entries(prefixRange(keys.record(docId)))) records.push(decodeJson<HistoryRecord>(value))
  return records
}
