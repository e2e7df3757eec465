import { z } from 'zod'

/**
 * Argument shapes shared by the tools. Ids must be non-blank: a blank id would fall back to "the focused tab" and
 * act on the wrong document. Paths are never trimmed: `"/a/b "` is a different file from `"/a/b"`.
 */
export const id = z
  .string()
  .min(1, 'must not be empty')
  .refine((value) => value.trim().length > 0, 'must not be blank')

export const path = z.string().min(1, 'must not be empty')

export const kind = z.enum(['markdown', 'yaml-workflow'])

/** Comment ids an edit responds to (COM.ADDR.1); the core validates them (at most 64, no duplicates, open threads). */
export const addresses = z.array(z.string()).optional().describe('comment ids from comments.list this edit responds to (at most 64)')
