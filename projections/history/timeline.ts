import type { Engine } from '../../core/engine.js'
import { describeActor } from '../../core/events/actor.js'
import { changeToken } from '../../core/documents/aiChanges.js'
import { DocumentChanged, DocumentSaved, documentStream, JournalRecorded, type JournalOperation } from '../../core/documents/events.js'
import { DocumentState } from '../../core/documents/documentState.js'
import { revisionToken } from '../../core/documents/revision.js'
import { dataOf } from '../../core/events/schema.js'
import type { RecordedEvent } from '../../core/log/eventLog.js'
import { changeState } from '../../core/review/commands.js'
import { ReviewKept, ReviewMarked, ReviewRedone, ReviewUndone } from '../../core/review/events.js'
import { restoredRevision } from '../../core/review/restore.js'
import { EditSessions, type EditSessionEntry } from './editSessions.js'
import { changeSummary } from './wordSummary.js'

/** What a comment an AI write addressed is now (COM.ADDR.3: a deleted one shows as deleted). */
export type CommentState = 'open' | 'addressed' | 'resolved' | 'reopened' | 'deleted' | 'unknown'

/** Looks up a comment's state; the comments module provides it once it exists. */
export type CommentStateResolver = (docId: string, commentId: string) => CommentState | Promise<CommentState>

export interface AddressedComment {
  readonly id: string
  /** Present when a resolver was given. */
  readonly state?: CommentState
}

/** Where the person's review left a change: `mixed` when some of its hunks are kept and others undone. */
export type ChangeReviewState = 'pending' | 'kept' | 'undone' | 'mixed'

interface TimelineBase {
  /** The log position of the entry's event (an AI write's or restore's journal entry). */
  readonly position: number
  readonly at: number
  /** `describeActor`'s label: `mcp:claude/c-3`, `user`, `disk`. */
  readonly actor: string
  /** The document's revision once this entry took effect (for a review mark: the revision reviewed up to). */
  readonly revision: string
}

/** A save, an open or a reload: what `documentHistory` lists, `(mcp)` when an assistant saved (SAVE.4–5). */
export interface SaveEntry extends TimelineBase {
  readonly kind: 'save'
  readonly reason: 'open' | 'save' | 'reload'
  readonly mcp: boolean
  readonly path: string
  readonly length: number
}

/** An assistant's journaled edit that was applied (an aborted or refused one changed nothing and is not listed). */
export interface AiWriteEntry extends TimelineBase {
  readonly kind: 'ai-write'
  readonly operation: JournalOperation
  /** The agent: the token's principal. */
  readonly agent: string
  /** What a transform or patch asked for. */
  readonly detail?: string
  readonly addresses: readonly AddressedComment[]
  /** Whether the person has reviewed it: kept or undone, each of its hunks. */
  readonly reviewed: boolean
  /** The change's id (`ch-…`), which keep, undo and redo name. */
  readonly change: string
  readonly state: ChangeReviewState
  /** What it changed, word by word: "replaced 'beta' with 'BETA', added ' delta'". */
  readonly summary: string
}

/** The person restored an earlier revision (a new change; the log is never rewritten). */
export interface RestoreEntry extends TimelineBase {
  readonly kind: 'restore'
  readonly restored: string
  /** The restore's change (`ch-…`), which the person can undo; absent when the restore changed nothing. */
  readonly change?: string
  readonly state?: ChangeReviewState
  readonly summary: string
}

/** The person marked the AI changes up to `revision` reviewed. */
export interface ReviewedEntry extends TimelineBase {
  readonly kind: 'reviewed'
}

/** The person kept, undid or redid a change (an AI change, or a restore of theirs), or some of its hunks. */
export interface ReviewActionEntry extends TimelineBase {
  readonly kind: 'review'
  readonly action: 'kept' | 'undone' | 'redone'
  readonly change: string
  /** Whose change: the agent's name, or `person` for a restore. */
  readonly agent: string
  /** The hunks acted on, and how many the change has. */
  readonly hunks: readonly number[]
  readonly of: number
}

export type TimelineEntry = SaveEntry | AiWriteEntry | RestoreEntry | ReviewedEntry | ReviewActionEntry | EditSessionEntry

