import * as Y from 'yjs'

/**
 * Runs `change` as one transaction with `origin` and returns every update it produced (Yjs may add a follow-up
 * transaction of its own, e.g. formatting clean-up), merged, or null when it produced none.
 */
export function captureUpdate(ydoc: Y.Doc, origin: unknown, change: () => void): Uint8Array | null {
  const updates: Uint8Array[] = []
  const capture = (update: Uint8Array) => {
    updates.push(update)
  }
  ydoc.on('update', capture)
  try {
    ydoc.transact(change, origin)
  } finally {
    ydoc.off('update', capture)
  }
  if (updates.length === 0) return null
  return updates.length === 1 ? updates[0]! : Y.mergeUpdates(updates)
}
