import { z } from 'zod'
import { truncationOutput } from '../../outputSchema.js'
import { count, journaled, offset, revision, rewriteOutput } from './common.js'

const facts = { revision, filePath: z.string().nullable(), kind: z.string(), dirty: z.boolean() }

/** A heading and the headings its section holds (core/markdown/outline.ts). */
const heading: z.ZodType = z.object({
  level: z.int().min(1).max(6),
  title: z.string(),
  line: z.int().positive(),
  offset,
  length: count,
  get children() {
    return z.array(heading).optional()
  },
})

const lookedUp = { ...facts, totalLength: count, offset: offset.optional(), nextOffset: offset.optional() }

export const DOCUMENT_OUTPUTS = {
  read: z.union([
    z.object({ content: z.string(), ...facts }),
    z.object({ content: z.string(), ...facts, offset, length: count, totalLength: count, nextOffset: offset.optional() }),
    // A whole read too long for one answer: the truncation envelope, with what a client needs to read it in parts.
    truncationOutput.extend({ ...facts, totalLength: count, nextOffset: offset }),
    z.object({ ...lookedUp, outline: z.array(heading) }),
    z.object({ ...lookedUp, matches: z.array(z.object({ line: z.int().positive(), offset, length: count, context: z.string() })) }),
  ]),
  write: z.union([
    z.object({
      revision,
      applied: z.literal(true),
      durable: z.boolean(),
      saved: z.boolean(),
      save_skipped: z.enum(['untitled', 'opt_out', 'person_unsaved']).optional(),
      save_error: z.string().optional(),
      journaled: journaled.optional(),
    }),
    // write {edits, dry_run: true}: the diff the edits would make, nothing changed.
    z.object({ dry_run: z.literal(true), applied: z.literal(false), revision, diff: z.string() }),
  ]),
  transform: rewriteOutput,
}
