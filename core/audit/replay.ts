import { QuireError } from '../errors.js'
import { resolveDocument, type DocumentIndex } from './resolve.js'
import { positionOfRevision } from '../documents/revision.js'

/**
 * A document's exact content at a revision (default: now), rebuilt from the log alone. `at` must be a revision the
 * document really had: a token of another document, or of a position where its text did not change, is refused.
 */
export async function replayDocument(engine: DocumentIndex, pathOrId: string, at?: string, cwd?: string): Promise<string> {
  let to = Number.MAX_SAFE_INTEGER
  if (at !== undefined) {
    const position = positionOfRevision(at)
    if (position === undefined) throw new QuireError('INVALID_ARGUMENT', `${JSON.stringify(at)} is not a revision token (rev-...)`)
    to = position
  }
  const docId = await resolveDocument(engine, pathOrId, cwd)
  const state = await engine.documents.rebuild(docId, to)
  if (!state) throw new QuireError('NOT_FOUND', `document ${docId} did not exist at ${at}`)
  try {
    if (at !== undefined && state.revision !== at) {
      throw new QuireError('NOT_FOUND', `${at} is not a revision of ${docId} (its revision there is ${state.revision})`)
    }
    return state.content
  } finally {
    state.destroy()
  }
}
