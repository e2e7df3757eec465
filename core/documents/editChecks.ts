/**
 * What an assistant's edit must pass besides the journal and the person's editors: the comments it says it
 * addresses exist on this document and are still open to it (COM.ADDR.4–6: INVALID_ADDRESSES), and, for
 * `document.write`, the document's review backlog has room (DOC.WRITE.18: REVIEW_BACKLOG_FULL). Both refuse before
 * anything is recorded. Supplied by the comments and review modules when the services are wired.
 */
export interface EditChecks {
  /** Throws INVALID_ADDRESSES; nothing to check when `ids` is absent. */
  addresses(docId: string, ids: readonly string[] | undefined): void
  /** Throws REVIEW_BACKLOG_FULL when the document has as many unreviewed AI changes as the person allows. */
  backlog(docId: string): Promise<void>
}
