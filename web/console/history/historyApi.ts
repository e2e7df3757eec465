import type { HistoryDiff, HistoryRestored, HistoryRestorePreview, HistoryView } from '../../../adapters/http/consoleHistoryApi.js'
import { consoleRequest } from '../request.js'

/** The History sidebar's calls (contract in adapters/http/consoleHistoryApi.ts), with the console's session cookie. */
export class HistoryApi {

  history(docId: string): Promise<HistoryView> {
    return this.call<HistoryView>('GET', `${this.doc(docId)}/history`)
  }

  diff(docId: string, from: string, to: string): Promise<HistoryDiff> {
    const query = new URLSearchParams({ from, to })
    return this.call<HistoryDiff>('GET', `${this.doc(docId)}/diff?${query}`)
  }

  /** What restoring `revision` would take out, asked before the person restores it. */
  restorePreview(docId: string, revision: string): Promise<HistoryRestorePreview> {
    return this.call<HistoryRestorePreview>('GET', `${this.doc(docId)}/restore-preview?${new URLSearchParams({ revision })}`)
  }

  /** The person restores `revision`, having looked at the document as of `expectedRevision`. */
  restore(docId: string, revision: string, expectedRevision: string): Promise<HistoryRestored> {
    return this.call<HistoryRestored>('POST', `${this.doc(docId)}/restore`, { revision, expectedRevision })
  }

  markReviewed(docId: string, upToRevision: string): Promise<HistoryView> {
    return this.call<HistoryView>('POST', `${this.doc(docId)}/review`, { upToRevision })
  }

  private doc(docId: string): string {
    return `/console/api/docs/${encodeURIComponent(docId)}`
  }

  private call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    return consoleRequest<T>(method, path, body)
  }

}
