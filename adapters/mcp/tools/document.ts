import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import type { ToolContext } from '../context.js'
import { fromError, plainError, RECOVERY, success } from '../results.js'
import { id } from '../schemas.js'

/** `document`: read and write a tab's whole text (DOC.READ.*, DOC.WRITE.*). */
export function registerDocument(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'document',
    {
      title: 'Quire document read/write',
      description:
        'read {tabId?} → {content, revision, filePath, kind, dirty}. write {tabId?, content, expected_revision?, save?} ' +
        'replaces the whole text (journaled first, applied as a minimal diff so the user\'s concurrent edits survive) ' +
        'and saves unless save: false. Always read first and pass the revision back as expected_revision; on STALE, ' +
        're-read. Works on markdown and yaml-workflow tabs.',
      inputSchema: {
        action: z.enum(['read', 'write']),
        tabId: id.optional(),
        content: z.string().optional(),
        expected_revision: z.string().optional(),
        save: z.boolean().optional(),
      },
      annotations: { title: 'Quire document read/write', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async (args) => {
      const { services, caller } = context
      // Argument shape first: a missing content is a plain-string error whatever the tab (DOC.WRITE.2, ERR.3).
      if (args.action === 'write' && typeof args.content !== 'string') {
        return plainError('document.write needs content (a string: the complete new text)')
      }
      try {
        if (args.action === 'read') return success(await services.files.read(args.tabId), RECOVERY.documentRead)
        return success({ ...(await services.files.write(args.tabId, args.content!, args.expected_revision, args.save ?? true, caller)) })
      } catch (error) {
        return fromError(error)
      }
    },
  )
}
