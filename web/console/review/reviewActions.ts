import type { ReviewActed } from '../../../adapters/http/consoleReviewApi.js'
import type { DocumentSession } from '../documentSession.js'
import type { ReviewApi } from './reviewApi.js'

/**
 * The person's keep / undo / redo, from wherever they ask (a suggestion's card, the review bar, the Review list):
 * each goes to the server, whose answer the open editor's suggestions take at once (the other peers follow the
 * document and the log). A hunk the server could not undo cleanly is said so.
 */
export class ReviewActions {
  private readonly listeners = new Set<(message: string) => void>()

  constructor(
    readonly api: ReviewApi,
    private readonly session: () => DocumentSession | null,
  ) {}

  /** Called after every action with what to tell the person ('' when all went as asked). */
  onActed(listener: (message: string) => void): void {
    this.listeners.add(listener)
  }

  act(docId: string, action: 'keep' | 'undo' | 'redo', change: string, hunks?: readonly number[]): Promise<void> {
    return this.run(docId, () => this.api.act(docId, action, change, hunks))
  }

  keepAll(docId: string, upToRevision: string): Promise<void> {
    return this.run(docId, () => this.api.keepAll(docId, upToRevision))
  }

  undoBy(docId: string, agent: string): Promise<void> {
    return this.run(docId, () => this.api.undoBy(docId, agent))
  }

  private async run(docId: string, request: () => Promise<ReviewActed>): Promise<void> {
    let message = ''
    try {
      const answer = await request()
      const session = this.session()
      if (session?.tab.docId === docId) session.highlights.take(answer.pending)
      message = answer.acted
        .flatMap((acted) => acted.skipped.map((skipped) => `Hunk ${skipped.index + 1} of ${acted.change} was left as it is: ${skipped.reason}.`))
        .join(' ')
    } catch (failure) {
      message = failure instanceof Error ? failure.message : String(failure)
    }
    for (const listener of this.listeners) listener(message)
  }
}
