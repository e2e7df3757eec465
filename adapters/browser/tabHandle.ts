import type { PageSession } from './pageSession.js'

/**
 * What the page actions (act.ts, pageStyle.ts, executeJs.ts) need of one of the engine's tabs, without reaching into
 * the engine: its DevTools session, its current generation and redacted URL, and the engine's ref rules.
 */
export interface TabHandle {
  readonly session: PageSession
  generation(): number
  /** The tab's current URL, redacted (BR.GEN.3). */
  url(): string
  /** The document-local handle of a public ref; INVALID_ARGUMENT or STALE_REF when it is not of this generation. */
  localRef(ref: string): string
  /** The public ref of a document-local handle minted in `generation`. */
  publicRef(localRef: string, generation: number): string
}
