import { resolveDocument } from '../../../core/audit/resolve.js'
import { QuireError } from '../../../core/errors.js'
import { USER } from '../../../core/events/actor.js'
import { withOwner } from '../owner.js'
import { UsageError } from '../usage.js'

interface Marked {
  readonly docId: string
  readonly revision: string
  /** The AI changes that were unreviewed before the mark. */
  readonly reviewed: number
}

/**
 * `quire review mark PATH_OR_ID`: the console's "Mark all reviewed" from a shell. The person reviewed every AI change
 * up to the document's current revision, which empties its review backlog (DOC.WRITE.18) so assistants may write
 * again.
 */
export async function reviewCommand(home: string, args: string[], out: (line: string) => void): Promise<number> {
  const [action, target, ...rest] = args
  if (action !== 'mark' || !target || rest.length > 0) throw new UsageError('review mark PATH_OR_ID')
  const cwd = process.cwd()
  const marked = await withOwner<Marked>(
    home,
    (owner) => owner.request<Marked>('POST', '/admin/review', { doc: target, cwd }),
    async ({ engine, review }) => {
      const docId = await resolveDocument(engine, target, cwd)
      const state = await engine.documents.get(docId)
      if (!state) throw new QuireError('NOT_FOUND', `no document ${docId}`)
      const reviewed = await review.unreviewed(docId)
      await review.markReviewed(docId, state.revision, USER)
      return { docId, revision: state.revision, reviewed }
    },
  )
  const changes = marked.reviewed === 1 ? '1 AI change' : `${marked.reviewed} AI changes`
  out(`${marked.docId}: reviewed up to ${marked.revision} (${marked.reviewed === 0 ? 'nothing was unreviewed' : `${changes} marked reviewed`})`)
  return 0
}
