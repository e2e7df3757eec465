/**
 * `document.write` with `edits` as a property (issue 27): for random texts (CJK, emoji, CRLF-free) and random
 * non-overlapping edits, described as {old_text, new_text, occurrence} the way an assistant would (each found in the
 * text the edits before it left), applying them gives exactly the text made by hand; through the engine, the write
 * lands that text and the log replays it byte for byte.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { openQuire } from '../../adapters/host/quire.js'
import { replayDocument } from '../../core/audit/replay.js'
import { USER } from '../../core/events/actor.js'
import { applyTextEdits, type TextEdit } from '../../core/edits/textEdits.js'
import { openWorkspaceAsPerson, type Caller } from '../../core/workspace/commands.js'
import { fuzzParameters } from '../support/fuzz.js'

const ASSISTANT: Caller = { actor: { kind: 'mcp', principal: 'claude', connection: 'c-1' }, connection: 'c-1', principal: 'claude' }

const piece = fc.constantFrom('a', 'b', 'ab', ' ', '\n', '中', '文', '😀', 'x', 'yz', '。')
const text = fc.array(piece, { minLength: 1, maxLength: 40 }).map((parts) => parts.join(''))

/** Edits as ranges of the original text, non-overlapping, with their replacements. */
const scenario = text.chain((original) =>
  fc
    .uniqueArray(fc.nat({ max: original.length }), { minLength: 0, maxLength: 8 })
    .chain((cuts) => fc.tuple(fc.constant(original), fc.constant([...cuts].sort((a, b) => a - b)), fc.array(fc.array(piece, { maxLength: 4 }).map((parts) => parts.join('')), { minLength: 8, maxLength: 8 }))),
)

/** Splits at code-point boundaries only: an edit never cuts a surrogate pair. */
const safe = (text: string, at: number) => (at > 0 && at < text.length && /[\uDC00-\uDFFF]/.test(text[at]!) ? at + 1 : at)

function describeEdits(original: string, cuts: readonly number[], inserts: readonly string[]): { edits: TextEdit[]; byHand: string } | undefined {
  const ranges: { start: number; end: number; insert: string }[] = []
  for (let i = 0; i + 1 < cuts.length; i += 2) {
    const start = safe(original, cuts[i]!)
    const end = safe(original, cuts[i + 1]!)
    if (end > start && (ranges.length === 0 || start >= ranges[ranges.length - 1]!.end)) ranges.push({ start, end, insert: inserts[i / 2]! })
  }
  if (ranges.length === 0) return undefined
  let byHand = original
  for (const range of [...ranges].reverse()) byHand = byHand.slice(0, range.start) + range.insert + byHand.slice(range.end)
  // Each edit as the assistant writes it: found in the text the edits before it left, by occurrence.
  const edits: TextEdit[] = []
  let current = original
  let shift = 0
  for (const range of ranges) {
    const start = range.start + shift
    const old = current.slice(start, range.end + shift)
    let occurrence = 0
    for (let at = current.indexOf(old); at !== -1 && at <= start; at = current.indexOf(old, at + 1)) occurrence += 1
    edits.push({ old_text: old, new_text: range.insert, occurrence })
    current = current.slice(0, start) + range.insert + current.slice(start + old.length)
    shift += range.insert.length - old.length
  }
  return { edits, byHand }
}

describe('document.write edits (property)', () => {
  it('applying random non-overlapping edits gives the text made by hand', () => {
    fc.assert(
      fc.property(scenario, ([original, cuts, inserts]) => {
        const described = describeEdits(original, cuts, inserts)
        if (!described) return
        expect(applyTextEdits(original, described.edits).text).toBe(described.byHand)
      }),
      fuzzParameters({ numRuns: 500 }),
    )
  })

  it('through the engine, the write lands the text made by hand and the log replays it byte for byte', async () => {
    const base = await realpath(await mkdtemp(join(tmpdir(), 'quire-edits-property-')))
    await mkdir(join(base, 'ws'))
    const quire = await openQuire(join(base, 'home'), { watchDisk: false })
    try {
      await openWorkspaceAsPerson(quire.services.engine.store, quire.services.engine.views.workspace, join(base, 'ws'), USER)
      let run = 0
      await fc.assert(
        fc.asyncProperty(scenario, async ([original, cuts, inserts]) => {
          const described = describeEdits(original, cuts, inserts)
          if (!described) return
          const file = join(base, 'ws', `doc-${run++}.md`)
          await writeFile(file, original)
          const { tabId } = await quire.services.files.open(file, undefined, ASSISTANT)
          const answer = await quire.services.files.writeEdits(tabId, described.edits, { save: false, dryRun: false }, ASSISTANT)
          const docId = quire.services.engine.views.workspace.state.tabs.get(tabId)!.docId
          expect((await quire.services.engine.documents.get(docId))!.content).toBe(described.byHand)
          if (original !== described.byHand) expect(await replayDocument(quire.services.engine, docId, answer.revision)).toBe(described.byHand)
          await quire.services.workspace.close(tabId, true, ASSISTANT)
        }),
        fuzzParameters({ numRuns: 40 }),
      )
    } finally {
      await quire.close()
      await rm(base, { recursive: true, force: true })
    }
  })
})
