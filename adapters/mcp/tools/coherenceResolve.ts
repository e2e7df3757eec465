import { z } from 'zod'
import { defineTool } from '../defineTool.js'
import { COHERENCE_RESOLVE_OUTPUTS } from './outputs/coherence.js'
import { coherenceAnswer, workspaceRoot } from './coherenceAnswers.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * `coherence_resolve`: the coherence layer's one mutation, in a tool of its own so `coherence` stays auto-approvable
 * (TOOLS.md §11). Who resolves is the connection's authenticated principal, never an argument (COHR.RESOLVE.4); the
 * core refuses unless the person granted that principal a live delegation for the resolution. There is no expiry
 * argument (COHR.RESOLVE.7: an unknown argument is refused) and no action that grants (COHR.RESOLVE.8).
 */
export const coherenceResolveTool = defineTool({
  name: 'coherence_resolve',
  title: 'Quire coherence resolution',
  description:
    'Resolves one stale edge from coherence.edges, irreversibly, as you (your agent token), under a delegation the ' +
    'user granted you in Quire: resolve {workspace_root, txf, input, resolution: "accept-newer" | "waive", reason ' +
    '(required for waive)} → {entryId, kind: "ratification" | "waiver", resolvedAgainst}. accept-newer says the ' +
    'derived document is right against the upstream\'s current revision; waive records that it need not follow it ' +
    '(until the upstream moves again). A refusal means the delegation is missing, expired or revoked, or the edge is ' +
    'no longer live: ask the user to grant it, or list coherence.edges again, instead of retrying. TIMEOUT (20 s): ' +
    'the resolution may still land; read coherence.edges before retrying.',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  args: {
    workspace_root: workspaceRoot,
    txf: z.string().optional().describe('the edge\'s transformation entry id (a UUID), from a coherence.edges row'),
    input: z.number().int().nonnegative().optional().describe('the edge\'s input slot, from the same row'),
    resolution: z.enum(['accept-newer', 'waive']).optional(),
    reason: z.string().optional().describe('why; required (non-blank) for waive'),
  },
  outputs: COHERENCE_RESOLVE_OUTPUTS,
  actions: (action) => ({
    resolve: action({
      required: ['txf', 'input', 'resolution'],
      requiredHint: '(txf: a UUID string and input: a non-negative integer, from a coherence.edges row; resolution: "accept-newer" or "waive")',
      refuse: (args) => (args.txf !== undefined && !UUID.test(args.txf) ? `txf must be a UUID (from a coherence.edges row), got: ${args.txf}` : undefined),
      run: (args, context) =>
        coherenceAnswer(context, 'coherence_resolve.resolve', args.workspace_root, async (root) => {
          const request = { txf: args.txf, input: args.input, resolution: args.resolution, reason: args.reason }
          const resolver = { kind: 'agent', principal: context.caller.principal } as const
          return { ...(await context.services.coherence.resolve(root, request, resolver, context.caller.actor)) }
        }),
    }),
  }),
})
