import type { Actor } from '../events/actor.js'
import type { JournalOperation } from './events.js'
import type { IdRef, TextHunk, TextRun } from './textChanges.js'

/** Where a hunk of an AI change stands with the person (DESIGN §11). */
export type HunkState = 'pending' | 'kept' | 'undone'

/**
 * One place an AI change changed the text, as it stands now: the characters that stand for what the change inserted
 * (after a redo, the redo's), those that stand for what it deleted (the original tombstones, or after an undo and a
 * redo the undo's), and while undone, the characters the undo put back. Ids, so the hunk follows every edit since.
 */
export interface ChangeHunk {
  readonly inserted: readonly TextRun[]
  readonly deleted: readonly TextRun[]
  readonly restored: readonly TextRun[]
  /** The visible characters around the place when the change was made (null: the text's start or end). */
  readonly before: IdRef | null
  readonly after: IdRef | null
  readonly state: HunkState
}

/**
 * An AI change (DESIGN §11): one journaled edit by an assistant on one document. Its id is its journal entry's log
 * position; `revisionPosition` the revision its change made; `addresses` the comments it answered. The person's
 * restores of an old revision are kept the same way (`by: 'person'`), so a restore can be undone too; they are
 * reviewed from the start and never count in the backlog.
 */
export interface AiChange {
  readonly id: number
  readonly by: 'assistant' | 'person'
  readonly principal: string
  readonly connection: string
  readonly at: number
  readonly operation: JournalOperation
  readonly addresses: readonly string[]
  readonly revisionPosition: number
  readonly hunks: readonly ChangeHunk[]
}

/** A change is pending while any of its hunks is. */
export const isPending = (change: AiChange): boolean => change.hunks.some((hunk) => hunk.state === 'pending')

/** The id people and scripts use for a change: `ch-` and its journal position in base 36. */
export const changeToken = (id: number): string => `ch-${id.toString(36)}`

export function changeIdOf(token: string): number | undefined {
  const match = /^ch-([0-9a-z]+)$/.exec(token)
  if (!match) return undefined
  const id = parseInt(match[1]!, 36)
  return Number.isSafeInteger(id) && id > 0 ? id : undefined
}

export function hunkOf(captured: TextHunk, state: HunkState): ChangeHunk {
  return { inserted: captured.inserted, deleted: captured.deleted, restored: [], before: captured.before, after: captured.after, state }
}

/** The undo's or redo's effect on one hunk, as `review.undone` / `review.redone` record it. */
export interface HunkRevert {
  readonly index: number
  /** The characters the undo put back (undone), or the redo re-inserted (redone). */
  readonly created: readonly TextRun[]
}

/**
 * The AI changes of one document, folded from its stream (the document's own fold holds one, so its snapshot keeps
 * it): created by an assistant's journal entry, made real by the change events that carry that entry (their text
 * hunks captured as they are applied), then kept, undone and redone by the person's review events.
 */
export class AiChanges {
  private readonly byId = new Map<number, AiChange>()
  /** The latest assistant journal entry not yet applied (an aborted or refused write never is). */
  private recording: Omit<AiChange, 'revisionPosition' | 'hunks'> | undefined

  /**
   * A journal entry: an assistant's edit, or the person's restore, is a change once its content events come; any
   * other journaled edit is not one.
   */
  noteJournal(position: number, at: number, actor: Actor, operation: JournalOperation, addresses: readonly string[], restore: boolean): void {
    if (actor.kind === 'mcp') this.recording = { id: position, by: 'assistant', principal: actor.principal, connection: actor.connection, at, operation, addresses }
    else if (actor.kind === 'user' && restore) this.recording = { id: position, by: 'person', principal: 'person', connection: 'person', at, operation, addresses }
    else this.recording = undefined
  }

  /** Whether content events carrying journal entry `journal` belong to an AI change (their hunks are to be captured). */
  captures(journal: number | undefined): boolean {
    return journal !== undefined && (this.recording?.id === journal || this.byId.has(journal))
  }

  /** A content event of journal entry `journal`, with the text hunks applying it made. */
  noteApplied(journal: number, hunks: readonly TextHunk[], revisionPosition: number): void {
    const existing = this.byId.get(journal)
    const state: HunkState = (existing ?? this.recording)?.by === 'person' ? 'kept' : 'pending'
    if (existing) {
      this.byId.set(journal, { ...existing, revisionPosition, hunks: [...existing.hunks, ...hunks.map((hunk) => hunkOf(hunk, state))] })
      return
    }
    if (this.recording?.id !== journal) return
    this.byId.set(journal, { ...this.recording, revisionPosition, hunks: hunks.map((hunk) => hunkOf(hunk, state)) })
    this.recording = undefined
  }

