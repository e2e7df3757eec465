import { ReviewKept, ReviewMarked, ReviewRedone, ReviewUndone } from '../documents/events.js'

// The review events are document events (the document's fold and snapshot keep each change's state): defined with them.
export { ReviewKept, ReviewMarked, ReviewRedone, ReviewUndone }

export const reviewEvents = [ReviewMarked, ReviewKept, ReviewUndone, ReviewRedone] as const
