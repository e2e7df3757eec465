import type { Actor } from '../events/actor.js'
import type { Reply, Thread } from './commentsState.js'
import type { AnchoredQuote } from './anchors.js'
import { BODY_JSON_LIMIT } from './limits.js'
import type { ThreadState } from './events.js'

/** Who wrote a thread or reply, as `list` names them: `user`, or `mcp:<principal>` for an assistant. */
export function authorOf(actor: Actor): string {
  return actor.kind === 'mcp' ? `mcp:${actor.principal}` : actor.kind
}

/** `body`, or `bodyBase64` (base64 of its UTF-8) when its JSON text is too long for any page (COM.LIST.8). */
export type BodyField = { body: string } | { bodyBase64: string }

export function bodyField(body: string): BodyField {
  if (Buffer.byteLength(JSON.stringify(body), 'utf8') <= BODY_JSON_LIMIT) return { body }
  return { bodyBase64: Buffer.from(body, 'utf8').toString('base64') }
}

export type ReplyView = { reply: string; author: string; at: string } & BodyField

export function replyView(reply: Reply): ReplyView {
  return { reply: reply.replyId, author: authorOf(reply.author), at: new Date(reply.at).toISOString(), ...bodyField(reply.body) }
}

/** The head of a thread as `list` shows it, without its replies. */
export type ThreadHead = {
  comment: string
  state: ThreadState
  commentGen: string
  quote: string
  quoteTruncated?: true
  anchorLost?: true
  author: string
  createdAt: string
} & BodyField

export function threadHead(thread: Thread, anchored: AnchoredQuote): ThreadHead {
  return {
    comment: thread.commentId,
    state: thread.state,
    commentGen: thread.gen,
    quote: anchored.quote,
    ...(anchored.quoteTruncated ? { quoteTruncated: true as const } : {}),
    ...(anchored.anchorLost ? { anchorLost: true as const } : {}),
    author: authorOf(thread.author),
    createdAt: new Date(thread.createdAt).toISOString(),
    ...bodyField(thread.body),
  }
}

/** A whole thread, for the person's side (CLI, console): never paged. */
export interface ThreadView {
  readonly head: ThreadHead
  readonly replies: readonly ReplyView[]
}
