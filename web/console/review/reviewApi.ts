import type { DocumentChanges, ReviewActed, ReviewList } from '../../../adapters/http/consoleReviewApi.js'
import { consoleRequest } from '../request.js'

/** The review calls (contract in adapters/http/consoleReviewApi.ts), as the person (the session cookie). */
export class ReviewApi {
  /** The document's pending changes (every change with `all`). */
  changes(docId: string, all = false): Promise<DocumentChanges> {
    return consoleRequest('GET', `${this.doc(docId)}/changes${all ? '?all=1' : ''}`)
  }

  /** Keeps, undoes or redoes change `change`, or only its hunks `hunks`. */
  act(docId: string, action: 'keep' | 'undo' | 'redo', change: string, hunks?: readonly number[]): Promise<ReviewActed> {
    return consoleRequest('POST', `${this.doc(docId)}/changes/${action}`, { change, ...(hunks === undefined ? {} : { hunks }) })
  }

  /** "Keep all": every pending change up to the revision the person has seen. */
  keepAll(docId: string, upToRevision: string): Promise<ReviewActed> {
    return consoleRequest('POST', `${this.doc(docId)}/changes/keep-all`, { upToRevision })
  }

  /** "Undo all by": every pending change of one assistant on the document. */
  undoBy(docId: string, agent: string): Promise<ReviewActed> {
    return consoleRequest('POST', `${this.doc(docId)}/changes/undo-by`, { agent })
  }

  /** Every pending change on every document, newest first. */
  list(): Promise<ReviewList> {
    return consoleRequest('GET', '/console/api/review')
  }

  private doc(docId: string): string {
    return `/console/api/docs/${encodeURIComponent(docId)}`
  }
}
