import { resolve } from 'node:path'
import { realpath } from 'node:fs/promises'
import type { DocumentRepository } from '../documents/documentRepository.js'
import type { FoldedStream } from '../streams/foldedStream.js'
import type { WorkspaceState } from '../workspace/workspaceState.js'
import { QuireError } from '../errors.js'

/** What finding a document needs: the documents in the log, and the workspace's file-to-document index. */
export interface DocumentIndex {
  readonly documents: DocumentRepository
  readonly views: { readonly workspace: FoldedStream<WorkspaceState> }
}

/** Finds a document by id, or by a path it was opened from or saved to (relative paths from the working directory). */
export async function resolveDocument(engine: DocumentIndex, pathOrId: string, cwd = process.cwd()): Promise<string> {
  const ids = await engine.documents.ids()
  if (ids.includes(pathOrId)) return pathOrId
  const path = resolve(cwd, pathOrId)
  const real = await realpath(path).catch(() => path)
  const known = engine.views.workspace.state.documentsByPath.get(real) ?? engine.views.workspace.state.documentsByPath.get(path)
  if (known) return known
  const matches: string[] = []
  for (const docId of ids) {
    const state = await engine.documents.get(docId)
    if (state?.meta?.path === path) matches.push(docId)
  }
  if (matches.length === 1) return matches[0]!
  if (matches.length > 1) {
    throw new QuireError('AMBIGUOUS', `${path} is the path of ${matches.length} documents (${matches.join(', ')}); name one by id`)
  }
  throw new QuireError('NOT_FOUND', `no document has the id or path ${pathOrId}`)
}
