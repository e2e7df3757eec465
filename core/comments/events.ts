import { z } from 'zod'
import { defineEvent } from '../events/schema.js'

/** One stream per document: its review threads, folded by projections/comments. */
export const COMMENTS_STREAM_PREFIX = 'comments:'
export const commentsStream = (docId: string): string => `${COMMENTS_STREAM_PREFIX}${docId}`
export const docIdOfCommentsStream = (stream: string): string => stream.slice(COMMENTS_STREAM_PREFIX.length)

/** Server-made ids: `c-` + 10 hex digits for threads, `r-` + 10 hex digits for replies (core/ids.ts newId). */
export const COMMENT_ID = /^c-[0-9a-f]{10}$/
export const REPLY_ID = /^r-[0-9a-f]{10}$/

const bytes = z.instanceof(Uint8Array)
const commentId = z.string().regex(COMMENT_ID)

/**
 * The person opened a thread on a range of `source`. The anchor is two Yjs relative positions (encoded with
 * Y.encodeRelativePosition), so it follows the text through every later edit; `quote` is the text it covered then,
 * what `list` shows once that text is gone.
 */
export const CommentCreated = defineEvent({
  type: 'comment.created',
  version: 1,
  schema: z.object({
    commentId,
    anchor: z.object({ start: bytes, end: bytes }),
    quote: z.string(),
    quoteTruncated: z.boolean(),
    body: z.string(),
  }),
})

/**
 * A reply (by the person or an assistant; the event's actor says who). `basedOn` is the commentGen the caller
 * expected: with the body and the caller's principal it recognises a retried call (COM.REPLY.3).
 */
export const CommentReplied = defineEvent({
  type: 'comment.replied',
  version: 1,
  schema: z.object({ commentId, replyId: z.string().regex(REPLY_ID), body: z.string(), basedOn: z.string().optional() }),
})

/** An assistant marked the thread addressed (never resolved: that is the person's, COM.MARK_ADDRESSED.2). */
export const CommentAddressed = defineEvent({
  type: 'comment.addressed',
  version: 1,
  schema: z.object({ commentId, basedOn: z.string() }),
})

/** The person's decisions: only they resolve, reopen and delete (COM.GEN.1). */
export const CommentResolved = defineEvent({ type: 'comment.resolved', version: 1, schema: z.object({ commentId }) })
export const CommentReopened = defineEvent({ type: 'comment.reopened', version: 1, schema: z.object({ commentId }) })
export const CommentDeleted = defineEvent({ type: 'comment.deleted', version: 1, schema: z.object({ commentId }) })

/**
 * A comment event that was not on disk within the journal deadline was refused (JOURNAL_UNAVAILABLE): this event,
 * appended right after it, withdraws it, so when it lands late it never takes effect (COM.MUTATE.6).
 */
export const CommentWithdrawn = defineEvent({
  type: 'comment.withdrawn',
  version: 1,
  schema: z.object({ streamVersion: z.number().int().positive() }),
})

export const commentEvents = [
  CommentCreated, CommentReplied, CommentAddressed, CommentResolved, CommentReopened, CommentDeleted, CommentWithdrawn,
] as const

/** COM.GEN.3: every state a thread can be in. */
export const THREAD_STATES = ['open', 'addressed', 'resolved', 'reopened'] as const
export type ThreadState = (typeof THREAD_STATES)[number]

/** The opaque token of a thread's version: the stream version of the last event that changed it, in base 36. */
export const commentGenOf = (streamVersion: number): string => `cg-${streamVersion.toString(36)}`
