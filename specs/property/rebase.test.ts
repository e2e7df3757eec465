import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { alignmentRuns } from '../../core/documents/baseAlignment.js'
import { DocumentState } from '../../core/documents/documentState.js'
import { baseIsCurrent, captureBase, rebaseHunks, type DocumentBase } from '../../core/documents/rebase.js'
import { applyHunks, textHunks, type Hunk } from '../../core/documents/textDiff.js'
import { fuzzParameters } from '../support/fuzz.js'

const PEER = 1
const SERVER = 2

/** Text rich in surrogate pairs, CJK, combining sequences and repeats. */
const unit = fc.constantFrom('a', 'b', 'c', ' ', '\n', 'é', '中', '文', '😀', '😁', '👍🏽')
const tricky = (maxLength: number) => fc.string({ unit, maxLength })

/**
 * A person's edit on their peer. Positions are fractions of the text's code points (never inside a surrogate pair,
 * as an editor never places them). `type-on` and `delete-on` continue at the previous edit's place, as typing and
 * repeated backspace do: Yjs then merges the items, across the base when the previous edit came before it.
 */
const peerEdit = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), text: tricky(4).filter((t) => t.length > 0) }),
  fc.record({ kind: fc.constant('type-on' as const), text: tricky(3).filter((t) => t.length > 0) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), count: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant('delete-on' as const), count: fc.integer({ min: 1, max: 3 }), backwards: fc.boolean() }),
)
type PeerEdit = typeof peerEdit extends fc.Arbitrary<infer T> ? T : never

/** The assistant's new text: unrelated to the base, or the base with a few edits (so the hunks are small). */
const assistantTarget = fc.oneof(
  fc.record({ kind: fc.constant('fresh' as const), text: tricky(40) }),
  fc.record({
    kind: fc.constant('edited' as const),
    edits: fc.array(fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), count: fc.nat(5), text: tricky(5) }), { maxLength: 4 }),
  }),
)
type AssistantTarget = typeof assistantTarget extends fc.Arbitrary<infer T> ? T : never

/** Offsets (UTF-16) of the code point boundaries of `text`, 0 and text.length included. */
function boundaries(text: string): number[] {
  const offsets = [0]
  let offset = 0
  for (const point of text) offsets.push((offset += point.length))
  return offsets
}

const boundaryAt = (text: string, fraction: number): number => {
  const offsets = boundaries(text)
  return offsets[Math.min(offsets.length - 1, Math.floor(fraction * offsets.length))]!
}

/** Deletes `count` code points from `at` (or before it), on code point boundaries. */
function codePointRange(text: string, at: number, count: number, backwards: boolean): [number, number] {
  const offsets = boundaries(text)
  const index = offsets.indexOf(at)
  const from = backwards ? Math.max(0, index - count) : index
  const to = backwards ? index : Math.min(offsets.length - 1, index + count)
  return [offsets[from]!, offsets[to]! - offsets[from]!]
}

function targetText(base: string, target: AssistantTarget): string {
  if (target.kind === 'fresh') return target.text
  let text = base
  for (const edit of target.edits) {
    const at = boundaryAt(text, edit.at)
    const [start, count] = codePointRange(text, at, edit.count, false)
    text = text.slice(0, start) + edit.text + text.slice(start + count)
  }
  return text
}

/**
 * Applies the person's edits on the peer, one transaction each; returns how many changed anything. `cursor` carries
 * the place of the last edit from one call to the next, so typing can go on across the base.
 */
function applyPeerEdits(text: Y.Text, edits: readonly PeerEdit[], cursor: { place: number }): number {
  let place = cursor.place
  let effective = 0
  for (const edit of edits) {
    const current = text.toString()
    place = Math.min(place, current.length)
    if (!boundaries(current).includes(place)) place = 0
    if (edit.kind === 'insert' || edit.kind === 'type-on') {
      if (edit.kind === 'insert') place = boundaryAt(current, edit.at)
      text.doc!.transact(() => text.insert(place, edit.text))
      place += edit.text.length
      effective++
    } else {
      if (edit.kind === 'delete') place = boundaryAt(current, edit.at)
      const [start, count] = codePointRange(current, place, edit.count, edit.kind === 'delete-on' && edit.backwards)
      if (count === 0) continue
      text.doc!.transact(() => text.delete(start, count))
      place = start
      effective++
    }
  }
  cursor.place = place
  return effective
}

