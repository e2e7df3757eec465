import { dataOf } from '../events/schema.js'
import type { RecordedEvent } from '../log/eventLog.js'
import { DocumentChanged, ReviewMarked } from './events.js'

/** What a document snapshot keeps of a backlog (plain data, as lib0's encoder takes it). */
export type ReviewBacklogFields = {
  version: number
  reviewedUpTo: number
  pending: number[]
  lastJournal: number
}

/**
 * The review backlog of one document, folded from its stream: the AI writes (distinct journal entries whose change
 * was applied, by an `mcp` actor) that landed after the person's last review mark. An aborted or refused write (a
 * journal entry with no change) was never applied and is not counted; a person's own journaled change (a restore) is
 * not an AI change. Pure and incremental: fold the stream's events in order, any number of times, from any version.
 * The document's own fold keeps one (DocumentState), so its snapshot carries it and a start does not refold the stream.
 */
export class ReviewBacklog {
  /** Stream version folded so far. */
  version = 0
  /** Log position up to which the person reviewed (0: never). */
  reviewedUpTo = 0
  /** Where each unreviewed AI write's change landed (ascending log positions). */
  private pending: number[] = []
  /** The journal entry whose change was counted last: a write's changes (and the bridge's follow-up) share it. */
  private lastJournal = 0

  get unreviewed(): number {
    return this.pending.length
  }

  /** Whether folding `event` can change a backlog (the rest only move its version). */
  static counts(event: RecordedEvent): boolean {
    return (event.type === DocumentChanged.type && event.actor.kind === 'mcp') || event.type === ReviewMarked.type
  }

  apply(event: RecordedEvent): void {
    if (event.streamVersion <= this.version) return
    this.version = event.streamVersion
    if (event.type === DocumentChanged.type) {
      if (event.actor.kind !== 'mcp') return
      const { journal } = dataOf(event, DocumentChanged)
      if (journal === undefined || journal === this.lastJournal) return
      this.lastJournal = journal
      if (event.position > this.reviewedUpTo) this.pending.push(event.position)
    } else if (event.type === ReviewMarked.type) {
      const upTo = dataOf(event, ReviewMarked).upToPosition
      if (upTo <= this.reviewedUpTo) return
      this.reviewedUpTo = upTo
      let reviewed = 0
      while (reviewed < this.pending.length && this.pending[reviewed]! <= upTo) reviewed++
      this.pending.splice(0, reviewed)
    }
  }

  fields(): ReviewBacklogFields {
    return { version: this.version, reviewedUpTo: this.reviewedUpTo, pending: [...this.pending], lastJournal: this.lastJournal }
  }

  static fromFields(fields: ReviewBacklogFields): ReviewBacklog {
    const backlog = new ReviewBacklog()
    backlog.version = fields.version
    backlog.reviewedUpTo = fields.reviewedUpTo
    backlog.pending = [...fields.pending]
    backlog.lastJournal = fields.lastJournal
    return backlog
  }
}
