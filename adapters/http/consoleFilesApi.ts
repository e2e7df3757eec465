/**
 * The console's files API (types only: the browser bundle imports them too): the person's editor — the file tree of
 * each open workspace, opening, creating and renaming, and a tab's new / save / save as / close. Mounted under
 * `/console/api` behind the console's sign-in; everything recorded through it is the person's (actor `user`).
 *
 *   GET  /console/api/files/roots                       → FilesRoots
 *   GET  /console/api/files/list?path=FOLDER            → FilesFolder
 *   POST /console/api/files/open   {path, window?}      → FilesOpened   (opened in a tab, made current)
 *   POST /console/api/files/create {path, type, window?} → FilesCreated (a file is opened and made current)
 *   POST /console/api/files/rename {from, to}           → FilesRenamed
 *   POST /console/api/tabs/new     {kind?, window?}     → FilesOpened   (a new untitled document, current)
 *   POST /console/api/tabs/:tabId/save    {stateVector?} → FilesSaved
 *   POST /console/api/tabs/:tabId/save-as {path, stateVector?} → FilesSaved
 *   POST /console/api/tabs/:tabId/close   {force?}      → FilesClosed   (refusals are answers, not errors)
 *
 * `stateVector` is what the person's editor held when they saved (`Y.encodeStateVector` of its document, base64):
 * their last keystrokes travel on the collaboration socket and may not have arrived yet, so the save waits (up to
 * 3 s, then STALE) until the daemon's copy holds them.
 *
 * Paths are absolute; every one goes through the core's path scope. Errors are `{error, message}`: 404 NOT_FOUND or
 * INVALID_TAB, 409 ALREADY_EXISTS or STALE, 400 otherwise (INVALID_PATH, INVALID_ARGUMENT).
 */

export interface FilesRoot {
  readonly path: string
  /** The folder's last path segment. */
  readonly name: string
}

export interface FilesRoots {
  readonly roots: readonly FilesRoot[]
}

export interface FilesEntry {
  readonly name: string
  readonly path: string
  readonly type: 'file' | 'directory'
  /** What the name says (files only): the tree's badge. */
  readonly kind: 'markdown' | 'yaml' | 'workflow' | 'other' | null
  /** Tabs showing this file now. */
  readonly tabIds: readonly string[]
}

export interface FilesFolder {
  readonly path: string
  readonly entries: readonly FilesEntry[]
  readonly truncated: boolean
}

export interface FilesOpened {
  readonly tabId: string
}

export interface FilesCreated {
  readonly path: string
  /** The tab the new file opened in (files only). */
  readonly tabId: string | null
}

export interface FilesRenamed {
  readonly from: string
  readonly to: string
  readonly retargeted: readonly { readonly docId: string; readonly path: string }[]
}

export interface FilesSaved {
  readonly filePath: string
  readonly revision: string
}

/**
 * `closed: false` with the tool's reason: DIRTY (unsaved changes: save, or close with `force` to discard), DIVERGENT
 * (the file changed on disk under unsaved changes), PINNED.
 */
export type FilesClosed = { readonly closed: true } | { readonly closed: false; readonly reason: 'DIRTY' | 'DIVERGENT' | 'PINNED' }