  get(id: number): AiChange | undefined {
    return this.byId.get(id)
  }

  /** Every change, oldest first. */
  all(): AiChange[] {
    return [...this.byId.values()]
  }

  /** How many assistants' changes are pending (the review backlog). */
  get pendingCount(): number {
    let count = 0
    for (const change of this.byId.values()) if (change.by === 'assistant' && isPending(change)) count += 1
    return count
  }

  /** The person keeps hunks `indexes` of change `id` (all when undefined): reviewed, as they are. */
  keep(id: number, indexes: readonly number[] | undefined): void {
    this.update(id, indexes, (hunk) => (hunk.state === 'pending' ? { ...hunk, state: 'kept' } : hunk))
  }

  /** What a redo returns a hunk to: pending for an assistant's change, kept for the person's restore. */
  private redoneState(id: number): HunkState {
    return this.byId.get(id)?.by === 'person' ? 'kept' : 'pending'
  }

  /** `review.marked`: every change whose text landed at or before `upTo` is kept. */
  keepUpTo(upTo: number): void {
    for (const change of this.byId.values()) if (change.revisionPosition <= upTo && isPending(change)) this.keep(change.id, undefined)
  }

  undone(id: number, reverts: readonly HunkRevert[]): void {
    const byIndex = new Map(reverts.map((revert) => [revert.index, revert.created]))
    this.update(id, [...byIndex.keys()], (hunk, index) => ({ ...hunk, restored: byIndex.get(index)!, state: 'undone' }))
  }

  /** A redo: the redo's characters stand for the insertion now, and the undo's (deleted again) for the deletion. */
  redone(id: number, reverts: readonly HunkRevert[]): void {
    const byIndex = new Map(reverts.map((revert) => [revert.index, revert.created]))
    const state = this.redoneState(id)
    this.update(id, [...byIndex.keys()], (hunk, index) => ({ ...hunk, inserted: byIndex.get(index)!, deleted: hunk.restored, restored: [], state }))
  }

  private update(id: number, indexes: readonly number[] | undefined, change: (hunk: ChangeHunk, index: number) => ChangeHunk): void {
    const existing = this.byId.get(id)
    if (!existing) return
    const chosen = indexes === undefined ? undefined : new Set(indexes)
    this.byId.set(id, { ...existing, hunks: existing.hunks.map((hunk, index) => (chosen && !chosen.has(index) ? hunk : change(hunk, index))) })
  }

  /** As a snapshot keeps it (plain data). */
  fields(): AiChangesFields {
    return { changes: this.all().map((change) => ({ ...change, addresses: [...change.addresses], hunks: change.hunks.map(plainHunk) })), recording: this.recording ? { ...this.recording, addresses: [...this.recording.addresses] } : null }
  }

  static fromFields(fields: AiChangesFields): AiChanges {
    const changes = new AiChanges()
    for (const change of fields.changes) changes.byId.set(change.id, change)
    changes.recording = fields.recording ?? undefined
    return changes
  }
}

type PlainRun = { client: number; clock: number; text: string }
type PlainHunk = { inserted: PlainRun[]; deleted: PlainRun[]; restored: PlainRun[]; before: { client: number; clock: number } | null; after: { client: number; clock: number } | null; state: HunkState }

export type AiChangesFields = {
  changes: { id: number; by: 'assistant' | 'person'; principal: string; connection: string; at: number; operation: JournalOperation; addresses: string[]; revisionPosition: number; hunks: PlainHunk[] }[]
  recording: { id: number; by: 'assistant' | 'person'; principal: string; connection: string; at: number; operation: JournalOperation; addresses: string[] } | null
}

function plainHunk(hunk: ChangeHunk): PlainHunk {
  const runs = (list: readonly TextRun[]) => list.map(({ client, clock, text }) => ({ client, clock, text }))
  return { inserted: runs(hunk.inserted), deleted: runs(hunk.deleted), restored: runs(hunk.restored), before: hunk.before && { ...hunk.before }, after: hunk.after && { ...hunk.after }, state: hunk.state }
}
