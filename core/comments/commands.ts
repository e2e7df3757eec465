import type { Actor } from '../events/actor.js'
import { durableWithin } from '../deadline.js'
import { appendFolded, type Appended } from '../streams/append.js'
import { isExpectedVersionConflict } from '../log/errors.js'
import { QuireError } from '../errors.js'
import { newId } from '../ids.js'
import type { EventInput, EventLog } from '../log/eventLog.js'
import type { DocumentTurns } from '../documents/turns.js'
import type { DocumentCommands } from '../documents/commands.js'
import type { CommentsProjection, Thread } from './commentsState.js'
import { validateAddresses } from './addresses.js'
import { anchoredQuote, createAnchor } from './anchors.js'
import { COMMENT_ID, commentsStream } from './events.js'
import { MAX_BODY_CHARS, MAX_REPLIES, MAX_THREAD_CHANGES } from './limits.js'
import { listPage, type CommentsPage } from './pages.js'
import { replyView, threadHead, type ThreadView } from './views.js'

export interface ReplyOutcome {
  readonly comment: string
  readonly reply: string
  readonly commentGen: string
}

export interface StateOutcome {
  readonly comment: string
  readonly state: string
  readonly commentGen: string
}

/** Who is calling, as far as recognising a retried reply goes: the assistant's principal, or the actor's kind. */
const callerKey = (actor: Actor): string => (actor.kind === 'mcp' ? `mcp:${actor.principal}` : actor.kind)

/**
 * The review threads (TOOLS.md §7). Assistants list, reply and mark addressed; only the person opens threads and
 * resolves, reopens or deletes them (the MCP tool has no action for it, COM.GEN.1). Every change is one event in
 * the document's `comments:<docId>` stream, made in the document's write turn (WRITE_BUSY after 3 s, CONC.4) and
 * folded only once it is on disk within the journal deadline: a later one is refused with JOURNAL_UNAVAILABLE and
 * withdrawn, so it never takes effect; the next change then meets JOURNAL_BUSY until it lands, and JOURNAL_DEGRADED
 * until its withdrawal does (COM.MUTATE.6).
 */
export class CommentCommands {
  /** Documents whose comments stream has a refused change, or its withdrawal, still on its way to disk. */
  private readonly pending = new Map<string, 'recording' | 'withdrawing'>()

  constructor(
    private readonly store: EventLog,
    private readonly view: CommentsProjection,
    /** The documents' owner: a thread's anchor and quote are read in the document's step, from text the log holds. */
    private readonly documents: Pick<DocumentCommands, 'read'>,
    private readonly turns: DocumentTurns,
    private readonly journalDeadlineMs = 2_000,
  ) {}

  /** COM.ADDR.4–6, for the edits that pass `addresses`: throws INVALID_ADDRESSES, never changes a thread. */
  validateAddresses(docId: string, ids: readonly string[]): void {
    validateAddresses(this.view, docId, ids)
  }

  /** One page of `comments.list` (COM.LIST.*). */
  async list(docId: string, cursor?: string): Promise<CommentsPage> {
    return this.documents.read(docId, (document) => {
      const content = document?.content ?? ''
      return listPage(docId, this.view.of(docId), (thread) => anchoredQuote(thread, document?.text, content), cursor)
    })
  }

  /** Every live thread of the document, whole (the person's side: CLI and console). */
  async threads(docId: string): Promise<ThreadView[]> {
    return this.documents.read(docId, (document) => {
      const content = document?.content ?? ''
      return [...this.view.of(docId).threads.values()]
        .filter((thread) => !thread.deleted)
        .map((thread) => ({ head: threadHead(thread, anchoredQuote(thread, document?.text, content)), replies: thread.replies.map(replyView) }))
    })
  }

  /** The person opens a thread on `[from, to)` of the document's text (character offsets). */
  async create(docId: string, anchor: { readonly from: number; readonly to: number }, body: string, actor: Actor): Promise<{ comment: string; commentGen: string }> {
    checkBody(body)
    return this.turns.run(docId, async () => {
      this.checkPending(docId)
      // Anchored in the document's step: never to a keystroke applied ahead of its append, which the log may yet lose.
      const anchored = await this.documents.read(docId, (document) => document && createAnchor(document.text, anchor.from, anchor.to))
      if (!anchored) throw new QuireError('NOT_FOUND', `no document ${docId}`)
      const { start, end, quote, quoteTruncated } = anchored
      const commentId = newId('c')
      await this.record(docId, { type: 'comment.created', actor, data: { commentId, anchor: { start, end }, quote, quoteTruncated, body } })
      return { comment: commentId, commentGen: this.view.of(docId).threads.get(commentId)!.gen }
    })
  }