const sync = (from: Y.Doc, to: Y.Doc) => Y.applyUpdate(to, Y.encodeStateAsUpdate(from, Y.encodeStateVector(to)))
const idKey = (client: number, clock: number) => `${client}:${clock}`

interface Character {
  readonly key: string
  readonly client: number
  readonly clock: number
  readonly visible: boolean
  /** The code unit, for visible characters. */
  readonly unit: string
}

/** Every character of the text, deleted ones included, in document order. */
function characters(ytext: Y.Text): Character[] {
  const list: Character[] = []
  for (let item = ytext._start; item !== null; item = item.right) {
    const visible = !item.deleted && item.countable
    const isString = item.content instanceof Y.ContentString || item.content instanceof Y.ContentDeleted
    if (!isString) continue
    for (let offset = 0; offset < item.length; offset++) {
      const clock = item.id.clock + offset
      const unit = visible ? (item.content as Y.ContentString).str[offset]! : ''
      list.push({ key: idKey(item.id.client, clock), client: item.id.client, clock, visible, unit })
    }
  }
  return list
}

/** The base as the alignment walk sees it: kept characters read from the current text, removed ones from the base. */
function reconstructBase(ytext: Y.Text, base: DocumentBase): string {
  const current = ytext.toString()
  const { runs, baseLength } = alignmentRuns(ytext, base.snapshot)
  expect(baseLength).toBe(base.text.length)
  let rebuilt = ''
  let currentAt = 0
  for (const run of runs) {
    if (run.kind === 'kept') rebuilt += current.slice(currentAt, currentAt + run.length)
    if (run.kind === 'removed') rebuilt += base.text.slice(rebuilt.length, rebuilt.length + run.length)
    if (run.kind !== 'removed') currentAt += run.length
  }
  expect(currentAt).toBe(current.length)
  return rebuilt
}

/** Lexicographic comparison of sort keys. */
function compareKeys(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const difference = (a[i] ?? -1) - (b[i] ?? -1)
    if (difference !== 0) return difference
  }
  return 0
}

function checkShape(hunks: readonly Hunk[], length: number): void {
  let end = -1
  for (const hunk of hunks) {
    expect(hunk.deleteCount > 0 || hunk.insert.length > 0).toBe(true)
    // Sorted and never touching: a gap of at least one character between hunks.
    expect(hunk.start).toBeGreaterThan(end)
    end = hunk.start + hunk.deleteCount
    expect(end).toBeLessThanOrEqual(length)
  }
}

