import { z } from 'zod'
import { QuireError } from '../errors.js'
import type { DocumentThreads, Thread } from './commentsState.js'
import type { AnchoredQuote } from './anchors.js'
import type { ThreadState } from './events.js'
import { PAGE_BUDGET } from './limits.js'
import { replyView, threadHead, type ReplyView, type ThreadHead } from './views.js'

/** A thread's first part; `repliesFrom`/`repliesTotal` when its replies go on over later pages (COM.LIST.6). */
export type ThreadPart = ThreadHead & { replies: ReplyView[]; repliesFrom?: number; repliesTotal?: number }
/** A later part of a split thread: only these fields (COM.LIST.7). */
export interface ContinuationPart {
  comment: string
  state: ThreadState
  commentGen: string
  continued: true
  replies: ReplyView[]
}

export interface CommentsPage {
  doc: string
  generation: string
  threads: Array<ThreadPart | ContinuationPart>
  nextCursor?: string
}

/**
 * Where the next page starts: a document, a thread, and the reply to go on from (-1: the thread's head), plus the
 * generation it was issued at. Opaque to clients (base64url JSON).
 */
const cursorSchema = z.object({ d: z.string(), t: z.string(), r: z.number().int().min(-1), g: z.string() })
type Cursor = z.infer<typeof cursorSchema>

const encodeCursor = (cursor: Cursor): string => Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url')

function decodeCursor(text: string): Cursor {
  try {
    const parsed = cursorSchema.safeParse(JSON.parse(Buffer.from(text, 'base64url').toString('utf8')))
    if (parsed.success) return parsed.data
  } catch {
    // Falls through to the refusal.
  }
  throw new QuireError('STALE_COMMENT', 'this cursor was not issued by comments.list; list again without a cursor')
}

export const generationOf = (threads: DocumentThreads): string => `g-${threads.version.toString(36)}`

/** Bytes an item takes in the page's pretty-printed JSON (results.ts prints with 2-space indent) at `depth`. */
function cost(item: unknown, depth: number): number {
  const indent = ' '.repeat(2 * depth)
  return Buffer.byteLength(JSON.stringify(item, null, 2).replaceAll('\n', `\n${indent}`), 'utf8') + indent.length + 2
}

/** Room for what a split adds to a part (`repliesFrom`, `repliesTotal`) and for the closing of arrays. */
const SPLIT_SLACK = 96

/**
 * One page of `comments.list` (COM.LIST.1–9): threads oldest first, each with its anchored quote and replies, cut so
 * the page's JSON stays within PAGE_BUDGET; a thread too long for the rest of a page goes on, reply by reply, on
 * the next. `anchored` resolves a thread's quote against the live document.
 */
export function listPage(
  docId: string,
  threads: DocumentThreads,
  anchored: (thread: Thread) => AnchoredQuote,
  cursorText?: string,
  budget = PAGE_BUDGET,
): CommentsPage {
  const live = [...threads.threads.values()].filter((thread) => !thread.deleted)
  const generation = generationOf(threads)
  let index = 0
  let fromReply = -1
  if (cursorText !== undefined) {
    const cursor = decodeCursor(cursorText)
    if (cursor.d !== docId) throw new QuireError('STALE_COMMENT', 'this cursor was issued for another document; list again without a cursor')
    index = live.findIndex((thread) => thread.commentId === cursor.t)
    if (index < 0) throw new QuireError('STALE_COMMENT', `the thread this cursor points to (${cursor.t}) was deleted; list again without a cursor`)
    fromReply = Math.min(cursor.r, live[index]!.replies.length)
  }
  const page: CommentsPage = { doc: docId, generation, threads: [] }
  const sampleCursor = encodeCursor({ d: docId, t: 'c-0000000000', r: 999_999, g: generation })
  let used = cost({ ...page, nextCursor: sampleCursor }, 0)
  for (; index < live.length; index++, fromReply = -1) {
    const thread = live[index]!
    let part: ThreadPart | ContinuationPart
    if (fromReply < 0) {
      part = { ...threadHead(thread, anchored(thread)), replies: [] }
      fromReply = 0
    } else {
      part = { comment: thread.commentId, state: thread.state, commentGen: thread.gen, continued: true, replies: [] }
    }
    const partCost = cost(part, 2) + SPLIT_SLACK
    if (page.threads.length > 0 && used + partCost > budget) {
      page.nextCursor = encodeCursor({ d: docId, t: thread.commentId, r: 'continued' in part ? fromReply : -1, g: generation })
      return page
    }
    page.threads.push(part)
    used += partCost
    for (let reply = fromReply; reply < thread.replies.length; reply++) {
      const view = replyView(thread.replies[reply]!)
      const replyCost = cost(view, 4)
      // Over budget: go on on the next page, unless this is a continuation opening its page with no reply yet (a
      // reply always fits a page of its own, so the page is never empty).
      const onlyContinuation = 'continued' in part && part.replies.length === 0 && page.threads.length === 1
      if (used + replyCost > budget && !onlyContinuation) {
        if (!('continued' in part)) Object.assign(part, { repliesFrom: 0, repliesTotal: thread.replies.length })
        page.nextCursor = encodeCursor({ d: docId, t: thread.commentId, r: reply, g: generation })
        return page
      }
      part.replies.push(view)
      used += replyCost
    }
  }
  return page
}
