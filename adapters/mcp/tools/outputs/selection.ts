import { z } from 'zod'
import { count, revision } from './common.js'

export const SELECTION_OUTPUTS = {
  get: z.object({
    text: z.string(),
    isEmpty: z.boolean(),
    range: z.object({ from: count, to: count }),
    mode: z.enum(['wysiwyg', 'source']),
    kind: z.string(),
    tabId: z.string(),
    revision,
  }),
  set: z.object({ revision, replaced_chars: count, applied: z.boolean(), durable: z.boolean() }),
}
