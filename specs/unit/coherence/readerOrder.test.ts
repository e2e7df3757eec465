import { describe, expect, it } from 'vitest'
import { compareEntryOrder } from '../../../core/coherence/entries.js'
import { splitSegment } from '../../../core/coherence/lines.js'
import { readSegments } from '../../../core/coherence/reader.js'
import { OUR_WRITER, transformation } from './support.js'

/** Segment bytes of entries of one writer at the given times (as written, any RFC 3339 spelling). */
function segment(times: readonly string[]): Uint8Array {
  const lines = times.map((time, n) => JSON.stringify({ ...transformation(OUR_WRITER, n + 1), time }))
  return Buffer.from(`${lines.join('\n')}\n`)
}

const readTimes = (times: readonly string[]) => readSegments([{ name: 'a.jsonl', lines: splitSegment(segment(times), 1 << 20) }]).entries

describe('reader order (spec §5.1): by the instant each time names, then by id', () => {
  it('times all in the writers’ form are ordered by instant, ties by id', () => {
    const times = ['2026-07-18T09:30:12.415Z', '2026-07-18T09:30:12.414Z', '2026-07-18T09:30:12.415Z', '2025-12-31T23:59:59.999Z']
    const entries = readTimes(times)
    expect(entries.map((entry) => entry.time)).toEqual(['2025-12-31T23:59:59.999Z', '2026-07-18T09:30:12.414Z', '2026-07-18T09:30:12.415Z', '2026-07-18T09:30:12.415Z'])
    expect([...entries].sort(compareEntryOrder)).toEqual(entries)
  })

  it('times in other spellings (offsets, other fractions) are ordered by the instant, not the text', () => {
    // As text, the +01:00 one sorts last and the one-digit fraction before the three-digit ones; as instants, no.
    const times = ['2026-07-18T10:30:12.410+01:00', '2026-07-18T09:30:12.415Z', '2026-07-18T09:30:12.5Z', '2026-07-18T09:30:12Z']
    const entries = readTimes(times)
    expect(entries.map((entry) => entry.time)).toEqual(['2026-07-18T09:30:12Z', '2026-07-18T10:30:12.410+01:00', '2026-07-18T09:30:12.415Z', '2026-07-18T09:30:12.5Z'])
    expect([...entries].sort(compareEntryOrder)).toEqual(entries)
  })
})