  /**
   * A reply (COM.REPLY.*). With `expectedCommentGen` (always, from an assistant) the thread must not have changed
   * since; a retry of a call that already replied (same caller principal, thread, expectedCommentGen and body) gets
   * that call's answer and adds nothing (COM.REPLY.3).
   */
  async reply(docId: string, commentId: string, body: string, expectedCommentGen: string | undefined, actor: Actor): Promise<ReplyOutcome> {
    return this.turns.run(docId, async () => {
      this.checkPending(docId)
      const thread = this.thread(docId, commentId)
      if (expectedCommentGen !== undefined && expectedCommentGen !== thread.gen) {
        const first = thread.replies.find((reply) => reply.basedOn === expectedCommentGen && reply.body === body && callerKey(reply.author) === callerKey(actor))
        if (first) return { comment: commentId, reply: first.replyId, commentGen: first.gen }
      }
      this.checkChangeable(thread, expectedCommentGen)
      checkBody(body)
      if (thread.replies.length >= MAX_REPLIES) throw new QuireError('COMMENT_LIMIT', `thread ${commentId} already has ${MAX_REPLIES} replies, the most it may hold`)
      const replyId = newId('r')
      await this.record(docId, {
        type: 'comment.replied', actor,
        data: { commentId, replyId, body, ...(expectedCommentGen === undefined ? {} : { basedOn: expectedCommentGen }) },
      })
      return { comment: commentId, reply: replyId, commentGen: thread.gen }
    })
  }

  /** COM.MARK_ADDRESSED.*: the thread becomes `addressed` (never resolved); a retry of the same call changes nothing. */
  async markAddressed(docId: string, commentId: string, expectedCommentGen: string, actor: Actor): Promise<StateOutcome> {
    return this.turns.run(docId, async () => {
      this.checkPending(docId)
      const thread = this.thread(docId, commentId)
      if (thread.lastAddressed?.basedOn === expectedCommentGen) return { comment: commentId, state: thread.state, commentGen: thread.gen }
      this.checkChangeable(thread, expectedCommentGen)
      await this.record(docId, { type: 'comment.addressed', actor, data: { commentId, basedOn: expectedCommentGen } })
      return { comment: commentId, state: thread.state, commentGen: thread.gen }
    })
  }

  /** The person resolves a thread (resolving a resolved thread records nothing). */
  resolve(docId: string, commentId: string, actor: Actor): Promise<StateOutcome> {
    return this.decide(docId, commentId, 'comment.resolved', (thread) => thread.state !== 'resolved', actor)
  }

  /** The person reopens a resolved or addressed thread (an open or reopened one records nothing). */
  reopen(docId: string, commentId: string, actor: Actor): Promise<StateOutcome> {
    return this.decide(docId, commentId, 'comment.reopened', (thread) => thread.state === 'resolved' || thread.state === 'addressed', actor)
  }

  /** The person deletes a thread: it leaves `list`, and cursors and commentGens naming it turn STALE_COMMENT. */
  async delete(docId: string, commentId: string, actor: Actor): Promise<{ comment: string; deleted: true }> {
    await this.decide(docId, commentId, 'comment.deleted', () => true, actor)
    return { comment: commentId, deleted: true }
  }

  private async decide(docId: string, commentId: string, type: string, changes: (thread: Thread) => boolean, actor: Actor): Promise<StateOutcome> {
    return this.turns.run(docId, async () => {
      this.checkPending(docId)
      const thread = this.thread(docId, commentId)
      if (changes(thread)) {
        if (thread.changes >= MAX_THREAD_CHANGES) throw new QuireError('COMMENT_LIMIT', `thread ${commentId} has taken ${MAX_THREAD_CHANGES} changes and can no longer change`)
        await this.record(docId, { type, actor, data: { commentId } })
      }
      return { comment: commentId, state: thread.state, commentGen: thread.gen }
    })
  }

