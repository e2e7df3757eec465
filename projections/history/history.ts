import type { Engine } from '../../core/engine.js'
import { describeActor } from '../../core/events/actor.js'
import { documentStream, type JournalOperation } from '../../core/documents/events.js'
import { revisionToken } from '../../core/documents/revision.js'
import { restoredRevision } from '../../core/review/restore.js'
import { DocumentChanged, DocumentSaved, JournalRecorded } from '../../core/documents/events.js'
import { dataOf } from '../../core/events/schema.js'
import { ReviewMarked } from '../../core/review/events.js'
import { DocumentState } from '../../core/documents/documentState.js'

export interface HistoryEntry {
  readonly position: number
  readonly at: number
  /** `save` by a person or an assistant, `open` when first read from disk, `reload` when the disk's text came in. */
  readonly reason: 'open' | 'save' | 'reload'
  readonly actor: string
  /** An AI client's save: shown as `(mcp)` and never merged or skipped (SAVE.4–5). */
  readonly mcp: boolean
  readonly path: string
  readonly revision: string
  readonly length: number
}

/**
 * A document's history: every time its text was saved to, or taken from, a file, with the revision the text had
 * then (so `quire replay --at` shows it). Folded from the log on demand.
 */
export async function documentHistory(engine: Engine, docId: string): Promise<HistoryEntry[]> {
  const state = new DocumentState(docId)
  const entries: HistoryEntry[] = []
  try {
    for await (const event of engine.store.readStream(documentStream(docId))) {
      state.apply(event)
      if (event.type !== DocumentSaved.type) continue
      const data = dataOf(event, DocumentSaved)
      entries.push({
        position: event.position,
        at: event.at,
        reason: data.reason,
        actor: describeActor(event.actor),
        mcp: event.actor.kind === 'mcp',
        path: data.path,
        // The revision the file holds: an edit that landed while the save wrote the file is not in it.
        revision: data.revision ?? state.revision,
        length: data.length,
      })
    }
  } finally {
    state.destroy()
  }
  return entries
}

/** What a comment an AI write addressed is now (COM.ADDR.3: a deleted one shows as deleted). */
export type CommentState = 'open' | 'addressed' | 'resolved' | 'reopened' | 'deleted' | 'unknown'

/** Looks up a comment's state; the comments module provides it once it exists. */
export type CommentStateResolver = (docId: string, commentId: string) => CommentState | Promise<CommentState>

export interface AddressedComment {
  readonly id: string
  /** Present when a resolver was given. */
  readonly state?: CommentState
}

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
  /** Whether the person has reviewed it (a review mark at or after its change). */
  readonly reviewed: boolean
}

/** The person restored an earlier revision (a new change; the log is never rewritten). */
export interface RestoreEntry extends TimelineBase {
  readonly kind: 'restore'
  readonly restored: string
}

/** The person marked the AI changes up to `revision` reviewed. */
export interface ReviewedEntry extends TimelineBase {
  readonly kind: 'reviewed'
}

export type TimelineEntry = SaveEntry | AiWriteEntry | RestoreEntry | ReviewedEntry

export interface TimelineOptions {
  readonly resolveComment?: CommentStateResolver
}

/** A journal entry waiting for its change, and where that change landed once it did. */
interface OpenJournal {
  entry: Mutable<AiWriteEntry> | Mutable<RestoreEntry> | undefined
  appliedAt: number
}
type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/**
 * The document's history as the console's History sidebar shows it, newest first: every save (with `(mcp)` ones
 * marked, SAVE.4–5), every applied AI write (its operation, agent, resulting revision and the comments it
 * addressed), every restore by the person, and every review mark. Folded from the document's stream on demand.
 */
export async function documentTimeline(engine: Engine, docId: string, options: TimelineOptions = {}): Promise<TimelineEntry[]> {
  const state = new DocumentState(docId)
  const entries: Array<TimelineEntry | OpenJournal> = []
  const journals = new Map<number, OpenJournal>()
  let reviewedUpTo = 0
  try {
    for await (const event of engine.store.readStream(documentStream(docId))) {
      state.apply(event)
      switch (event.type) {
        case DocumentSaved.type: {
          const data = dataOf(event, DocumentSaved)
          entries.push({
            kind: 'save', position: event.position, at: event.at, actor: describeActor(event.actor), revision: data.revision ?? state.revision,
            reason: data.reason, mcp: event.actor.kind === 'mcp', path: data.path, length: data.length,
          })
          break
        }
        case JournalRecorded.type: {
          const data = dataOf(event, JournalRecorded)
          const base = { position: event.position, at: event.at, actor: describeActor(event.actor), revision: state.revision }
          const restored = event.actor.kind === 'user' ? restoredRevision(data.detail) : undefined
          const journal: OpenJournal = { entry: undefined, appliedAt: 0 }
          if (event.actor.kind === 'mcp') {
            journal.entry = {
              ...base, kind: 'ai-write', operation: data.operation, agent: event.actor.principal,
              ...(data.detail === undefined ? {} : { detail: data.detail }),
              addresses: (data.addresses ?? []).map((id) => ({ id })), reviewed: false,
            }
          } else if (restored !== undefined) {
            journal.entry = { ...base, kind: 'restore', restored }
          }
          if (journal.entry) journals.set(event.position, journal)
          break
        }
        case DocumentChanged.type: {
          const journal = journals.get(dataOf(event, DocumentChanged).journal ?? 0)
          if (!journal?.entry) break
          if (journal.appliedAt === 0) {
            journal.appliedAt = event.position
            entries.push(journal)
          }
          journal.entry.revision = state.revision
          break
        }
        case ReviewMarked.type: {
          const upTo = dataOf(event, ReviewMarked).upToPosition
          reviewedUpTo = Math.max(reviewedUpTo, upTo)
          entries.push({ kind: 'reviewed', position: event.position, at: event.at, actor: describeActor(event.actor), revision: revisionToken(upTo) })
          break
        }
        default:
          break
      }
    }
  } finally {
    state.destroy()
  }
  const timeline: TimelineEntry[] = []
  for (const item of entries) {
    if (!('entry' in item)) {
      timeline.push(item)
      continue
    }
    const entry = item.entry!
    if (entry.kind === 'ai-write') {
      entry.reviewed = item.appliedAt <= reviewedUpTo
      if (options.resolveComment) {
        const resolve = options.resolveComment
        entry.addresses = await Promise.all(entry.addresses.map(async ({ id }) => ({ id, state: await resolve(docId, id) })))
      }
    }
    timeline.push(entry)
  }
  return timeline.reverse()
}
