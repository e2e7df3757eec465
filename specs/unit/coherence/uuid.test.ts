import { describe, expect, it } from 'vitest'
import { quarantineDiagnostic } from '../../../core/coherence/compose.js'
import { parseLedgerLine } from '../../../core/coherence/entries.js'
import { readSegments } from '../../../core/coherence/reader.js'
import { splitSegment } from '../../../core/coherence/lines.js'
import { formatEntryTime, rfc3339Nanoseconds } from '../../../core/coherence/time.js'
import { UuidV7Generator, isUuidV7, newUuidV7, uuidFromDigest, uuidV7Milliseconds } from '../../../core/coherence/uuid.js'
import { OUR_WRITER } from './support.js'

describe('UUIDv7 (RFC 9562 §5.7)', () => {
  it('carries the Unix milliseconds, version 7 and the 10 variant', () => {
    const generator = new UuidV7Generator({ now: () => 0x0198c0de1234, random: (n) => new Uint8Array(n).fill(0xff) })
    const id = generator.next()
    expect(id).toBe('0198c0de-1234-7fff-bfff-ffffffffffff')
    expect(isUuidV7(id)).toBe(true)
    expect(uuidV7Milliseconds(id)).toBe(0x0198c0de1234)
  })

  it('increases strictly within one millisecond and when the clock steps back, carrying into the timestamp', () => {
    let now = 1_000_000
    const generator = new UuidV7Generator({ now: () => now, random: (n) => new Uint8Array(n).fill(0xff) })
    const first = generator.next() // the largest random bits: the next id in this millisecond carries
    const second = generator.next()
    now -= 5
    const third = generator.next()
    expect([first < second, second < third]).toEqual([true, true])
    expect(uuidV7Milliseconds(second)).toBe(1_000_001)
    const ids = Array.from({ length: 1000 }, () => newUuidV7())
    expect([...ids].sort()).toEqual(ids)
    expect(ids.every(isUuidV7)).toBe(true)
  })

  it('a name-based id from a digest is a version-8 UUID the envelope accepts as idem', () => {
    const id = uuidFromDigest(new Uint8Array(32).fill(0xff))
    expect(id).toBe('ffffffff-ffff-8fff-bfff-ffffffffffff')
  })
})

describe('RFC 3339 times', () => {
  it('order instants, not spellings', () => {
    expect(rfc3339Nanoseconds('2026-07-18T10:30:12.415+01:00')).toBe(rfc3339Nanoseconds('2026-07-18T09:30:12.415Z'))
    expect(rfc3339Nanoseconds('2026-07-18T09:30:12.4151Z')! - rfc3339Nanoseconds('2026-07-18T09:30:12.415Z')!).toBe(100_000n)
    expect(formatEntryTime(new Date(Date.UTC(2026, 6, 18, 9, 30, 12, 415)))).toBe('2026-07-18T09:30:12.415Z')
  })

  it('refuse what is not one', () => {
    for (const text of ['2026-07-18', '2026-02-30T00:00:00Z', '2026-07-18T24:00:00Z', '2026-07-18T09:30:12', 'yesterday']) {
      expect(rfc3339Nanoseconds(text)).toBeUndefined()
    }
  })
})

describe('quarantine diagnostics (spec §5.6 step 3)', () => {
  it('one per offending line: the same line read again gives the same idem; it is a valid diagnostic entry', () => {
    const bytes = Buffer.from('garbage\n')
    const [first] = readSegments([{ name: 'a.jsonl', lines: splitSegment(bytes, 1024) }]).quarantined
    const [again] = readSegments([{ name: 'a.jsonl', lines: splitSegment(bytes, 1024) }]).quarantined
    const [elsewhere] = readSegments([{ name: 'b.jsonl', lines: splitSegment(bytes, 1024) }]).quarantined
    expect(first?.diagnosticIdem).toBe(again?.diagnosticIdem)
    expect(first?.diagnosticIdem).not.toBe(elsewhere?.diagnosticIdem)
    const entry = quarantineDiagnostic(first!, { writer: OUR_WRITER })
    expect(entry.idem).toBe(first?.diagnosticIdem)
    expect(parseLedgerLine(JSON.stringify(entry)).status).toBe('entry')
  })
})
