import type { ConsoleError } from '../../../adapters/http/consoleApi.js'
import type { ConsoleCommentCreated, ConsoleComments } from '../../../adapters/http/consoleCommentsApi.js'

export type CommentDecision = 'resolve' | 'reopen' | 'delete'

/** The Comments sidebar's calls (contract in adapters/http/consoleCommentsApi.ts), with the console's token. */
export class CommentsApi {
  constructor(private readonly token: string) {}

  threads(docId: string): Promise<ConsoleComments> {
    return this.call<ConsoleComments>('GET', this.doc(docId))
  }

  /** A new thread on `[from, to)` of the document's source text. */
  create(docId: string, from: number, to: number, body: string): Promise<ConsoleCommentCreated> {
    return this.call<ConsoleCommentCreated>('POST', this.doc(docId), { from, to, body })
  }

  reply(docId: string, commentId: string, body: string): Promise<ConsoleComments> {
    return this.call<ConsoleComments>('POST', `${this.doc(docId)}/${encodeURIComponent(commentId)}/replies`, { body })
  }

  decide(docId: string, commentId: string, decision: CommentDecision): Promise<ConsoleComments> {
    return this.call<ConsoleComments>('POST', `${this.doc(docId)}/${encodeURIComponent(commentId)}/${decision}`)
  }

  private doc(docId: string): string {
    return `/console/api/docs/${encodeURIComponent(docId)}/comments`
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
