import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Actor } from '../../core/events/actor.js'
import * as keys from '../../adapters/leveldb/keys.js'
import { isValidStreamName } from '../../core/log/streamNames.js'
import { decodeChunk, encodeChunk, RecordDecodeError, type StoredEvent } from '../../core/log/record.js'
import { fuzzParameters } from '../support/fuzz.js'

const actor: fc.Arbitrary<Actor> = fc.oneof(
  fc.record({ kind: fc.constant('mcp' as const), principal: fc.string(), connection: fc.string() }),
  fc.record({ kind: fc.constant('peer' as const), peer: fc.string() }),
  fc.constantFrom<Actor>({ kind: 'user' }, { kind: 'disk' }, { kind: 'system' }),
)

const payload = fc.dictionary(
  fc.string({ maxLength: 8 }),
  fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.uint8Array({ maxLength: 300 })),
)

const storedEvent: fc.Arbitrary<StoredEvent> = fc.record({
  type: fc.string({ minLength: 1, maxLength: 20 }),
  v: fc.nat(5),
  stream: fc.string({ minLength: 1, maxLength: 30 }),
  streamVersion: fc.integer({ min: 1, max: 2 ** 40 }),
  at: fc.integer({ min: 0, max: 2 ** 45 }),
  actor,
  data: payload,
})

/** Length of the one record in a one-record chunk: count (1 byte), varUint length, CRC (4 bytes), record. */
function recordLength(chunk: Uint8Array): number {
  const oneByteLength = chunk.length - 6
  return oneByteLength < 128 ? oneByteLength : chunk.length - 7
}

describe('record chunks', () => {
  it('round-trip any events, bytes staying bytes', () => {
    fc.assert(
      fc.property(fc.array(storedEvent, { minLength: 1, maxLength: 6 }), (events) => {
        const decoded = decodeChunk(encodeChunk(events))
        expect(decoded.map((entry) => ('event' in entry ? entry.event : entry))).toEqual(events)
      }),
      fuzzParameters(),
    )
  })

  it('lose only the damaged record when one record is corrupted', () => {
    fc.assert(
      fc.property(fc.array(storedEvent, { minLength: 2, maxLength: 5 }), fc.nat(), fc.nat(), (events, which, where) => {
        const chunk = encodeChunk(events)
        const lengths = events.map((event) => recordLength(encodeChunk([event])))
        const target = which % events.length
        const bodyStart = chunk.length - lengths.reduce((sum, length) => sum + length, 0)
        const recordStart = bodyStart + lengths.slice(0, target).reduce((sum, length) => sum + length, 0)
        const damaged = chunk.slice()
        damaged[recordStart + (where % lengths[target]!)]! ^= 0x5a
        const decoded = decodeChunk(damaged)
        decoded.forEach((entry, index) => {
          if (index === target) expect(entry).toMatchObject({ error: 'checksum mismatch' })
          else expect(entry).toMatchObject({ event: events[index] })
        })
      }),
      fuzzParameters(),
    )
  })

  it('refuse damaged framing with a RecordDecodeError, never another exception', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        try {
          decodeChunk(bytes)
        } catch (error) {
          expect(error).toBeInstanceOf(RecordDecodeError)
        }
      }),
      fuzzParameters(),
    )
  })
})

describe('keys', () => {
  const compare = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b)

  it('sort event keys in numeric order', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), fc.maxSafeNat(), (a, b) => {
        expect(Math.sign(compare(keys.eventKey(a), keys.eventKey(b)))).toBe(Math.sign(a - b))
        expect(keys.positionOfEventKey(keys.eventKey(a))).toBe(a)
      }),
      fuzzParameters(),
    )
  })

  it('keep each stream index contiguous and ordered by version', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), fc.maxSafeNat(), fc.maxSafeNat(), (s1, s2, v1, v2) => {
        fc.pre(isValidStreamName(s1) && isValidStreamName(s2))
        const a = keys.streamIndexKey(s1, v1)
        const b = keys.streamIndexKey(s1, v2)
        expect(Math.sign(compare(a, b))).toBe(Math.sign(v1 - v2))
        expect(keys.versionOfStreamIndexKey(a)).toBe(v1)
        if (s1 !== s2) {
          // No key of another stream falls between two keys of this one.
          const other = keys.streamIndexKey(s2, v1)
          const low = compare(a, b) < 0 ? a : b
          const high = compare(a, b) < 0 ? b : a
          expect(compare(other, low) < 0 || compare(other, high) > 0).toBe(true)
        }
      }),
      fuzzParameters(),
    )
  })
})
