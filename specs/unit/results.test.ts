import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MAX_OUTPUT_BYTES, success } from '../../adapters/mcp/results.js'
import { fuzzParameters } from '../support/fuzz.js'

const unit = fc.constantFrom('a', 'é', '中', '😀', '"', '\\', '\n', '\u0001', '\u2028', '\u200d', ' ')

describe('the truncation envelope (property)', () => {
  it('always fits the bound, shows a prefix of the payload cut on a code point, and says how much it shows', () => {
    fc.assert(
      fc.property(fc.string({ unit, minLength: 5_000, maxLength: 40_000 }), (body) => {
        const payload = { content: body.repeat(3) }
        const result = success(payload)
        const text = (result.content[0] as { text: string }).text
        expect(Buffer.byteLength(text, 'utf8')).toBeLessThanOrEqual(MAX_OUTPUT_BYTES)
        const full = JSON.stringify(payload, null, 2)
        if (Buffer.byteLength(full, 'utf8') <= MAX_OUTPUT_BYTES) {
          expect(result.structuredContent).toEqual(payload)
          return
        }
        const envelope = result.structuredContent as { preview: string; bytes_shown: number; bytes_total: number; truncated: boolean }
        expect(JSON.parse(text)).toEqual(envelope)
        expect(envelope.truncated).toBe(true)
        expect(full.startsWith(envelope.preview)).toBe(true)
        expect(envelope.preview.isWellFormed()).toBe(true)
        expect(envelope.preview.endsWith('\u200d')).toBe(false)
        expect(envelope.bytes_shown).toBe(Buffer.byteLength(envelope.preview, 'utf8'))
        expect(envelope.bytes_total).toBe(Buffer.byteLength(full, 'utf8'))
        // Close to the bound, not merely under it: at most one code point and a trailing joiner away.
        expect(MAX_OUTPUT_BYTES - Buffer.byteLength(text, 'utf8')).toBeLessThan(32)
      }),
      fuzzParameters({ numRuns: 25, endOnFailure: true }),
    )
  })
})
