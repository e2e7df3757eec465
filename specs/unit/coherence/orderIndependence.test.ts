import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { composeEntry } from '../../../core/coherence/compose.js'
import type { LedgerEntry } from '../../../core/coherence/entries.js'
import { CoherenceLedger } from '../../../core/coherence/ledger.js'
import { BoundedLineSplitter, type SegmentLine } from '../../../core/coherence/lines.js'
import { readSegments, type SegmentLines } from '../../../core/coherence/reader.js'
import { fuzzParameters } from '../../support/fuzz.js'
import { ELENA, OUR_WRITER, saveBody, uuid } from './support.js'

const WRITERS = [OUR_WRITER, '0198c0de-0000-7000-8000-000000000002', '0198c0de-0000-7000-8000-000000000003'] as const
const BASE = Date.UTC(2026, 6, 18, 9, 0, 0)

interface Scenario {
  readonly originals: LedgerEntry[]
  /** Every line of the ledger as it lies on disk: originals, retries and repeated lines, each with its segment. */
  readonly lines: { segment: string; text: string }[]
  readonly torn: { segment: string; text: string }
}

/**
 * Originals: distinct idems, times drawn from few seconds (ties happen, the id breaks them). Retries of an original
 * carry its idem and a later (time, id): a retry mints a fresh id later than the first attempt's, with the same or a
 * later time. Some lines repeat verbatim (a union merge can do that). One segment ends in a torn fragment.
 */
const scenario: fc.Arbitrary<Scenario> = fc
  .record({
    originals: fc.array(fc.record({ writer: fc.integer({ min: 0, max: 2 }), second: fc.integer({ min: 0, max: 3 }), offsetMinutes: fc.constantFrom(0, 60, -90) }), { minLength: 1, maxLength: 10 }),
    retries: fc.array(fc.record({ of: fc.nat(), laterMs: fc.integer({ min: 0, max: 1500 }), segment: fc.integer({ min: 0, max: 2 }) }), { maxLength: 6 }),
    repeats: fc.array(fc.record({ of: fc.nat(), segment: fc.integer({ min: 0, max: 2 }) }), { maxLength: 4 }),
    torn: fc.record({ of: fc.nat(), cut: fc.double({ min: 0.05, max: 0.95, noNaN: true }), segment: fc.integer({ min: 0, max: 2 }) }),
  })
  .map(({ originals: shapes, retries, repeats, torn }) => {
    const segmentOf = (writer: number) => `${WRITERS[writer]}.jsonl`
    const originals = shapes.map((shape, n) => {
      const entry = composeEntry('transformation', saveBody(ELENA, `Elena v${n}\n`), {
        writer: WRITERS[shape.writer] as string,
        id: uuid('0198c0a0', n + 1),
        idem: uuid('0198c0b0', n + 1),
        at: new Date(BASE + shape.second * 1000),
      })
      // Some writers print an offset instead of Z: the same instant, spelled differently.
      return shape.offsetMinutes === 0 ? entry : { ...entry, time: withOffset(new Date(BASE + shape.second * 1000), shape.offsetMinutes) }
    })
    const lines = originals.map((entry, n) => ({ segment: segmentOf((shapes[n] as { writer: number }).writer), text: JSON.stringify(entry) }))
    retries.forEach((retry, k) => {
      const original = originals[retry.of % originals.length] as LedgerEntry
      const at = new Date(Date.parse(original.time) + retry.laterMs)
      const again = { ...original, id: uuid('0198ffff', k + 1), time: at.toISOString() }
      lines.push({ segment: segmentOf(retry.segment), text: JSON.stringify(again) })
    })
    for (const repeat of repeats) {
      const line = lines[repeat.of % lines.length] as { text: string }
      lines.push({ segment: segmentOf(repeat.segment), text: line.text })
    }
    const tornOf = JSON.stringify(originals[torn.of % originals.length])
    return { originals, lines, torn: { segment: segmentOf(torn.segment), text: tornOf.slice(0, Math.max(1, Math.floor(tornOf.length * torn.cut))) } }
  })

