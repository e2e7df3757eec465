import { z } from 'zod'
import { defineEvent } from '../events/schema.js'

/**
 * The person reviewed a document's AI changes up to a log position (a revision of the document): every AI write whose
 * change landed at or before `upToPosition` is reviewed; later ones are not. Recorded in the document's own stream
 * (`doc:<id>`), so the review backlog folds from that stream alone, and a later mark never rewrites an earlier one.
 */
export const ReviewMarked = defineEvent({
  type: 'review.marked',
  version: 1,
  schema: z.object({ upToPosition: z.number().int().nonnegative() }),
})

export const reviewEvents = [ReviewMarked] as const
