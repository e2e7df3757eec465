/** The journal `detail` a restore records: `restore rev-…`, how the log tells a restore from any other write. */
export const RESTORE_DETAIL_PREFIX = 'restore '

export const restoreDetail = (revision: string): string => `${RESTORE_DETAIL_PREFIX}${revision}`

/** The revision a journal `detail` says was restored, or undefined when the entry is not a restore. */
export function restoredRevision(detail: string | undefined): string | undefined {
  return detail?.startsWith(RESTORE_DETAIL_PREFIX) ? detail.slice(RESTORE_DETAIL_PREFIX.length) : undefined
}
