import type { Actor } from '../events/actor.js'
import { QuireError } from '../errors.js'
import type { EventLog } from '../log/eventLog.js'
import type { DocumentCommands } from '../documents/commands.js'
import { documentStream } from '../documents/events.js'
import { positionOfRevision } from '../documents/revision.js'
import type { Settings } from '../settings/events.js'
import type { DocumentRepository } from '../documents/documentRepository.js'
import type { FoldedStream } from '../streams/foldedStream.js'
import { ReviewBacklog } from './backlog.js'

/**
 * The review backlog (DOC.WRITE.18, TOOLS.md §16 leaves the rule to us): an AI change is unreviewed until the person
 * marks the document reviewed up to a revision at or after it (the console's "Mark all reviewed"); while
 * `reviewBacklogLimit` (a setting, default 20) or more applied AI writes are unreviewed, the next `document.write` is
 * refused with REVIEW_BACKLOG_FULL. Counts are folded from the document's stream and cached per document, caught up
 * from the cached stream version on each question (so a write pays for the events since the last one, not the stream).
 */
export class ReviewCommands {
  private readonly backlogs = new Map<string, ReviewBacklog>()
  /** One catch-up at a time per document, so events fold once and in order. */
  private readonly catchUps = new Map<string, Promise<ReviewBacklog>>()

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
   * The document's own fold when it holds every event of its stream this node knows of (the usual case: a write's
   * events are folded as they are appended), so a write reads nothing from the log; otherwise the backlog folded here
   * from the log (a state from a snapshot older than the backlog's field, or one behind another node's events).
   */
  private async counts(docId: string): Promise<{ readonly unreviewed: number; readonly reviewedUpTo: number }> {
    const state = await this.documents.get(docId)
    const counts = state?.reviewCounts()
    if (state && counts && state.version >= (await this.store.streamHead(documentStream(docId))).version) return counts
    return this.backlog(docId)
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

  private backlog(docId: string): Promise<ReviewBacklog> {
    const previous = this.catchUps.get(docId) ?? Promise.resolve(undefined)
    const next = previous.then(
      () => this.catchUp(docId),
      () => this.catchUp(docId),
    )
    this.catchUps.set(docId, next)
    void next.finally(() => {
      if (this.catchUps.get(docId) === next) this.catchUps.delete(docId)
    }).catch(() => {})
    return next
  }

  private async catchUp(docId: string): Promise<ReviewBacklog> {
    let backlog = this.backlogs.get(docId)
    if (!backlog) {
      // The document's fold keeps its backlog (and its snapshot does): only the events past it are read here.
      backlog = (await this.documents.get(docId))?.reviewBacklog() ?? new ReviewBacklog()
      this.backlogs.set(docId, backlog)
    }
    for await (const event of this.store.readStream(documentStream(docId), { fromVersion: backlog.version + 1 })) backlog.apply(event)
    return backlog
  }
}
