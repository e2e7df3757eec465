import type { Actor } from '../events/actor.js'
import type { ChangeView, HunkView } from './views.js'
import { QuireError } from '../errors.js'
import { changeIdOf, changeToken, isPending, type AiChange } from '../documents/aiChanges.js'
import type { DocumentState } from '../documents/documentState.js'
import { revisionToken } from '../documents/revision.js'
import { chooseHunks, keepChange, redoChange, undoChange, type SkippedHunk } from './decider.js'
import type { EventLog } from '../log/eventLog.js'
import type { DocumentCommands } from '../documents/commands.js'
import { documentStream } from '../documents/events.js'
import { positionOfRevision } from '../documents/revision.js'
import type { Settings } from '../settings/events.js'
import type { DocumentRepository } from '../documents/documentRepository.js'
import type { FoldedStream } from '../streams/foldedStream.js'

/**
 * The review backlog (DOC.WRITE.18, TOOLS.md §16 leaves the rule to us): an AI change is unreviewed until the person
 * marks the document reviewed up to a revision at or after it (the console's "Mark all reviewed"); while
 * `reviewBacklogLimit` (a setting, default 20) or more applied AI writes are unreviewed, the next `document.write` is
 * refused with REVIEW_BACKLOG_FULL. Counts are folded from the document's stream and cached per document, caught up
 * from the cached stream version on each question (so a write pays for the events since the last one, not the stream).
 */
export class ReviewCommands {
  constructor(
    private readonly store: EventLog,
    private readonly documents: DocumentRepository,
    private readonly commands: DocumentCommands,
    private readonly settings: FoldedStream<Settings>,
  ) {}

  get limit(): number {
    return this.settings.state.reviewBacklogLimit
  }

  /** The number of applied AI writes on the document the person has not reviewed yet. */
  async unreviewed(docId: string): Promise<number> {
    return (await this.counts(docId)).unreviewed
  }

  /** The log position up to which the person reviewed the document (0 when never). */
  async reviewedUpTo(docId: string): Promise<number> {
    return (await this.counts(docId)).reviewedUpTo
  }

  /**
   * The document's own fold (its AI changes and review marks), caught up first with what other nodes appended to
   * its stream that this node has not folded yet.
   */
  private async counts(docId: string): Promise<{ readonly unreviewed: number; readonly reviewedUpTo: number }> {
    const state = await this.documents.get(docId)
    if (!state) return { unreviewed: 0, reviewedUpTo: 0 }
    if (state.version < (await this.store.streamHead(documentStream(docId))).version) await this.commands.caughtUp(docId)
    return ((await this.documents.get(docId)) ?? state).reviewCounts()
  }

  /** Refuses the next AI write when it would take the backlog past the limit (REVIEW_BACKLOG_FULL, DOC.WRITE.18). */
  async assertBacklogNotFull(docId: string): Promise<void> {
    const unreviewed = await this.unreviewed(docId)
    const limit = this.limit
    if (unreviewed >= limit) {
      throw new QuireError(
        'REVIEW_BACKLOG_FULL',
        `this document has ${unreviewed} AI changes the person has not reviewed (the limit is ${limit}); ask them to review the document's history, then write again`,
        { unreviewed, limit },
      )
    }
  }

  /**
   * The person reviewed every AI change up to `upToRevision` (a revision the document has reached): records
   * `review.marked` by `actor` in the document's stream. A mark that reviews nothing new records nothing.
   */
  async markReviewed(docId: string, upToRevision: string, actor: Actor): Promise<void> {
    await this.commands.markReviewed(docId, upToRevision, () => this.reviewedUpTo(docId), actor)
  }

  /** The document's changes (AI changes and the person's restores), oldest first, as the person reviews them. */
  async list(docId: string): Promise<ChangeView[]> {
    const state = await this.current(docId)
    return state.aiChanges().map(changeView)
  }

  /** The person keeps change `change` (a `ch-` id), or its hunks `hunks`: reviewed, as it is. */
  async keep(docId: string, change: string, hunks: readonly number[] | undefined, actor: Actor): Promise<ReviewOutcome> {
    const id = idOf(change)
    const { revision, outcome } = await this.commands.changeAsPerson(docId, actor, (state) => {
      const { change: kept, chosen } = chooseHunks(state, id, 'keep', hunks)
      return () => ({ events: keepChange(kept, chosen, actor), outcome: chosen })
    })
    return { change: changeToken(id), revision, done: outcome, skipped: [] }
  }

  /**
   * The person undoes change `change`, or its hunks `hunks` (DESIGN §11): the characters it inserted that still stand
   * are deleted (never anyone else's, even inside them) and what it deleted is put back where it was. A hunk that
   * cannot be undone cleanly is left, and said so.
   */
  async undo(docId: string, change: string, hunks: readonly number[] | undefined, actor: Actor): Promise<ReviewOutcome> {
    const id = idOf(change)
    const { revision, outcome } = await this.commands.changeAsPerson(docId, actor, (state) => {
      const { change: target, chosen } = chooseHunks(state, id, 'undo', hunks)
      return (transaction) => {
        const { events, undone, skipped } = undoChange(transaction, state.text, target, chosen, actor)
        return { events, outcome: { undone, skipped } }
      }
    })
    return { change: changeToken(id), revision, done: outcome.undone, skipped: outcome.skipped }
  }

