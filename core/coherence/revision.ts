/**
 * Revision identity of VMark coherence format 0 (spec §2.3): `rev1:` + hex SHA-256 of `vmark-rev\n`, the content
 * hash and `\n`, then each parent revision id followed by `\n`, parents sorted lexicographically first. Content plus
 * parent links, never a counter: the same content reached again (A → B → A) is a new revision. Pure.
 */
import { createHash } from 'node:crypto'

const CONTENT_HASH = /^sha256:[0-9a-f]{64}$/
const REVISION_ID = /^rev1:[0-9a-f]{64}$/

export const isContentHash = (text: string): boolean => CONTENT_HASH.test(text)
export const isRevisionId = (text: string): boolean => REVISION_ID.test(text)

/** Throws RangeError when the hash or a parent is not in its spec form (a wrong id would silently fork the DAG). */
export function revisionId(contentHash: string, parents: readonly string[] = []): string {
  if (!isContentHash(contentHash)) throw new RangeError(`not a sha256: content hash: ${JSON.stringify(contentHash)}`)
  for (const parent of parents) {
    if (!isRevisionId(parent)) throw new RangeError(`not a rev1: revision id: ${JSON.stringify(parent)}`)
  }
  // Every character is ASCII, so code-unit order is the byte order the spec's "lexicographically" means.
  const sorted = [...parents].sort()
  const hash = createHash('sha256').update('vmark-rev\n').update(contentHash).update('\n')
  for (const parent of sorted) hash.update(parent).update('\n')
  return `rev1:${hash.digest('hex')}`
}
