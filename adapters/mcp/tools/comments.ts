import { z } from 'zod'
import { resolveTab } from '../../../core/workspace/tabs.js'
import type { ToolContext } from '../context.js'
import { defineTool } from '../defineTool.js'
import { COMMENTS_OUTPUTS } from './outputs/comments.js'
import { id } from '../schemas.js'

/** The document the call's tab shows (the focused tab when none is named). */
const documentOf = ({ services }: ToolContext, tabId: string | undefined) => resolveTab(services.workspace.state, tabId).docId

/**
 * `comments`: the user's review threads (TOOLS.md §7). Only list, reply and mark_addressed: resolving, reopening
 * and deleting stay the user's, so the action enum refuses them (a plain-string argument error) before anything
 * reaches the core (COM.GEN.1–2).
 */
export const commentsTool = defineTool({
  name: 'comments',
  title: 'Quire review comments',
  description:
    'The user\'s review threads on a document. list {tabId?, cursor?} → {doc, generation, threads, nextCursor?}, ' +
    'oldest first; each thread: comment (id), state (open | addressed | resolved | reopened), commentGen, quote (the ' +
    'anchored text; anchorLost: true when it was deleted), body, author, replies [{reply, author, at, body}]. Pages are ' +
    'bounded: while nextCursor is present, call list again with cursor = nextCursor; a split thread carries ' +
    'repliesFrom/repliesTotal and goes on in a part with continued: true. A body too long for any page arrives as ' +
    'bodyBase64 (base64 of UTF-8). reply {tabId?, commentId, body, expectedCommentGen} → {comment, reply, commentGen}; ' +
    'mark_addressed {tabId?, commentId, expectedCommentGen} → {comment, state, commentGen}: never resolves. ' +
    'Resolving, reopening and deleting are the user\'s. On STALE_COMMENT, list again (without a cursor).',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  args: {
    tabId: id.optional(),
    cursor: z.string().optional(),
    commentId: z.string().optional(),
    body: z.string().optional(),
    expectedCommentGen: z.string().optional(),
  },
  outputs: COMMENTS_OUTPUTS,
  actions: (action) => ({
    list: action({
      run: async (args, context) => ({ ...(await context.services.comments.list(documentOf(context, args.tabId), args.cursor)) }),
    }),
    reply: action({
      required: ['commentId', 'body', 'expectedCommentGen'],
      requiredHint: '(strings)',
      run: async (args, context) => ({
        ...(await context.services.comments.reply(documentOf(context, args.tabId), args.commentId, args.body, args.expectedCommentGen, context.caller.actor)),
      }),
    }),
    mark_addressed: action({
      required: ['commentId', 'expectedCommentGen'],
      requiredHint: '(strings)',
      run: async (args, context) => ({
        ...(await context.services.comments.markAddressed(documentOf(context, args.tabId), args.commentId, args.expectedCommentGen, context.caller.actor)),
      }),
    }),
  }),
})
