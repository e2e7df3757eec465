import { z } from 'zod'
import { count } from './common.js'

const state = z.enum(['open', 'addressed', 'resolved', 'reopened'])
/** A body too long for any page comes as `bodyBase64` instead of `body`. */
const body = { body: z.string().optional(), bodyBase64: z.string().optional() }
const reply = z.object({ reply: z.string(), author: z.string(), at: z.string(), ...body })

const threadPart = z.object({
  comment: z.string(),
  state,
  commentGen: z.string(),
  quote: z.string(),
  quoteTruncated: z.literal(true).optional(),
  anchorLost: z.literal(true).optional(),
  author: z.string(),
  createdAt: z.string(),
  ...body,
  replies: z.array(reply),
  repliesFrom: count.optional(),
  repliesTotal: count.optional(),
})
/** A later part of a thread split across pages. */
const continuation = z.object({ comment: z.string(), state, commentGen: z.string(), continued: z.literal(true), replies: z.array(reply) })

export const COMMENTS_OUTPUTS = {
  list: z.object({ doc: z.string(), generation: z.string(), threads: z.array(z.union([threadPart, continuation])), nextCursor: z.string().optional() }),
  reply: z.object({ comment: z.string(), reply: z.string(), commentGen: z.string() }),
  mark_addressed: z.object({ comment: z.string(), state, commentGen: z.string() }),
}
