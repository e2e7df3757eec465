import { QuireError } from '../errors.js'
import type { CommentsProjection } from './commentsState.js'
import { MAX_ADDRESSES } from './limits.js'

/**
 * COM.ADDR.4–6: the comment ids an edit says it responds to must be at most 64, distinct, and each a live,
 * unresolved thread of the edited document; anything else is INVALID_ADDRESSES and the edit must change nothing.
 * Addressed and reopened threads are accepted (only resolved ones are listed as refused, TOOLS.md §16). Checking
 * never changes a thread (COM.ADDR.7): it only reads the projection.
 */
export function validateAddresses(comments: CommentsProjection, docId: string, ids: readonly string[]): void {
  if (ids.length > MAX_ADDRESSES) {
    throw new QuireError('INVALID_ADDRESSES', `addresses names ${ids.length} comments; at most ${MAX_ADDRESSES} are allowed`)
  }
  const seen = new Set<string>()
  const threads = comments.of(docId).threads
  for (const id of ids) {
    if (seen.has(id)) throw new QuireError('INVALID_ADDRESSES', `addresses names comment ${JSON.stringify(id)} twice`)
    seen.add(id)
    const thread = threads.get(id)
    if (!thread) {
      const elsewhere = comments.find(id)
      throw new QuireError(
        'INVALID_ADDRESSES',
        elsewhere ? `comment ${id} belongs to another document` : `no comment ${JSON.stringify(id)} on this document (comments.list names them)`,
      )
    }
    if (thread.deleted) throw new QuireError('INVALID_ADDRESSES', `comment ${id} was deleted`)
    if (thread.state === 'resolved') throw new QuireError('INVALID_ADDRESSES', `comment ${id} is resolved`)
  }
}
