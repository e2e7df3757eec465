// The backlog is folded with the document (its snapshot keeps it): the fold lives with the document's.
export { ReviewBacklog } from '../documents/reviewBacklog.js'
