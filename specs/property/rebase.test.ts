import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { alignmentRuns } from '../../core/documents/baseAlignment.js'
import { DocumentState } from '../../core/documents/documentState.js'
import { baseAfterWrite, baseIsCurrent, captureBase, markBeforeWrite, rebaseWrite, type DocumentBase } from '../../core/documents/rebase.js'
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

/**
 * The base text as the alignment walk sees it, phantoms put in their places: kept characters read from the current
 * text, removed ones and phantoms (whose content is gone) from the base.
 */
function reconstructBase(ytext: Y.Text, base: DocumentBase): string {
  const current = ytext.toString()
  const { runs, baseLength } = alignmentRuns(ytext, base)
  const phantomUnits = base.phantoms.reduce((sum, phantom) => sum + phantom.length, 0)
  expect(baseLength + phantomUnits).toBe(base.text.length)
  const real: (string | null)[] = []
  let currentAt = 0
  for (const run of runs) {
    for (let k = 0; k < run.length; k++) {
      if (run.kind === 'kept') real.push(current[currentAt + k]!)
      if (run.kind === 'removed') real.push(null)
    }
    if (run.kind !== 'removed') currentAt += run.length
  }
  expect(currentAt).toBe(current.length)
  const isPhantom = (position: number) => base.phantoms.some((p) => position >= p.position && position < p.position + p.length)
  let rebuilt = ''
  let next = 0
  for (let position = 0; position < base.text.length; position++) {
    if (isPhantom(position)) rebuilt += base.text[position]
    else rebuilt += real[next++] ?? base.text[position]
  }
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

describe('rebaseWrite: assistant writes merged with what the person typed since the read', () => {
  it('keeps what the person typed, deletes only what the assistant deleted, places its text at the front of its position, and converges, write after write', () => {
    fc.assert(
      fc.property(
        tricky(30),
        fc.option(tricky(30), { nil: undefined }),
        fc.array(peerEdit, { maxLength: 5 }),
        fc.array(fc.record({ since: fc.array(peerEdit, { maxLength: 6 }), target: assistantTarget }), { minLength: 1, maxLength: 3 }),
        (initial, earlierWrite, before, writes) => {
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

          // The read: the base, and (independently of the module) the ids of its characters in order.
          let base: DocumentBase = captureBase(server.ydoc, server.text.toString())
          let baseIds = characters(server.text)
            .filter((c) => c.visible)
            .map((c) => c.key)
          let unchangedSinceCapture = true
          // Base characters whose place among the items the written text's base cannot use (the module's phantoms).
          let phantomKeys = new Set<string>()

          for (const { since, target } of writes) {
            const baseIndex = new Map(baseIds.map((key, index) => [key, index]))
            expect(baseIndex.size).toBe(base.text.length)

            // The person types on; the server receives it.
            const effective = applyPeerEdits(peerText, since, cursor)
            sync(peer, server.ydoc)
            unchangedSinceCapture &&= effective === 0
            if (base.snapshot !== null) expect(baseIsCurrent(server.ydoc, base)).toBe(effective === 0)
            expect(reconstructBase(server.text, base)).toBe(base.text)

            const beforeWrite = characters(server.text)
            const beforeText = server.text.toString()
            const peerTypedBefore = beforeWrite.filter((c) => c.visible && !baseIndex.has(c.key)).map((c) => c.key)
            for (const key of peerTypedBefore) expect(key.startsWith(`${PEER}:`)).toBe(true)
            const baseVisibleBefore = new Set(beforeWrite.filter((c) => c.visible && baseIndex.has(c.key)).map((c) => c.key))

            // The assistant's write, from its base.
            const assistantText = targetText(base.text, target)
            const baseHunks = textHunks(base.text, assistantText)
            const rebased = rebaseWrite(server.text, base, baseHunks)
            checkShape(rebased.hunks, beforeText.length)
            const mark = markBeforeWrite(server.ydoc)
            server.transactLocal(rebased.hunks)
            const result = server.text.toString()
            expect(result).toBe(applyHunks(beforeText, rebased.hunks))
            expect(result.isWellFormed()).toBe(true)

            const deletedByAssistant = (index: number) => baseHunks.some((h) => index >= h.start && index < h.start + h.deleteCount)
            const after = characters(server.text)
            // (a) Everything the person typed since the base is there, in order: peer-typed characters are never deleted.
            expect(after.filter((c) => c.visible && !baseIndex.has(c.key) && c.client === PEER).map((c) => c.key)).toEqual(peerTypedBefore)
            // (b) and rule 1: a base character is there exactly when neither the person nor the assistant deleted it.
            const visibleAfter = new Set(after.filter((c) => c.visible).map((c) => c.key))
            for (const [key, index] of baseIndex) {
              expect(visibleAfter.has(key), `base character ${index}`).toBe(baseVisibleBefore.has(key) && !deletedByAssistant(index))
            }
            // (c) and rule 2: in the result, ordered by (base position, assistant text before the person's, …), each
            // hunk's text contiguous at the front of its base position.
            const inserts = baseHunks.filter((h) => h.insert.length > 0)
            const isAssistant = (c: Character) => c.client === mark.client && c.clock >= mark.clock
            const assistantChars = after.filter((c) => c.visible && isAssistant(c))
            expect(assistantChars.map((c) => c.unit).join('')).toBe(inserts.map((h) => h.insert).join(''))
            const hunkOfAssistantChar = new Map<string, [number, number]>()
            let assigned = 0
            inserts.forEach((hunk, h) => {
              for (let k = 0; k < hunk.insert.length; k++) hunkOfAssistantChar.set(assistantChars[assigned++]!.key, [hunk.start, h])
            })
            // A phantom sits right after the base character before it: the gap after that character is past it.
            const gapAfter = (index: number) => {
              let gap = index + 1
              while (gap < baseIds.length && phantomKeys.has(baseIds[gap]!)) gap++
              return gap
            }
            let gap = gapAfter(-1)
            let order = 0
            let previous: number[] = [-1]
            for (const character of after) {
              const index = baseIndex.get(character.key)
              order++
              let key: number[]
              if (index !== undefined && phantomKeys.has(character.key)) {
                expect(character.visible).toBe(false)
                continue
              } else if (index !== undefined) {
                gap = gapAfter(index)
                key = [index, 2]
              } else if (hunkOfAssistantChar.has(character.key)) {
                const [start, h] = hunkOfAssistantChar.get(character.key)!
                key = [start, 0, h, order]
              } else {
                expect(character.client === PEER || !character.visible).toBe(true)
                key = [gap, 1, order]
              }
              if (!character.visible) continue
              expect(compareKeys(previous, key), `order at ${JSON.stringify(character)}`).toBeLessThan(0)
              previous = key
            }
            // (d) Nobody else edited since the base was captured: the text is exactly the assistant's.
            if (unchangedSinceCapture) expect(result).toBe(assistantText)
            // (e) The person's peer converges on the same text.
            sync(server.ydoc, peer)
            expect(peerText.toString()).toBe(result)

            // The next write, without a read in between, is from the assistant's own text.
            base = baseAfterWrite(server.ydoc, base, rebased, mark, assistantText)
            expect(base.text).toBe(assistantText)
            // Its characters, in its order: the base characters the assistant kept and its insertions.
            const writtenIds: string[] = []
            let from = 0
            let inserted = 0
            for (const hunk of baseHunks) {
              writtenIds.push(...baseIds.slice(from, hunk.start))
              for (let k = 0; k < hunk.insert.length; k++) writtenIds.push(assistantChars[inserted++]!.key)
              from = hunk.start + hunk.deleteCount
            }
            writtenIds.push(...baseIds.slice(from))
            expect(writtenIds.length).toBe(assistantText.length)
            // Phantoms: those already phantoms, and deleted characters the items hold before a character that
            // comes earlier in the written text (Yjs put an insertion after them).
            const listOrder = new Map(after.map((c, position) => [c.key, position]))
            const writtenPhantoms = new Set<string>()
            let latest = -1
            for (const key of writtenIds) {
              if (phantomKeys.has(key)) {
                writtenPhantoms.add(key)
                continue
              }
              const position = listOrder.get(key)!
              if (position < latest) {
                expect(visibleAfter.has(key), `visible ${key} out of order`).toBe(false)
                writtenPhantoms.add(key)
              } else {
                latest = position
              }
            }
            if (rebased.concurrent) {
              const phantomPositions = writtenIds.flatMap((key, position) => (writtenPhantoms.has(key) ? [position] : []))
              expect(base.phantoms.flatMap((p) => Array.from({ length: p.length }, (_, k) => p.position + k))).toEqual(phantomPositions)
            } else {
              expect(writtenPhantoms.size).toBe(0)
              unchangedSinceCapture = true
            }
            baseIds = writtenIds
            phantomKeys = writtenPhantoms
          }
          server.destroy()
          peer.destroy()
        },
      ),
      fuzzParameters({ numRuns: 300 }),
    )
  })
})
