import { describe, it } from 'vitest'
import * as Y from 'yjs'
import { decideDocument, savedEvent, type DocumentCommand } from '../../../core/documents/decider.js'
import { DocumentState } from '../../../core/documents/documentState.js'
import { revisionToken } from '../../../core/documents/revision.js'
import { DISK, USER } from '../../../core/events/actor.js'
import { deciderSpec } from '../../support/decider.js'

/** A document whose `source` holds `text`, created by the person (the `document.created` of its stream). */
function created(text: string) {
  const doc = new Y.Doc()
  doc.getText('source').insert(0, text)
  return { type: 'document.created', actor: USER, data: { docId: 'd1', kind: 'markdown', path: '/w/a.md', title: 'a', origin: 'file', update: Y.encodeStateAsUpdate(doc) } }
}

const documents = deciderSpec<DocumentCommand, DocumentState>(
  'doc:d1',
  decideDocument,
  (state, event) => {
    state.apply(event)
    return state
  },
  () => new DocumentState('d1'),
)
const digest = 'a'.repeat(64)
const other = 'b'.repeat(64)
const diverged = { type: 'document.diverged', actor: DISK, data: { path: '/w/a.md', sha256: digest, length: 3 } }

describe('the document decider', () => {
  it('given a document, when a save is recorded, then document.saved names the revision written (SAVE.RACE)', () => {
    const mark = { path: '/w/a.md', sha256: digest, length: 5, revisionPosition: 1, reason: 'save' } as const
    documents.given([created('hello')]).when({ type: 'record-save', mark, actor: USER }).then([savedEvent(USER, mark)])
    documents.given([created('hello')]).when({ type: 'record-save', mark, actor: USER }).then([
      { type: 'document.saved', actor: USER, data: { path: '/w/a.md', sha256: digest, length: 5, reason: 'save', revision: revisionToken(1) } },
    ])
  })

  it('given no divergence, when the disk differs, then document.diverged; given that same disk version, then nothing', () => {
    documents.given([created('abc')]).when({ type: 'diverge', path: '/w/a.md', sha256: digest, length: 3, actor: DISK }).then([diverged])
    documents.given([created('abc'), diverged]).when({ type: 'diverge', path: '/w/a.md', sha256: digest, length: 3, actor: DISK }).then([])
    documents.given([created('abc'), diverged]).when({ type: 'diverge', path: '/w/a.md', sha256: other, length: 4, actor: DISK })
      .then([{ type: 'document.diverged', actor: DISK, data: { path: '/w/a.md', sha256: other, length: 4 } }])
  })

  it('given a divergence, when the person keeps the tab, then divergence-resolved keep; given none, then INVALID_ARGUMENT', () => {
    documents.given([created('abc'), diverged]).when({ type: 'keep-divergence', actor: USER }).then([
      { type: 'document.divergence-resolved', actor: USER, data: { choice: 'keep' } },
    ])
    documents.given([created('abc')]).when({ type: 'keep-divergence', actor: USER }).thenRefuses('INVALID_ARGUMENT', /has not diverged/)
  })

  it('given a document at position 1, when it is marked reviewed up to it, then review.marked; past it or already reviewed, then refused or nothing', () => {
    documents.given([created('abc')]).when({ type: 'mark-reviewed', upToRevision: revisionToken(1), reviewedUpTo: 0, actor: USER }).then([
      { type: 'review.marked', actor: USER, data: { upToPosition: 1 } },
    ])
    documents.given([created('abc')]).when({ type: 'mark-reviewed', upToRevision: revisionToken(1), reviewedUpTo: 1, actor: USER }).then([])
    documents.given([created('abc')]).when({ type: 'mark-reviewed', upToRevision: revisionToken(9), reviewedUpTo: 0, actor: USER }).thenRefuses('INVALID_ARGUMENT', /later than/)
    documents.given([created('abc')]).when({ type: 'mark-reviewed', upToRevision: 'nope', reviewedUpTo: 0, actor: USER }).thenRefuses('INVALID_ARGUMENT', /not a revision token/)
  })

  it('given a document at revision 1, when a write expects revision 1, then nothing to refuse; another revision is STALE (DOC.WRITE.3)', () => {
    documents.given([created('abc')]).when({ type: 'check-revision', expectedRevision: revisionToken(1) }).then([])
    documents.given([created('abc')]).when({ type: 'check-revision', expectedRevision: undefined }).then([])
    documents.given([created('abc')]).when({ type: 'check-revision', expectedRevision: revisionToken(2) }).thenRefuses('STALE')
  })
})
