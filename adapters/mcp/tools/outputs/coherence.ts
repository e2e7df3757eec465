import { z } from 'zod'
import { NON_FRESH_STATES } from '../../../../core/coherence/model/staleness.js'
import { count } from './common.js'

const edge = z.object({
  txf: z.string(),
  input: count,
  upstream: z.string(),
  upstream_path: z.string().nullable(),
  pinned: z.string(),
  downstream: z.string(),
  downstream_path: z.string().nullable(),
  downstream_rev: z.string(),
  state: z.enum(NON_FRESH_STATES),
})
const claim = z.object({
  claim: z.string(),
  entryId: z.string(),
  statement: z.string(),
  maturity: z.enum(['draft', 'established']),
  invalidAt: z.string().nullable(),
  visible: z.boolean(),
})
const context = z.object({
  id: z.string(),
  name: z.string(),
  parent: z.string().nullable(),
  enforcement: z.enum(['enforcing', 'greenhouse']),
  visibleClaims: z.array(z.string()),
  errors: z.array(z.string()),
})

/** The array answers carry their list under one key in structuredContent (MCP wants an object); the text is the array. */
export const COHERENCE_OUTPUTS = {
  status: z.object({ initialized: z.boolean(), objects: count, open_items: count, quarantined: count, writer: z.string() }),
  edges: z.object({ edges: z.array(edge) }),
  claims: z.object({ claims: z.array(claim) }),
  contexts: z.object({ contexts: z.array(context) }),
}

export const COHERENCE_RESOLVE_OUTPUTS = {
  resolve: z.object({ entryId: z.string(), kind: z.enum(['ratification', 'waiver']), resolvedAgainst: z.string() }),
}
