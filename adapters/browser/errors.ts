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
  | 'TAB_TEARDOWN_FAILED'
  | 'TAB_CLOSED'
  | 'STALE_REF'
  | 'REF_NOT_FOUND'
  | 'INVALID_SELECTOR'
  | 'NAVIGATION_FAILED'
  /** A hop of the tab's navigation reached an origin the person has not approved for the held tab; nothing was sent there. */
  | 'DESTINATION_NOT_APPROVED'
  /** A URL no assistant's tab loads, whatever is approved: the daemon's own address, or not a web page. */
  | 'BLOCKED_DESTINATION'
  | 'NAVIGATION_SUPERSEDED'
  | 'NAVIGATION_NOT_FOUND'
  | 'TIMEOUT'
  | 'PAGE_UNREADABLE'
  /** An act that did not happen; `data.reason` says why (act.ts, BR.ACT.8–17). */
  | 'ACT_REFUSED'
  /** The page navigated as an act was sent: it may or may not have happened (`data.detail.indeterminate`). */
  | 'ACT_INTERRUPTED'
  /** A style change the page's CSS does not take. */
  | 'INVALID_STYLE'
  /** An execute_js script that threw or returned what JSON cannot encode (BR.EXECUTE_JS.3). */
  | 'SCRIPT_ERROR'
  /** An execute_js script still running at its deadline; it may yet have finished (BR.GEN.6). */
  | 'EVAL_TIMEOUT'
  /** No saved session has that handle. */
  | 'SESSION_NOT_FOUND'
  /** A saved session's file cannot be read back: the key is not the one it was saved with, or the file was changed. */
  | 'SESSION_UNREADABLE'
  /** The session store's key is missing, unsafe (readable by others) or unreachable (the OS keyring). */
  | 'SESSION_KEY_UNAVAILABLE'
  /** A named profile that still has tabs open cannot be deleted. */
  /** The tab's page is not (or no longer) of the origin a session belongs to (BR.SESSION_LOAD.2). */
  | 'ORIGIN_MISMATCH'
  | 'PROFILE_IN_USE'
  | 'PROFILE_NOT_FOUND'

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
