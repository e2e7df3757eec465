import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { resolveTab } from '../../../core/workspace/tabs.js'
import type { ToolContext } from '../context.js'
import { fromError, plainError, success } from '../results.js'
import { id } from '../schemas.js'

/**
 * `comments`: the user's review threads (TOOLS.md §7). Only list, reply and mark_addressed: resolving, reopening
 * and deleting stay the user's, so the action enum refuses them (a plain-string argument error) before anything
 * reaches the core (COM.GEN.1–2).
 */
export function registerComments(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'comments',
    {
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
      inputSchema: {
        action: z.enum(['list', 'reply', 'mark_addressed']),
        tabId: id.optional(),
        cursor: z.string().optional(),
        commentId: z.string().optional(),
        body: z.string().optional(),
        expectedCommentGen: z.string().optional(),
      },
      annotations: { title: 'Quire review comments', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async (args) => {
      const { services, caller } = context
      const missing = requiredFor(args)
      if (missing.length > 0) return plainError(`comments.${args.action} needs ${missing.join(', ')} (strings)`)
      try {
        const docId = resolveTab(services.workspace.state, args.tabId).docId
        if (args.action === 'list') return success({ ...(await services.comments.list(docId, args.cursor)) })
        if (args.action === 'reply') {
          return success({ ...(await services.comments.reply(docId, args.commentId!, args.body!, args.expectedCommentGen!, caller.actor)) })
        }
        return success({ ...(await services.comments.markAddressed(docId, args.commentId!, args.expectedCommentGen!, caller.actor)) })
      } catch (error) {
        return fromError(error)
      }
    },
  )
}

/** The arguments an action needs that the call did not give (ERR.3: a plain-string error). */
function requiredFor(args: { action: string; commentId?: string; body?: string; expectedCommentGen?: string }): string[] {
  const needs = args.action === 'reply' ? (['commentId', 'body', 'expectedCommentGen'] as const) : args.action === 'mark_addressed' ? (['commentId', 'expectedCommentGen'] as const) : []
  return needs.filter((name) => typeof args[name] !== 'string')
}
