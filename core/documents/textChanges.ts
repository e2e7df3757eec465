import * as Y from 'yjs'

/**
 * A run of a text's characters by Yjs id: `text.length` UTF-16 code units (Yjs counts strings so) whose ids are
 * `client` and the clocks from `clock` on. Stored with its text, so a run deleted (and garbage-collected) since can
 * still be put back.
 */
export interface TextRun {
  readonly client: number
  readonly clock: number
  readonly text: string
}

/** An item's id, as the log keeps it. */
export interface IdRef {
  readonly client: number
  readonly clock: number
}

/**
 * One contiguous place a transaction changed in a `Y.Text`: the characters it inserted and those it deleted there, in
 * document order, and the visible characters right before and after the place (null at the text's start or end).
 */
export interface TextHunk {
  readonly inserted: readonly TextRun[]
  readonly deleted: readonly TextRun[]
  readonly before: IdRef | null
  readonly after: IdRef | null
}

/**
 * The places where `transaction` changed `text`, each with the runs of characters it inserted and deleted, in
 * document order. Call from the transaction's `afterTransaction` (before garbage collection takes the deleted
 * characters' content). A character both inserted and deleted by the transaction is in neither.
 *
 * Cost: the items the transaction inserted or deleted, plus the tombstones between them and the visible character on
 * either side of each place; never a walk of the whole text.
 */
export function textHunksOf(transaction: Y.Transaction, text: Y.Text): TextHunk[] {
  const changed = new Set<Y.Item>()
  const store = transaction.doc.store
  for (const [client, after] of transaction.afterState) {
    const before = transaction.beforeState.get(client) ?? 0
    if (after <= before) continue
    const structs = store.clients.get(client)
    if (!structs) continue
    for (let index = Y.findIndexSS(structs, before); index < structs.length && structs[index]!.id.clock < after; index += 1) {
      const struct = structs[index]!
      if (isTextItem(struct, text) && !struct.deleted) changed.add(struct)
    }
  }
  for (const [client, ranges] of transaction.deleteSet.clients) {
    const structs = store.clients.get(client)
    if (!structs) continue
    for (const { clock, len } of ranges) {
      for (let index = Y.findIndexSS(structs, clock); index < structs.length && structs[index]!.id.clock < clock + len; index += 1) {
        const struct = structs[index]!
        // Inserted and deleted by the same transaction: nothing the text ever showed.
        if (isTextItem(struct, text) && !insertedBy(transaction, struct)) changed.add(struct)
      }
    }
  }
  if (changed.size === 0) return []
  const hunks: (TextHunk & { readonly first: Y.Item })[] = []
  const started = new Set<Y.Item>()
  for (const item of changed) {
    if (started.has(item)) continue
    // The place starts after the nearest visible character that the transaction did not insert.
    let left = item.left
    while (left !== null && (changed.has(left) || left.deleted)) left = left.left
    let cursor = left === null ? text._start : left.right
    const inserted: Y.Item[] = []
    const deleted: Y.Item[] = []
    while (cursor !== null && (changed.has(cursor) || cursor.deleted)) {
      if (changed.has(cursor)) {
        started.add(cursor)
        ;(cursor.deleted ? deleted : inserted).push(cursor)
      }
      cursor = cursor.right
    }
    const first = (inserted[0] ?? deleted[0])!
    hunks.push({ inserted: runsOf(inserted), deleted: runsOf(deleted), before: left && lastIdOf(left), after: cursor && idRef(cursor), first })
  }
  return inDocumentOrder(text, hunks).map(({ first: _first, ...hunk }) => hunk)
}

/**
 * The hunks in the order they stand in the text. Several places need one walk of the text's items from its start, up
 * to the last of them; one place none.
 */
function inDocumentOrder<T extends { readonly first: Y.Item }>(text: Y.Text, hunks: T[]): T[] {
  if (hunks.length < 2) return hunks
  const byFirst = new Map(hunks.map((hunk) => [hunk.first, hunk]))
  const ordered: T[] = []
  for (let item = text._start; item !== null && ordered.length < hunks.length; item = item.right) {
    const hunk = byFirst.get(item)
    if (hunk) ordered.push(hunk)
  }
  return ordered
}

function isTextItem(struct: Y.Item | Y.GC | Y.AbstractStruct, text: Y.Text): struct is Y.Item {
  return struct instanceof Y.Item && struct.parent === text && struct.content instanceof Y.ContentString
}

function insertedBy(transaction: Y.Transaction, item: Y.Item): boolean {
  return item.id.clock >= (transaction.beforeState.get(item.id.client) ?? 0)
}

const idRef = (item: Y.Item): IdRef => ({ client: item.id.client, clock: item.id.clock })

/** The id of an item's last character (an item holds several). */
const lastIdOf = (item: Y.Item): IdRef => ({ client: item.id.client, clock: item.id.clock + item.length - 1 })

/** Items (in document order) as runs, merging neighbours whose ids follow each other. */
function runsOf(items: readonly Y.Item[]): TextRun[] {
  const runs: { client: number; clock: number; text: string }[] = []
  for (const item of items) {
    const text = (item.content as Y.ContentString).str
    const last = runs[runs.length - 1]
    if (last && last.client === item.id.client && last.clock + last.text.length === item.id.clock) last.text += text
    else runs.push({ client: item.id.client, clock: item.id.clock, text })
  }
  return runs
}
