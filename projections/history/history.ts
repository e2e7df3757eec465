export { documentTimeline } from './timeline.js'
export type { AddressedComment, AiWriteEntry, CommentState, CommentStateResolver, RestoreEntry, ReviewActionEntry, ReviewedEntry, SaveEntry, TimelineEntry, TimelineOptions } from './timeline.js'
export type { EditSessionEntry } from './editSessions.js'
