import type { ConsoleError } from '../../../adapters/http/consoleApi.js'
import type { HistoryDiff, HistoryRestored, HistoryView } from '../../../adapters/http/consoleHistoryApi.js'

/** The History sidebar's calls (contract in adapters/http/consoleHistoryApi.ts), with the console's token. */
export class HistoryApi {
  constructor(private readonly token: string) {}

  history(docId: string): Promise<HistoryView> {
    return this.call<HistoryView>('GET', `${this.doc(docId)}/history`)
  }

  diff(docId: string, from: string, to: string): Promise<HistoryDiff> {
    const query = new URLSearchParams({ from, to })
    return this.call<HistoryDiff>('GET', `${this.doc(docId)}/diff?${query}`)
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

  private async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}` }
    if (body !== undefined) headers['content-type'] = 'application/json'
    const response = await fetch(path, { method, headers, cache: 'no-store', ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
    const answer: unknown = await response.json()
    if (!response.ok) {
      const error = answer as Partial<ConsoleError>
      throw new Error(`${error.error ?? response.status}: ${error.message ?? response.statusText}`)
    }
    return answer as T
  }
}
