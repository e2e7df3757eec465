import { z } from 'zod'
import { parsePatches } from '../../../core/workflow/patches.js'
import { defineTool } from '../defineTool.js'
import { WORKFLOW_OUTPUTS } from './outputs/workflow.js'
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
export const workflowTool = defineTool({
  name: 'workflow',
  title: 'Quire GitHub Actions workflow',
  description:
    'For tabs of kind yaml-workflow (others answer NOT_WORKFLOW). apply_patch {tabId?, patches, expected_revision?} ' +
    'edits only the addressed nodes; every other byte (comments, anchors, key order, quoting) stays as it is. ' +
    `IRPatch: ${PATCH_KINDS}; path is dotted ("env.CI"); value is a string, number, boolean, null or string array. ` +
    'A patch naming a job, step or key that does not exist is INVALID_PATCH. Journaled like document.write, not ' +
    'saved; → {revision, applied, durable}. validate {tabId?} runs actionlint → {ok, diagnostics: [{line, col, ' +
    'message, severity, kind}], binaryAvailable, engine}.',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  args: {
    tabId: id.optional(),
    patches: z.unknown().optional().describe(`apply_patch only: IRPatch[], each one of ${PATCH_KINDS}`),
    expected_revision: z.string().optional(),
    addresses,
  },
  outputs: WORKFLOW_OUTPUTS,
  actions: (action) => ({
    apply_patch: action({
      run: async (args, { services, caller }) => {
        const patches = parsePatches(args.patches)
        return { ...(await services.rewrites.applyPatch(args.tabId, patches, args.expected_revision, caller, args.addresses)) }
      },
    }),
    validate: action({
      run: async (args, { services }) => {
        const { content, path } = await services.rewrites.workflowSource(args.tabId)
        return { ...(await services.validator.validate(content, path ?? undefined)) }
      },
    }),
  }),
})