function withOffset(at: Date, offsetMinutes: number): string {
  const local = new Date(at.getTime() + offsetMinutes * 60_000).toISOString().slice(0, -1)
  const sign = offsetMinutes < 0 ? '-' : '+'
  const abs = Math.abs(offsetMinutes)
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`
}

/** The segments' bytes: lines in the given order, the torn fragment last in its segment with no newline. */
function segmentBytes(lines: readonly { segment: string; text: string }[], torn: { segment: string; text: string }): Map<string, Buffer> {
  const texts = new Map<string, string>()
  for (const line of lines) texts.set(line.segment, `${texts.get(line.segment) ?? ''}${line.text}\n`)
  texts.set(torn.segment, `${texts.get(torn.segment) ?? ''}${torn.text}`)
  return new Map([...texts].map(([name, text]) => [name, Buffer.from(text, 'utf8')]))
}

/** Splits bytes fed in chunks of the given sizes (cycled), as a streaming read would meet them. */
function splitInChunks(bytes: Buffer, chunkSizes: readonly number[]): SegmentLine[] {
  const splitter = new BoundedLineSplitter(1 << 20)
  const lines: SegmentLine[] = []
  let at = 0
  for (let k = 0; at < bytes.length; k++) {
    const size = chunkSizes[k % chunkSizes.length] as number
    lines.push(...splitter.push(bytes.subarray(at, at + size)))
    at += size
  }
  return [...lines, ...splitter.end()]
}

const inOrder = (originals: readonly LedgerEntry[]) =>
  readSegments([{ name: 'reference.jsonl', lines: splitInChunks(Buffer.from(originals.map((e) => `${JSON.stringify(e)}\n`).join('')), [1 << 20]) }])

describe('order independence (spec §5.1): shuffled lines across segments, duplicates by idem and a torn tail read as in order', () => {
  it('property', () => {
    fc.assert(
      fc.property(
        scenario.chain((s) => fc.tuple(fc.constant(s), fc.shuffledSubarray(s.lines, { minLength: s.lines.length, maxLength: s.lines.length }))),
        fc.array(fc.integer({ min: 1, max: 97 }), { minLength: 1, maxLength: 5 }),
        ([s, shuffled], chunkSizes) => {
          const reference = inOrder(s.originals)
          const segments: SegmentLines[] = [...segmentBytes(shuffled, s.torn)].map(([name, bytes]) => ({ name, lines: splitInChunks(bytes, chunkSizes) }))
          const read = readSegments(segments.reverse())
          expect(read.entries).toEqual(reference.entries)
          expect(read.futureFormat).toBe(0)
          expect(read.duplicates).toBe(s.lines.length - s.originals.length)
          expect(read.quarantined.map((q) => [q.segment, q.raw])).toEqual([[s.torn.segment, s.torn.text]])
        },
      ),
      fuzzParameters({ numRuns: 200 }),
    )
  })

  it('the same, from disk through CoherenceLedger', async () => {
    const root = await mkdtemp(join(tmpdir(), 'quire-coherence-order-'))
    try {
      const [s] = fc.sample(scenario, { numRuns: 1, seed: 7 }) as [Scenario]
      const shuffled = [...s.lines].reverse()
      await mkdir(join(root, '.vmark', 'ledger'), { recursive: true })
      for (const [name, bytes] of segmentBytes(shuffled, s.torn)) await writeFile(join(root, '.vmark', 'ledger', name), bytes)
      const read = await new CoherenceLedger(root, OUR_WRITER, { writeQuarantine: false }).read()
      expect(read.entries).toEqual(inOrder(s.originals).entries)
      expect(read.quarantined).toHaveLength(1)
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })

  it('chunking never changes the lines (bounded splitter)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }).map((b) => b.map((x) => (x % 4 === 0 ? 0x0a : x))), fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 4 }), (bytes, sizes) => {
        const buffer = Buffer.from(bytes)
        const expected = buffer.toString('latin1').split('\n')
        if (expected.at(-1) === '') expected.pop()
        const lines = splitInChunks(buffer, sizes).map((line) => (line.status === 'line' ? Buffer.from(line.bytes).toString('latin1') : '<oversized>'))
        expect(lines).toEqual(expected)
      }),
      fuzzParameters({ numRuns: 300 }),
    )
  })
})
