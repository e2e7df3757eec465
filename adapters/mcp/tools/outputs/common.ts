import { z } from 'zod'

/** Pieces several tools' answers share. */
export const revision = z.string()
export const journaled = z.enum(['yes', 'pending', 'no'])
export const count = z.int().nonnegative()
export const offset = z.int().nonnegative()

/** What a journaled rewrite answers (document.transform, workflow.apply_patch). */
export const rewriteOutput = z.object({ revision, applied: z.boolean(), durable: z.boolean() })