export interface TimelineOptions {
  readonly resolveComment?: CommentStateResolver
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/** A journal entry waiting for its change, and where that change landed once it did. */
interface OpenJournal {
  readonly journal: number
  entry: Mutable<AiWriteEntry> | Mutable<RestoreEntry> | undefined
  appliedAt: number
}

/**
 * The document's history as the console's History panel shows it, newest first: every save (with `(mcp)` ones
 * marked, SAVE.4–5), every applied AI write (its operation, agent, resulting revision, the comments it addressed,
 * its change id, where the person's review left it and a word-level summary), every restore by the person, every
 * review mark and every keep, undo and redo, and the person's own typing grouped into sessions (editSessions.ts).
 * Folded from the document's stream on demand.
 */
export async function documentTimeline(engine: Engine, docId: string, options: TimelineOptions = {}): Promise<TimelineEntry[]> {
  const state = new DocumentState(docId)
  const slots: Array<TimelineEntry | OpenJournal> = []
  const journals = new Map<number, OpenJournal>()
  const sessions = new EditSessions(state, (session) => slots.push(session))
  /** The AI write or restore whose change is being applied, with the text before it, for its summary. */
  let summarizing: { journal: OpenJournal; before: string } | undefined
  /** Undos and redos whose content comes next in the same append: their revision is the one it makes. */
  let awaitingContent: Mutable<ReviewActionEntry>[] = []
  try {
    for await (const event of engine.store.readStream(documentStream(docId))) {
      const journal = event.type === DocumentChanged.type ? dataOf(event, DocumentChanged).journal : undefined
      if (summarizing && journal !== summarizing.journal.journal) {
        summarizing.journal.entry!.summary = changeSummary(summarizing.before, state.content)
        summarizing = undefined
      }
      const applying = journal === undefined ? undefined : journals.get(journal)
      if (applying?.entry && applying.appliedAt === 0) summarizing = { journal: applying, before: state.content }
      sessions.before(event)
      state.apply(event)
      sessions.after()
      if (event.type === DocumentChanged.type) {
        const reviewContent = journal === undefined && (event.actor.kind === 'user' || event.actor.kind === 'system')
        if (reviewContent) for (const entry of awaitingContent) entry.revision = state.revision
        else awaitingContent = []
        if (applying?.entry) {
          if (applying.appliedAt === 0) {
            applying.appliedAt = event.position
            slots.push(applying)
          }
          applying.entry.revision = state.revision
        }
        continue
      }
      if (!isReviewAction(event)) awaitingContent = []
      const entry = entryOf(event, state)
      if (entry === undefined) continue
      if ('journal' in entry) journals.set(entry.journal, entry)
      else {
        slots.push(entry)
        if (entry.kind === 'review' && entry.action !== 'kept') awaitingContent.push(entry)
      }
    }
    if (summarizing) summarizing.journal.entry!.summary = changeSummary(summarizing.before, state.content)
    sessions.finish()
    return (await Promise.all(slots.map((slot) => finished(slot, state, docId, options)))).filter((entry) => entry !== undefined).reverse()
  } finally {
    state.destroy()
  }
}

const isReviewAction = (event: RecordedEvent): boolean => event.type === ReviewKept.type || event.type === ReviewUndone.type || event.type === ReviewRedone.type

/** The entry an event (other than a content change) starts, once the state has folded it. */
function entryOf(event: RecordedEvent, state: DocumentState): TimelineEntry | OpenJournal | undefined {
  const base = { position: event.position, at: event.at, actor: describeActor(event.actor), revision: state.revision }
  switch (event.type) {
    case DocumentSaved.type: {
      const data = dataOf(event, DocumentSaved)
      // The revision the file holds: an edit that landed while the save wrote the file is not in it.
      return { ...base, kind: 'save', revision: data.revision ?? state.revision, reason: data.reason, mcp: event.actor.kind === 'mcp', path: data.path, length: data.length }
    }
    case JournalRecorded.type: {
      const data = dataOf(event, JournalRecorded)
      const restored = event.actor.kind === 'user' ? restoredRevision(data.detail) : undefined
      const open: OpenJournal = { journal: event.position, entry: undefined, appliedAt: 0 }
      if (event.actor.kind === 'mcp') {
        open.entry = {
          ...base, kind: 'ai-write', operation: data.operation, agent: event.actor.principal,
          ...(data.detail === undefined ? {} : { detail: data.detail }),
          addresses: (data.addresses ?? []).map((id) => ({ id })), reviewed: false, change: changeToken(event.position), state: 'pending', summary: '',
        }
      } else if (restored !== undefined) {
        open.entry = { ...base, kind: 'restore', restored, summary: '' }
      }
      return open.entry ? open : undefined
    }
    case ReviewMarked.type:
      return { ...base, kind: 'reviewed', revision: revisionToken(dataOf(event, ReviewMarked).upToPosition) }
    case ReviewKept.type: {
      const data = dataOf(event, ReviewKept)
      return reviewEntry(base, 'kept', data.change, data.hunks, state)
    }
    case ReviewUndone.type: {
      const data = dataOf(event, ReviewUndone)
      return reviewEntry(base, 'undone', data.change, data.hunks.map((hunk) => hunk.index), state)
    }
    case ReviewRedone.type: {
      const data = dataOf(event, ReviewRedone)
      return reviewEntry(base, 'redone', data.change, data.hunks.map((hunk) => hunk.index), state)
    }
    default:
      return undefined
  }
}

function reviewEntry(base: TimelineBase, action: ReviewActionEntry['action'], id: number, hunks: readonly number[] | undefined, state: DocumentState): Mutable<ReviewActionEntry> {
  const change = state.aiChange(id)
  const of = change?.hunks.length ?? 0
  return { ...base, kind: 'review', action, change: changeToken(id), agent: change?.principal ?? 'unknown', hunks: hunks ? [...hunks] : Array.from({ length: of }, (_, index) => index), of }
}

/** A slot as the timeline lists it: a journal's entry with its change's state now, a session that touched text. */
async function finished(slot: TimelineEntry | OpenJournal, state: DocumentState, docId: string, options: TimelineOptions): Promise<TimelineEntry | undefined> {
  if (!('journal' in slot)) {
    if (slot.kind !== 'edits') return slot
    if (slot.paragraphs.length === 0) return undefined
    const { kind, position, at, until, actor, revision, edits, paragraphs } = slot
    return { kind, position, at, until, actor, revision, edits, paragraphs }
  }
  const entry = slot.entry!
  const change = state.aiChange(slot.journal)
  if (entry.kind === 'restore') {
    if (change) {
      entry.change = changeToken(change.id)
      entry.state = changeState(change)
    }
    return entry
  }
  if (change) {
    entry.state = changeState(change)
    entry.reviewed = entry.state !== 'pending'
  }
  if (options.resolveComment) {
    const resolve = options.resolveComment
    entry.addresses = await Promise.all(entry.addresses.map(async ({ id }) => ({ id, state: await resolve(docId, id) })))
  }
  return entry
}
