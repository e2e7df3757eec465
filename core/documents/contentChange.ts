import * as Y from 'yjs'

/**
 * Whether a transaction changed the characters of `text` (what `text.toString()` returns), without the O(document)
 * walk that Yjs's event delta does: it looks only at the structs the transaction created and deleted. Formatting,
 * other shared types, duplicate updates and insert-then-delete within one transaction are not changes. Only a
 * replacement that deletes exactly as many characters as it inserts needs a closer look, to catch "replace `a`
 * with `a`".
 */
export function textChanged(transaction: Y.Transaction, text: Y.Text): boolean {
  if (!transaction.changed.has(text as unknown as Y.AbstractType<Y.YEvent<Y.Text>>)) return false
  const store = transaction.doc.store
  let inserted = 0
  let deleted = 0
  for (const [client, after] of transaction.afterState) {
    const before = transaction.beforeState.get(client) ?? 0
    if (after <= before) continue
    const structs = store.clients.get(client)!
    for (let i = Y.findIndexSS(structs, before); i < structs.length; i++) {
      const struct = structs[i]!
      if (struct.id.clock >= after) break
      if (isVisibleText(struct, text)) inserted += struct.length
    }
  }
  for (const [client, ranges] of transaction.deleteSet.clients) {
    const before = transaction.beforeState.get(client) ?? 0
    const structs = store.clients.get(client)
    if (!structs) continue
    for (const range of ranges) {
      const end = Math.min(range.clock + range.len, before)
      if (range.clock >= end) continue
      for (let i = Y.findIndexSS(structs, range.clock); i < structs.length; i++) {
        const struct = structs[i]!
        if (struct.id.clock >= end) break
        if (isText(struct, text)) deleted += struct.length
      }
    }
  }
  if (inserted === 0 && deleted === 0) return false
  if (inserted !== deleted) return true
  return replacementDiffers(transaction, text)
}

function isText(struct: Y.Item | Y.GC, text: Y.Text): struct is Y.Item {
  return struct instanceof Y.Item && struct.parent === text && struct.content instanceof Y.ContentString
}

function isVisibleText(struct: Y.Item | Y.GC, text: Y.Text): boolean {
  return isText(struct, text) && !struct.deleted
}

/** Compares the old and new characters across the changed span; O(document), so only for same-length replacements. */
function replacementDiffers(transaction: Y.Transaction, text: Y.Text): boolean {
  let before = ''
  let after = ''
  let beforeEnd = 0
  let afterEnd = 0
  let started = false
  for (let item = text._start; item !== null; item = item.right) {
    if (!(item.content instanceof Y.ContentString)) continue
    const str = item.content.str
    const created = item.id.clock >= (transaction.beforeState.get(item.id.client) ?? 0)
    const deletedNow = item.deleted && Y.isDeleted(transaction.deleteSet, item.id)
    if (created && !item.deleted) {
      started = true
      after += str
      afterEnd = after.length
      beforeEnd = before.length
    } else if (deletedNow && !created) {
      started = true
      before += str
      beforeEnd = before.length
      afterEnd = after.length
    } else if (!item.deleted && started) {
      before += str
      after += str
    }
  }
  return before.slice(0, beforeEnd) !== after.slice(0, afterEnd)
}