  /** The person redoes what they undid of change `change` (its hunks `hunks`). */
  async redo(docId: string, change: string, hunks: readonly number[] | undefined, actor: Actor): Promise<ReviewOutcome> {
    const id = idOf(change)
    const { revision, outcome } = await this.commands.changeAsPerson(docId, actor, (state) => {
      const { change: target, chosen } = chooseHunks(state, id, 'redo', hunks)
      return (transaction) => {
        const { events, redone } = redoChange(transaction, state.text, target, chosen, actor)
        return { events, outcome: redone }
      }
    })
    return { change: changeToken(id), revision, done: outcome, skipped: [] }
  }

  /**
   * Undoes, in one step, every pending change one assistant made to the document (`principal`, or only its connection
   * `connection`) since `since` (a time in ms: changes made then or later; or a revision token: changes that landed
   * after it), newest first.
   */
  async undoBy(docId: string, who: { readonly principal: string; readonly connection?: string; readonly since?: number | string }, actor: Actor): Promise<SessionUndone> {
    const { revision, outcome } = await this.commands.changeAsPerson(docId, actor, (state) => {
      const targets = changesBy(state, who)
      if (targets.length === 0) throw new QuireError('INVALID_ARGUMENT', `${who.principal} has no pending change in document ${state.docId}${who.since === undefined ? '' : ' since then'}`)
      return (transaction) => {
        const events = []
        const changes: { change: string; undone: number[]; skipped: SkippedHunk[] }[] = []
        for (const change of targets) {
          const chosen = change.hunks.flatMap((hunk, index) => (hunk.state === 'pending' ? [index] : []))
          const undone = undoChange(transaction, state.text, change, chosen, actor)
          events.push(...undone.events)
          changes.push({ change: changeToken(change.id), undone: undone.undone, skipped: undone.skipped })
        }
        return { events, outcome: changes }
      }
    })
    return { revision, changes: outcome }
  }

  /** The document with every event of its stream this node can read folded in. */
  private async current(docId: string): Promise<DocumentState> {
    await this.commands.caughtUp(docId)
    const state = await this.documents.get(docId)
    if (!state) throw new QuireError('NOT_FOUND', `no document ${docId}`)
    return state
  }
}

/** What a keep, an undo or a redo did: the hunks it did, those it left and why, and the document's revision after. */
export interface ReviewOutcome {
  readonly change: string
  readonly revision: string
  readonly done: readonly number[]
  readonly skipped: readonly SkippedHunk[]
}

export interface SessionUndone {
  readonly revision: string
  readonly changes: readonly { readonly change: string; readonly undone: readonly number[]; readonly skipped: readonly SkippedHunk[] }[]
}

function changeView(change: AiChange): ChangeView {
  const hunks: HunkView[] = change.hunks.map((hunk, index) => ({
    index,
    state: hunk.state,
    inserted: hunk.inserted.map((run) => run.text).join(''),
    deleted: hunk.deleted.map((run) => run.text).join(''),
    insertedRuns: hunk.state === 'undone' ? [] : hunk.inserted,
    deletedRuns: hunk.state === 'undone' ? hunk.restored : hunk.deleted,
  }))
  return {
    id: changeToken(change.id),
    by: change.by,
    agent: change.principal,
    connection: change.connection,
    at: new Date(change.at).toISOString(),
    revision: revisionToken(change.revisionPosition),
    operation: change.operation,
    addresses: change.addresses,
    inserted: hunks.reduce((sum, hunk) => sum + hunk.inserted.length, 0),
    deleted: hunks.reduce((sum, hunk) => sum + hunk.deleted.length, 0),
    state: changeState(change),
    hunks,
  }
}

/** Where the person's review left a change as a whole (`mixed`: some hunks kept, others undone). */
export function changeState(change: AiChange): ChangeView['state'] {
  if (isPending(change)) return 'pending'
  const states = new Set(change.hunks.map((hunk) => hunk.state))
  return states.size === 1 && states.has('undone') ? 'undone' : states.has('undone') ? 'mixed' : 'kept'
}

/** The pending changes of one assistant (one connection of it) since a time or a revision, newest first. */
function changesBy(state: DocumentState, who: { readonly principal: string; readonly connection?: string; readonly since?: number | string }): AiChange[] {
  let since = 0
  let byTime = false
  if (typeof who.since === 'string') {
    const position = positionOfRevision(who.since)
    if (position === undefined) throw new QuireError('INVALID_ARGUMENT', `${JSON.stringify(who.since)} is not a revision token (rev-...)`)
    since = position
  } else if (who.since !== undefined) {
    since = who.since
    byTime = true
  }
  return state
    .aiChanges()
    .filter((change) => change.by === 'assistant' && change.principal === who.principal && (who.connection === undefined || change.connection === who.connection))
    .filter((change) => isPending(change) && (byTime ? change.at >= since : change.revisionPosition > since))
    .reverse()
}

function idOf(change: string): number {
  const id = changeIdOf(change)
  if (id === undefined) throw new QuireError('INVALID_ARGUMENT', `${JSON.stringify(change)} is not a change id (ch-...; quire review list shows them)`)
  return id
}
