import type { ConsoleCommentCreated, ConsoleComments } from '../../../adapters/http/consoleCommentsApi.js'
import { consoleRequest } from '../request.js'

export type CommentDecision = 'resolve' | 'reopen' | 'delete'

/** The Comments sidebar's calls (contract in adapters/http/consoleCommentsApi.ts), with the console's session cookie. */
export class CommentsApi {

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

  private call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    return consoleRequest<T>(method, path, body)
  }

}
