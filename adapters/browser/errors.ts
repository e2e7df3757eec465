/**
 * The tokens the engine refuses with. The MCP layer turns one into its `"TOKEN: message"` string and puts `code` and
 * `data` in `structuredContent` (BR.GEN.5).
 */
export type BrowserErrorCode =
  | 'BROWSER_UNAVAILABLE'
  | 'INVALID_ARGUMENT'
  | 'INVALID_URL'
  | 'TAB_LIMIT'
  | 'TAB_NOT_FOUND'
  | 'TAB_NOT_AI_OWNED'
  | 'TAB_CLOSED'
  | 'STALE_REF'
  | 'REF_NOT_FOUND'
  | 'INVALID_SELECTOR'
  | 'NAVIGATION_FAILED'
  | 'NAVIGATION_SUPERSEDED'
  | 'NAVIGATION_NOT_FOUND'
  | 'TIMEOUT'
  | 'PAGE_UNREADABLE'

export class BrowserError extends Error {
  readonly code: BrowserErrorCode
  readonly data: Readonly<Record<string, unknown>> | undefined

  constructor(code: BrowserErrorCode, message: string, data?: Readonly<Record<string, unknown>>) {
    super(`${code}: ${message}`)
    this.name = 'BrowserError'
    this.code = code
    this.data = data
  }
}
