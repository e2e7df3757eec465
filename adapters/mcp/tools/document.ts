import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { CJK_TRANSFORM_KINDS, type CjkTransformKind } from '../../../core/text/cjk/transform.js'
import type { ToolContext } from '../context.js'
import { fromError, plainError, RECOVERY, success } from '../results.js'
import { addresses, id } from '../schemas.js'

const isTransformKind = (value: unknown): value is CjkTransformKind =>
  typeof value === 'string' && (CJK_TRANSFORM_KINDS as readonly string[]).includes(value)

/** `document`: read, write and transform a tab's whole text (DOC.READ.*, DOC.WRITE.*, DOC.TRANSFORM.*). */
export function registerDocument(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'document',
    {
      title: 'Quire document read/write',
      description:
        'read {tabId?} → {content, revision, filePath, kind, dirty}. write {tabId?, content, expected_revision?, save?} ' +
        'replaces the whole text (journaled first, applied as a minimal diff so the user\'s concurrent edits survive) ' +
        'and saves unless save: false. transform {tabId?, kind, expected_revision?} rewrites the text on the server ' +
        `(kind: ${CJK_TRANSFORM_KINDS.join(' | ')}; code, front matter, URLs, link targets and HTML are never touched), ` +
        'journaled like write, without saving; → {revision, applied, durable}, applied: false when there was nothing to ' +
        'change. write and transform take addresses: the comment ids (comments.list) the edit responds to. Always read first and pass the revision back as expected_revision; on STALE, re-read. Works on markdown ' +
        'and yaml-workflow tabs.',
      inputSchema: {
        action: z.enum(['read', 'write', 'transform']),
        tabId: id.optional(),
        content: z.string().optional(),
        kind: z.string().optional().describe(`transform only: ${CJK_TRANSFORM_KINDS.join(', ')}`),
        expected_revision: z.string().optional(),
        save: z.boolean().optional(),
        addresses,
      },
      annotations: { title: 'Quire document read/write', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async (args) => {
      const { services, caller } = context
      // Argument shape first: a missing content is a plain-string error whatever the tab (DOC.WRITE.2, ERR.3).
      if (args.action === 'write' && typeof args.content !== 'string') {
        return plainError('document.write needs content (a string: the complete new text)')
      }
      if (args.action === 'transform' && !isTransformKind(args.kind)) {
        return plainError(`document.transform needs kind, one of: ${CJK_TRANSFORM_KINDS.join(', ')} (got ${JSON.stringify(args.kind ?? null)})`)
      }
      try {
        if (args.action === 'read') return success(await services.files.read(args.tabId), RECOVERY.documentRead)
        if (args.action === 'transform') {
          return success({ ...(await services.rewrites.transform(args.tabId, args.kind as CjkTransformKind, args.expected_revision, caller, args.addresses)) })
        }
        return success({ ...(await services.files.write(args.tabId, args.content!, args.expected_revision, args.save ?? true, caller, args.addresses)) })
      } catch (error) {
        return fromError(error)
      }
    },
  )
}
