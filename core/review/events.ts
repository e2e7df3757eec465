import { ReviewMarked } from '../documents/events.js'

// The review mark is a document event (the document's fold and snapshot keep the backlog): defined with them.
export { ReviewMarked }

export const reviewEvents = [ReviewMarked] as const
