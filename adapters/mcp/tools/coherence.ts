import { defineTool } from '../defineTool.js'
import { COHERENCE_OUTPUTS } from './outputs/coherence.js'
import { arrayAnswer, coherenceAnswer, workspaceRoot } from './coherenceAnswers.js'

const RECOVERY_EDGES =
  'the breakdown is larger than one answer: take the count from coherence.status, and let the user review the rest ' +
  'in the console\'s Coherence panel (or `quire coherence edges`)'
const RECOVERY_LISTS = 'the list is larger than one answer: ask the user to review it in the console'

/**
 * `coherence`: the read-only view of a workspace's coherence ledger (TOOLS.md §10). Auto-approvable, so nothing here
 * changes a document or the editor (COH.GEN.2); `edges` may append what its scan observed to the ledger (COH.GEN.3),
 * and claims and contexts cannot be changed through any action (COH.GEN.7).
 */
export const coherenceTool = defineTool({
  name: 'coherence',
  title: 'Quire coherence (read-only)',
  description:
    'Which derived documents went stale after the sources they were written from changed (the workspace\'s .vmark/ ' +
    'ledger; the user turns provenance tracking on). Every action takes workspace_root, the absolute path of a ' +
    'workspace open in Quire (from session.get_state\'s filePaths or the workspace tool). status → {initialized, ' +
    'objects, open_items, quarantined, writer}. edges scans the files first, then → [{txf, input, upstream, ' +
    'upstream_path, pinned, downstream, downstream_path, downstream_rev, state}] for every live edge whose upstream ' +
    'moved (state: version-stale | stale-valid | stale-contradicted | stale-unknown | waived | diverged | ' +
    'diverged-multi-head | unpinnable; [] when coherent); txf + input name the edge for coherence_resolve. claims → ' +
    '[{claim, entryId, statement, maturity, invalidAt, visible}]; contexts → [{id, name, parent, enforcement, ' +
    'visibleClaims, errors}]. A call not done in 20 s answers TIMEOUT and keeps running: read the state again before ' +
    'retrying.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  args: { workspace_root: workspaceRoot },
  outputs: COHERENCE_OUTPUTS,
  actions: (action) => ({
    status: action({
      run: (args, context) => coherenceAnswer(context, 'coherence.status', args.workspace_root, async (root) => ({ ...(await context.services.coherence.status(root)) })),
    }),
    edges: action({
      run: (args, context) =>
        coherenceAnswer(context, 'coherence.edges', args.workspace_root, async (root) =>
          arrayAnswer('edges', await context.services.coherence.edges(root, context.caller.actor), RECOVERY_EDGES),
        ),
    }),
    claims: action({
      run: (args, context) =>
        coherenceAnswer(context, 'coherence.claims', args.workspace_root, async (root) => arrayAnswer('claims', await context.services.coherence.claims(root), RECOVERY_LISTS)),
    }),
    contexts: action({
      run: (args, context) =>
        coherenceAnswer(context, 'coherence.contexts', args.workspace_root, async (root) => arrayAnswer('contexts', await context.services.coherence.contexts(root), RECOVERY_LISTS)),
    }),
  }),
})