describe('rebaseHunks: an assistant write merged with what the person typed since the read', () => {
  it('keeps what the person typed, deletes only what the assistant deleted, places its text at the front of its position, and converges', () => {
    fc.assert(
      fc.property(
        tricky(30),
        fc.option(tricky(30), { nil: undefined }),
        fc.array(peerEdit, { maxLength: 5 }),
        fc.array(peerEdit, { maxLength: 6 }),
        assistantTarget,
        (initial, earlierWrite, before, since, target) => {
          const server = new DocumentState('doc-1')
          server.ydoc.clientID = SERVER
          const peer = new Y.Doc()
          peer.clientID = PEER
          const peerText = peer.getText('source')
          peerText.insert(0, initial)
          sync(peer, server.ydoc)
          if (earlierWrite !== undefined) {
            // An earlier assistant write, so the server's own items exist before the base too.
            server.transactLocal(textHunks(server.text.toString(), earlierWrite))
            sync(server.ydoc, peer)
          }
          const cursor = { place: 0 }
          applyPeerEdits(peerText, before, cursor)
          sync(peer, server.ydoc)

          // The read.
          const base = captureBase(server.ydoc, server.text.toString())
          const baseIndex = new Map<string, number>()
          for (const character of characters(server.text).filter((c) => c.visible)) baseIndex.set(character.key, baseIndex.size)
          expect(baseIndex.size).toBe(base.text.length)
          const serverBaseClock = base.snapshot.sv.get(SERVER) ?? 0
          const peerBaseClock = base.snapshot.sv.get(PEER) ?? 0

          // The person types on; the server receives it.
          const effective = applyPeerEdits(peerText, since, cursor)
          sync(peer, server.ydoc)
          expect(baseIsCurrent(server.ydoc, base)).toBe(effective === 0)
          expect(reconstructBase(server.text, base)).toBe(base.text)

          const beforeWrite = characters(server.text)
          const beforeText = server.text.toString()
          const peerTypedBefore = beforeWrite.filter((c) => c.visible && !baseIndex.has(c.key)).map((c) => c.key)
          for (const key of peerTypedBefore) expect(key.startsWith(`${PEER}:`)).toBe(true)
          const baseVisibleBefore = new Set(beforeWrite.filter((c) => c.visible && baseIndex.has(c.key)).map((c) => c.key))

          // The assistant's write, from its base.
          const assistantText = targetText(base.text, target)
          const baseHunks = textHunks(base.text, assistantText)
          const rebased = rebaseHunks(server.text, base, baseHunks)
          checkShape(rebased, beforeText.length)
          server.transactLocal(rebased)
          const result = server.text.toString()
          expect(result).toBe(applyHunks(beforeText, rebased))
          expect(result.isWellFormed()).toBe(true)

          const deletedByAssistant = (index: number) => baseHunks.some((h) => index >= h.start && index < h.start + h.deleteCount)
          const after = characters(server.text)
          // (a) Everything the person typed since the base is there, in order: peer-typed characters are never deleted.
          expect(after.filter((c) => c.visible && !baseIndex.has(c.key) && c.client === PEER).map((c) => c.key)).toEqual(peerTypedBefore)
          // (b) and rule 1: a base character is there exactly when neither the person nor the assistant deleted it.
          for (const [key, index] of baseIndex) {
            const visible = after.some((c) => c.key === key && c.visible)
            expect(visible, `base character ${index}`).toBe(baseVisibleBefore.has(key) && !deletedByAssistant(index))
          }
          // (c) and rule 2: in the result, ordered by (base position, assistant text before the person's, …), each
          // hunk's text contiguous at the front of its base position.
          const inserts = baseHunks.filter((h) => h.insert.length > 0)
          const assistantChars = after.filter((c) => c.visible && c.client === SERVER && c.clock >= serverBaseClock)
          expect(assistantChars.map((c) => c.unit).join('')).toBe(inserts.map((h) => h.insert).join(''))
          const hunkOfAssistantChar = new Map<string, [number, number]>()
          let assigned = 0
          inserts.forEach((hunk, h) => {
            for (let k = 0; k < hunk.insert.length; k++) hunkOfAssistantChar.set(assistantChars[assigned++]!.key, [hunk.start, h])
          })
          let gap = 0
          let order = 0
          let previous: number[] = [-1]
          for (const character of after) {
            const index = baseIndex.get(character.key)
            order++
            let key: number[]
            if (index !== undefined) {
              gap = index + 1
              key = [index, 2]
            } else if (hunkOfAssistantChar.has(character.key)) {
              const [start, h] = hunkOfAssistantChar.get(character.key)!
              key = [start, 0, h, order]
            } else {
              expect(character.client === PEER && character.clock >= peerBaseClock || !character.visible).toBe(true)
              key = [gap, 1, order]
            }
            if (!character.visible) continue
            expect(compareKeys(previous, key), `order at ${JSON.stringify(character)}`).toBeLessThan(0)
            previous = key
          }
          // (d) Nobody else edited: the text is exactly the assistant's.
          if (effective === 0) expect(result).toBe(assistantText)
          // (e) The person's peer converges on the same text.
          sync(server.ydoc, peer)
          expect(peerText.toString()).toBe(result)
          server.destroy()
          peer.destroy()
        },
      ),
      fuzzParameters({ numRuns: 400 }),
    )
  })
})
