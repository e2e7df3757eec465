import { composeEntry } from '../../../core/coherence/compose.js'
import type { LedgerEntry, TransformationBody } from '../../../core/coherence/entries.js'
import { textContentHash } from '../../../core/coherence/hashing.js'
import { revisionId } from '../../../core/coherence/revision.js'

export const OUR_WRITER = '0198c0de-0000-7000-8000-000000000001'
export const OTHER_WRITER = '0198c0de-0000-7000-8000-000000000002'
export const ELENA = '0198c0de-0000-7000-8000-00000000000b'
export const SCENE = '0198c0de-0000-7000-8000-00000000000c'

/** A UUIDv7-shaped id from a prefix and a number, readable in failures. */
export const uuid = (prefix: string, n: number): string => `${prefix}-0000-7000-8000-${n.toString(16).padStart(12, '0')}`

/** A human save of `object` with `text` as a root revision: a valid transformation body. */
export function saveBody(object: string, text: string): TransformationBody {
  const hash = textContentHash(text)
  return {
    inputs: [],
    outputs: [{ object, revision: revisionId(hash), content_hash: hash, parents: [] }],
    agent: { type: 'human' },
    intent: { kind: 'save', summary: 'saved' },
    confidence: 'exact',
  }
}

export function transformation(writer: string, n: number, at = new Date(Date.UTC(2026, 6, 18, 9, 0, n))): LedgerEntry {
  // Ids and idems differ between writers: two writers' entries are never one operation.
  const tag = writer === OUR_WRITER ? '0' : '1'
  return composeEntry('transformation', saveBody(ELENA, `Elena v${n}\n`), { writer, id: uuid(`0198c0a${tag}`, n), idem: uuid(`0198c0b${tag}`, n), at })
}