  /** The live thread `commentId` of this document: INVALID_COMMENT when there is none, STALE_COMMENT when deleted. */
  private thread(docId: string, commentId: string): Thread {
    if (!COMMENT_ID.test(commentId)) throw new QuireError('INVALID_COMMENT', `${JSON.stringify(commentId)} is not a comment id (comments.list names them)`)
    const thread = this.view.of(docId).threads.get(commentId)
    if (!thread) throw new QuireError('INVALID_COMMENT', `${commentId} is not a comment of this document`)
    if (thread.deleted) throw new QuireError('STALE_COMMENT', `comment ${commentId} was deleted; list again`)
    return thread
  }

  /** COM.MUTATE.1–5 for an assistant's change: resolved, changed since `expected`, or at its change limit. */
  private checkChangeable(thread: Thread, expected: string | undefined): void {
    if (thread.state === 'resolved') throw new QuireError('COMMENT_NOT_ALLOWED', `comment ${thread.commentId} is resolved; only the user can reopen it`)
    if (expected !== undefined && expected !== thread.gen) {
      throw new QuireError('STALE_COMMENT', `comment ${thread.commentId} changed since commentGen ${expected}; list again`, { commentGen: thread.gen })
    }
    if (thread.changes >= MAX_THREAD_CHANGES) {
      throw new QuireError('COMMENT_LIMIT', `thread ${thread.commentId} has taken ${MAX_THREAD_CHANGES} changes and can no longer change`)
    }
  }

  private checkPending(docId: string): void {
    const pending = this.pending.get(docId)
    if (pending === 'recording') throw new QuireError('JOURNAL_BUSY', 'another change to this document\'s comments is still being recorded; retry later')
    if (pending === 'withdrawing') throw new QuireError('JOURNAL_DEGRADED', 'an earlier comment change of this document is not yet persisted; retry in a few seconds')
  }

  /**
   * Appends one event and folds it once it is on disk within the deadline. A late one is refused and withdrawn: the
   * withdrawal is appended right behind it (the log lands them in order), and neither is ever folded as a change.
   */
  private async record(docId: string, event: EventInput): Promise<void> {
    const stream = commentsStream(docId)
    const head = await this.store.streamHead(stream)
    // Folded only once durable (a late change is withdrawn and never folded), so the fold waits for that answer.
    let appended: Appended
    try {
      appended = await appendFolded(this.store, [{ stream, events: [event], expectedVersion: head.version, fold: () => {} }])
    } catch (error) {
      if (!isExpectedVersionConflict(error)) throw error
      // Another node changed this document's comments first (only a shared log raises this): what was decided
      // here may no longer hold, so the caller lists again, as after any change it did not see.
      await this.view.reload(this.store, docId)
      throw new QuireError('STALE_COMMENT', 'another node changed this document\'s comments at the same moment; list again')
    }
    const recorded = appended.recorded[0]!
    const outcome = await durableWithin(appended.durable, this.journalDeadlineMs)
    if (outcome === 'durable') {
      this.view.apply(recorded)
      return
    }
    if (outcome === 'failed') throw new QuireError('JOURNAL_UNAVAILABLE', 'the log could not record the comment change; nothing was changed')
    const withdrawal = await appendFolded(this.store, [
      {
        stream,
        events: [{ type: 'comment.withdrawn', actor: event.actor, data: { streamVersion: recorded[0]!.streamVersion } }],
        expectedVersion: recorded[0]!.streamVersion,
        fold: (events) => this.view.apply(events),
      },
    ])
    this.pending.set(docId, 'recording')
    // Settled either way, the document takes comment changes again: a change the log rolled back never happened.
    const settled = () => this.pending.delete(docId)
    void appended.durable.then(() => {
      if (this.pending.get(docId) === 'recording') this.pending.set(docId, 'withdrawing')
      return withdrawal.durable
    }).then(settled, settled)
    throw new QuireError('JOURNAL_UNAVAILABLE', 'the journal did not record the comment change in time; nothing was changed')
  }
}

/** INVALID_TEXT for lone surrogates (JRNL.11), COMMENT_LIMIT for an over-long body (COM.MUTATE.5). */
function checkBody(body: string): void {
  if (!body.isWellFormed()) throw new QuireError('INVALID_TEXT', 'the body contains an unpaired UTF-16 surrogate')
  if (body.length > MAX_BODY_CHARS) throw new QuireError('COMMENT_LIMIT', `the body is ${body.length} characters; at most ${MAX_BODY_CHARS} are allowed`)
}

