import type { Actor } from '../../core/events/actor.js'
import { CoherenceRefused } from '../../core/coherence/events.js'
import { DocumentChanged, DocumentCreated, DocumentSaved, docIdOfStream, DOCUMENT_STREAM_PREFIX, JournalRecorded } from '../../core/documents/events.js'
import type { RecordedEvent } from '../../core/log/eventLog.js'
import { DocumentRetargeted, TabOpened } from '../../core/workspace/events.js'
import type { FoldContext, ReadModel } from '../readModel/readModel.js'
import { decodeJson, encodeJson, positionKey } from '../readModel/store.js'
import { summarize } from './auditEvent.js'
import { foldWriteOutcome, type WriteOutcome } from './writeOutcome.js'

/** One event as the audit index keeps it: who, what, where, when, a one-line summary, and whether a write applied. */
export interface AuditEntry {
  readonly position: number
  readonly at: number
  readonly actor: Actor
  readonly type: string
  readonly stream: string
  /** The document the event concerns (its stream's, or the one a workspace or comment event names). */
  readonly docId?: string
  readonly summary: string
  /** For a journaled write: whether it changed the document. A refused coherence append is `not-applied`. */
  readonly outcome?: WriteOutcome
  /** The person's keystroke (a peer's content change): `--no-keystrokes` folds a typing session into one line. */
  readonly keystroke?: true
}

/**
 * Who an event is by, as `quire log --actor` names them: an assistant by its name, `person` for the person (in the
 * console, or typing in an editor as a peer), `disk` and `system`.
 */
export function actorName(actor: Actor): string {
  switch (actor.kind) {
    case 'mcp':
      return actor.principal
    case 'peer':
    case 'user':
      return 'person'
    default:
      return actor.kind
  }
}

/** Key parts are URI-encoded, so a name never holds the separator. */
const part = (value: string): string => encodeURIComponent(value)
const TIME_DIGITS = 15

/** The index's keys: each entry by position, and the position under each index. */
export const auditKeys = {
  entry: (position: number) => `e|${positionKey(position)}`,
  entries: 'e|',
  actor: (name: string, position?: number) => `a|${part(name)}|${position === undefined ? '' : positionKey(position)}`,
  type: (type: string, position?: number) => `t|${part(type)}|${position === undefined ? '' : positionKey(position)}`,
  /** Every type the log holds, so a prefix names the types it covers. */
  typeName: (type: string) => `y|${part(type)}`,
  document: (docId: string, position?: number) => `d|${part(docId)}|${position === undefined ? '' : positionKey(position)}`,
  time: (at: number, position?: number) => `m|${String(at).padStart(TIME_DIGITS, '0')}|${position === undefined ? '' : positionKey(position)}`,
  /** The journal entry of a document waiting for its outcome. */
  openWrite: (docId: string) => `j|${part(docId)}`,
  /** A path a document had, with the position it took it at last. */
  path: (path: string, docId?: string) => `p|${part(path)}|${docId === undefined ? '' : part(docId)}`,
  /** A document's path now. */
  pathNow: (docId: string) => `n|${part(docId)}`,
}

export const decodeKeyPart = (value: string): string => decodeURIComponent(value)

const EMPTY = new Uint8Array(0)

/** The document an event concerns, if any. */
export function documentOf(event: RecordedEvent): string | undefined {
  if (event.stream.startsWith(DOCUMENT_STREAM_PREFIX)) return docIdOfStream(event.stream)
  const docId = (event.data as { docId?: unknown } | null)?.docId
  return typeof docId === 'string' ? docId : undefined
}

/** The path an event gives its document (opened from, saved to, moved to), if any. */
function pathGiven(event: RecordedEvent): string | undefined {
  const path = (event.data as { path?: unknown } | null)?.path
  if (typeof path !== 'string') return undefined
  const moves = event.type === DocumentCreated.type || event.type === DocumentSaved.type || event.type === TabOpened.type || event.type === DocumentRetargeted.type
  return moves ? path : undefined
}

/**
 * The audit index: every event once, by position, and its position under its actor, its type, its document and its
 * time, so `quire log` filters read only what they list. Paths are kept per document (every path it had), so a
 * document is found by a path it left after a save elsewhere or a rename.
 */
export const auditIndex: ReadModel = {
  name: 'audit',
  format: 1,
  async fold(event: RecordedEvent, context: FoldContext): Promise<void> {
    const docId = documentOf(event)
    const keystroke = event.type === DocumentChanged.type && event.actor.kind === 'peer' && (event.data as { journal?: number }).journal === undefined
    const outcome: WriteOutcome | undefined = event.type === JournalRecorded.type ? 'pending' : event.type === CoherenceRefused.type ? 'not-applied' : undefined
    const entry: AuditEntry = {
      position: event.position,
      at: event.at,
      actor: event.actor,
      type: event.type,
      stream: event.stream,
      ...(docId === undefined ? {} : { docId }),
      summary: summarize(event),
      ...(outcome === undefined ? {} : { outcome }),
      ...(keystroke ? { keystroke: true as const } : {}),
    }
    context.put(auditKeys.entry(event.position), encodeJson(entry))
    context.put(auditKeys.actor(actorName(event.actor), event.position), EMPTY)
    context.put(auditKeys.type(event.type, event.position), EMPTY)
    context.put(auditKeys.typeName(event.type), EMPTY)
    context.put(auditKeys.time(event.at, event.position), EMPTY)
    if (docId !== undefined) {
      context.put(auditKeys.document(docId, event.position), EMPTY)
      const path = pathGiven(event)
      if (path !== undefined) {
        context.put(auditKeys.path(path, docId), encodeJson(event.position))
        context.put(auditKeys.pathNow(docId), encodeJson(path))
      }
    }
    await foldWriteOutcome(event, context, auditKeys.openWrite, async (journal, settled) => {
      const key = auditKeys.entry(journal)
      const stored = await context.get(key)
      if (stored === undefined) return
      const before = decodeJson<AuditEntry>(stored)
      if (before.outcome !== settled) context.put(key, encodeJson({ ...before, outcome: settled }))
    })
  },
}
