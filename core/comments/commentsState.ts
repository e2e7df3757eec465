import type { Actor } from '../events/actor.js'
import type { EventLog, RecordedEvent } from '../log/eventLog.js'
import { dataOf } from '../events/schema.js'
import { CommentAddressed, CommentCreated, CommentDeleted, CommentReopened, CommentReplied, CommentResolved, CommentWithdrawn } from './events.js'

/** The events that change an existing thread, each naming it by `commentId`. */
const THREAD_CHANGES = [CommentReplied, CommentAddressed, CommentResolved, CommentReopened, CommentDeleted] as const
import { COMMENTS_STREAM_PREFIX, commentGenOf, commentsStream, docIdOfCommentsStream, type ThreadState } from './events.js'

export interface Reply {
  readonly replyId: string
  readonly body: string
  readonly author: Actor
  readonly at: number
  /** The commentGen the caller expected, and the commentGen this reply made: a retry is answered from these. */
  readonly basedOn: string | undefined
  readonly gen: string
}

export interface Thread {
  readonly commentId: string
  readonly docId: string
  readonly anchor: { readonly start: Uint8Array; readonly end: Uint8Array }
  readonly quote: string
  readonly quoteTruncated: boolean
  readonly body: string
  readonly author: Actor
  readonly createdAt: number
  state: ThreadState
  deleted: boolean
  gen: string
  /** Replies and state changes taken so far (MAX_THREAD_CHANGES). */
  changes: number
  readonly replies: Reply[]
  /** The last `comment.addressed`, while it is the thread's latest change: a retried mark_addressed is answered from it. */
  lastAddressed: { readonly basedOn: string; readonly gen: string } | undefined
}

/** One document's threads, oldest first (creation order), deleted ones kept as tombstones. */
export class DocumentThreads {
  readonly threads = new Map<string, Thread>()
  /** Stream version folded so far: `generation` in `list`. */
  version = 0

  /** Folds one event (already known not to be withdrawn). */
  evolve(event: RecordedEvent, docId: string): void {
    this.version = event.streamVersion
    if (event.type === CommentWithdrawn.type) return
    const gen = commentGenOf(event.streamVersion)
    if (event.type === CommentCreated.type) {
      const created = dataOf(event, CommentCreated)
      this.threads.set(created.commentId, {
        commentId: created.commentId, docId, anchor: created.anchor, quote: created.quote, quoteTruncated: created.quoteTruncated,
        body: created.body, author: event.actor, createdAt: event.at, state: 'open', deleted: false, gen, changes: 0, replies: [],
        lastAddressed: undefined,
      })
      return
    }
    const changed = THREAD_CHANGES.find((definition) => definition.type === event.type)
    if (!changed) return
    const thread = this.threads.get(dataOf(event, changed).commentId)
    if (!thread || thread.deleted) return
    thread.gen = gen
    thread.changes++
    thread.lastAddressed = undefined
    switch (event.type) {
      case CommentReplied.type: {
        const reply = dataOf(event, CommentReplied)
        thread.replies.push({ replyId: reply.replyId, body: reply.body, author: event.actor, at: event.at, basedOn: reply.basedOn, gen })
        break
      }
      case CommentAddressed.type:
        thread.state = 'addressed'
        thread.lastAddressed = { basedOn: dataOf(event, CommentAddressed).basedOn, gen }
        break
      case 'comment.resolved':
        thread.state = 'resolved'
        break
      case 'comment.reopened':
        thread.state = 'reopened'
        break
      case 'comment.deleted':
        thread.deleted = true
        break
    }
  }
}

/**
 * Every document's review threads, folded from the `comments:<docId>` streams and kept in memory (they are small):
 * loaded whole at start-up, so checks such as `validateAddresses` are synchronous, then advanced by CommentCommands
 * in the same step as their appends. A `comment.withdrawn` event cancels the earlier event it names: on load that
 * event is skipped; live, it was never folded (it was refused before it landed).
 */
export class CommentsProjection {
  private readonly documents = new Map<string, DocumentThreads>()

  async load(store: EventLog): Promise<void> {
    this.documents.clear()
    for await (const { stream } of store.streams(COMMENTS_STREAM_PREFIX)) await this.loadStream(store, stream)
  }

  /** Folds one document's comments stream from the log, replacing what was folded of it. */
  private async loadStream(store: EventLog, stream: string): Promise<void> {
    const events: RecordedEvent[] = []
    for await (const event of store.readStream(stream)) events.push(event)
    const withdrawn = new Set(events.filter((event) => event.type === 'comment.withdrawn').map((event) => dataOf(event, CommentWithdrawn).streamVersion))
    const docId = docIdOfCommentsStream(stream)
    const threads = new DocumentThreads()
    for (const event of events) {
      if (withdrawn.has(event.streamVersion)) threads.version = event.streamVersion
      else threads.evolve(event, docId)
    }
    this.documents.set(docId, threads)
    await store.streamHead(stream)
  }

  /** The document's threads (an empty set for a document nobody commented on; reading never adds an entry). */
  of(docId: string): DocumentThreads {
    return this.documents.get(docId) ?? new DocumentThreads()
  }

  private ensure(docId: string): DocumentThreads {
    let threads = this.documents.get(docId)
    if (!threads) {
      threads = new DocumentThreads()
      this.documents.set(docId, threads)
    }
    return threads
  }

  /** The thread `commentId` of any document, if one exists (for "belongs to another document" messages). */
  find(commentId: string): Thread | undefined {
    for (const threads of this.documents.values()) {
      const thread = threads.threads.get(commentId)
      if (thread) return thread
    }
    return undefined
  }

  apply(events: readonly RecordedEvent[]): void {
    for (const event of events) {
      if (!event.stream.startsWith(COMMENTS_STREAM_PREFIX)) continue
      const docId = docIdOfCommentsStream(event.stream)
      const threads = this.ensure(docId)
      // The shared log's subscription may have folded this node's own change first (both wait for it to be durable).
      if (event.streamVersion > threads.version) threads.evolve(event, docId)
    }
  }

  /**
   * Folds a comments event another node appended to the shared log. A withdrawal undoes a change folded before it
   * (the other node's change was late and never happened), so that document's threads are read again from the log;
   * so are they after a gap.
   */
  async follow(log: EventLog, event: RecordedEvent): Promise<void> {
    if (!event.stream.startsWith(COMMENTS_STREAM_PREFIX)) return
    const docId = docIdOfCommentsStream(event.stream)
    const threads = this.ensure(docId)
    if (event.streamVersion <= threads.version) return
    if (event.streamVersion === threads.version + 1 && event.type !== CommentWithdrawn.type) threads.evolve(event, docId)
    else await this.loadStream(log, event.stream)
  }

  /** Reads one document's threads from the log again (after another node's change this node had not folded yet). */
  reload(log: EventLog, docId: string): Promise<void> {
    return this.loadStream(log, commentsStream(docId))
  }
}
