import { resolve } from 'node:path'
import type { Engine } from '../../core/engine.js'
import { QuireError } from '../../core/errors.js'

/** Finds a document by id, or by the absolute form of a path it was opened from or saved to. */
export async function resolveDocument(engine: Engine, pathOrId: string): Promise<string> {
  const ids = await engine.documents.ids()
  if (ids.includes(pathOrId)) return pathOrId
  const path = resolve(pathOrId)
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
