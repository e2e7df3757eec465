import { basename, dirname, join, resolve } from 'node:path'
import { realpath } from 'node:fs/promises'
import type { DocumentRepository } from '../documents/documentRepository.js'
import type { EventLog } from '../log/eventLog.js'
import type { FoldedStream } from '../streams/foldedStream.js'
import type { WorkspaceState } from '../workspace/workspaceState.js'
import { QuireError } from '../errors.js'
import { pathMoves } from './pathMoves.js'

/** What finding a document needs: the log, the documents in it, and the workspace's file-to-document index. */
export interface DocumentIndex {
  readonly store: Pick<EventLog, 'readStream'>
  readonly documents: DocumentRepository
  readonly views: { readonly workspace: FoldedStream<WorkspaceState> }
}

export interface FoundDocument {
  readonly docId: string
  /** Set when the path named is one the document has left (saved elsewhere, or its file renamed): where it is now. */
  readonly moved?: { readonly from: string; readonly to: string }
}

/** Finds a document by id, or by a path it was opened from or saved to (relative paths from the working directory). */
export async function resolveDocument(engine: DocumentIndex, pathOrId: string, cwd = process.cwd()): Promise<string> {
  return (await findDocument(engine, pathOrId, cwd)).docId
}

/**
 * Finds a document by id; by the path of its file now; or by a path it had before, which it left when saved
 * elsewhere or when its file was renamed (a document keeps its id and history across both). A path nobody holds now
 * but several documents left is ambiguous, as is one several documents claim.
 */
export async function findDocument(engine: DocumentIndex, pathOrId: string, cwd = process.cwd()): Promise<FoundDocument> {
  const ids = await engine.documents.ids()
  if (ids.includes(pathOrId)) return { docId: pathOrId }
  const path = resolve(cwd, pathOrId)
  const real = await realPath(path)
  const byPath = engine.views.workspace.state.documentsByPath
  const known = byPath.get(real) ?? byPath.get(path)
  if (known) return { docId: known }
  const asked = new Set([path, real])
  const moves = await pathMoves(engine.store, asked)
  // Documents created from a file outside any tab (`quire doc create`) are known by the path they record; one whose
  // tabs took it elsewhere since is not there any more.
  const matches: string[] = []
  for (const docId of ids) {
    const state = await engine.documents.get(docId)
    const now = moves.pathNow.get(docId)
    const recorded = state?.meta?.path
    if (typeof recorded === 'string' && asked.has(recorded) && (now === undefined || asked.has(now))) matches.push(docId)
  }
  if (matches.length === 1) return { docId: matches[0]! }
  if (matches.length > 1) {
    throw new QuireError('AMBIGUOUS', `${path} is the path of ${matches.length} documents (${matches.join(', ')}); name one by id`)
  }
  const left = moves.leftBy
  if (left.length === 1) return { docId: left[0]!, moved: { from: real, to: moves.pathNow.get(left[0]!)! } }
  if (left.length > 1) {
    const each = left.map((docId) => `${docId} (now ${moves.pathNow.get(docId)})`).join(', ')
    throw new QuireError('AMBIGUOUS', `${real} was the file of ${left.length} documents, which moved since: ${each}; name one by id or by its path now`)
  }
  throw new QuireError('NOT_FOUND', `no document has the id or path ${pathOrId}`)
}

/** The path with symbolic links resolved; for a file that is gone, its folder's (a renamed file's old name is). */
export async function realPath(path: string): Promise<string> {
  try {
    return await realpath(path)
  } catch {
    return realpath(dirname(path)).then((folder) => join(folder, basename(path)), () => path)
  }
}
