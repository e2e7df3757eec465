import { describe, expect, it } from 'vitest'
import { parseLedgerLine, type LineVerdict } from '../../../core/coherence/entries.js'
import { judgeLineBytes } from '../../../core/coherence/reader.js'
import { ELENA, OUR_WRITER, SCENE, saveBody, uuid } from './support.js'

const REV = `rev1:${'a'.repeat(64)}`
const REV2 = `rev1:${'b'.repeat(64)}`
const HASH = `sha256:${'c'.repeat(64)}`

function line(kind: string, body: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ format: 0, id: uuid('0198c0a0', 1), kind, time: '2026-07-18T09:30:12.415Z', writer: OUR_WRITER, idem: uuid('0198c0b0', 1), body, ...extra })
}

const reasonOf = (verdict: LineVerdict): string => (verdict.status === 'malformed' ? verdict.reason : `not malformed: ${verdict.status}`)

const resolution = {
  edge: { txf: uuid('0198c0a0', 7), input: 0 },
  upstream_object: ELENA,
  pinned: REV,
  resolved_against: REV2,
  actor: { type: 'human', id: 'xiaolai' },
}

/** One well-formed body per kind of spec §5.4, in the spec's own shapes. */
const VALID_BODIES: Record<string, unknown> = {
  transformation: {
    inputs: [{ object: ELENA, revision: REV, role: 'direct' }, { object: SCENE, revision: REV2, role: 'contextual', kind: 'dependency' }],
    outputs: [{ object: SCENE, revision: REV2, content_hash: HASH, parents: [REV] }],
    agent: { type: 'model', id: 'claude-fable-5' },
    intent: { kind: 'genie', summary: 'Rewrite scene 12 against Elena v3' },
    confidence: 'exact',
  },
  navigation: { git: { op: 'checkout', from: 'abc', to: 'def', ref: 'main' } },
  ratification: resolution,
  waiver: { ...resolution, reason: 'Divergence intentional — unreliable narrator in ch. 3', expires: '2026-08-01T00:00:00Z' },
  'check-result': {
    edge: { txf: uuid('0198c0a0', 7), input: 0 },
    pinned: REV,
    checked_against: REV2,
    verdict: 'no-contradiction',
    model: 'claude-fable-5',
    prompt_version: 'check-v1',
    evidence: [{ object: ELENA, quote: '…', loc: 'L120-L134' }],
    confidence: 0.83,
    context: '00000000-0000-0000-0000-000000000000',
    claims_fingerprint: HASH,
  },
  claim: {
    claim: uuid('0198c0c0', 1),
    statement: "Elena is Marcus's daughter",
    valid_at: '2026-07-01T00:00:00Z',
    invalid_at: null,
    established_by: [{ object: ELENA, revision: REV }],
    supersedes: null,
    maturity: 'draft',
  },
  'object-registered': { object: ELENA, path: 'art/elena-ref.png', schema: 'image', derived_from: [SCENE] },
  diagnostic: { code: 'duplicate-id', message: 'two files carry one vmark.id', path: 'a.md' },
  delegation: {
    delegation: uuid('0198c0d0', 1),
    actor: { type: 'human', id: 'xiaolai' },
    delegate: { type: 'external', id: 'agent-7' },
    scope: ['resolve.accept-newer', 'resolve.waive'],
    expires: '2026-07-26T00:00:00Z',
    supersedes: null,
  },
}

describe('entry kinds (spec §5.3–§5.4)', () => {
  for (const [kind, body] of Object.entries(VALID_BODIES)) {
    it(`accepts a ${kind} in the spec's shape, every field kept`, () => {
      const verdict = parseLedgerLine(line(kind, body))
      expect(verdict.status).toBe('entry')
      if (verdict.status === 'entry') expect(verdict.entry.body).toEqual(body)
    })
  }

  it('preserves unknown kinds and unknown fields, in the envelope and in bodies', () => {
    const unknown = parseLedgerLine(line('anchor', { anything: [1, { deep: true }] }, { extra: 'kept' }))
    expect(unknown).toEqual({ status: 'entry', entry: expect.objectContaining({ kind: 'anchor', body: { anything: [1, { deep: true }] }, extra: 'kept' }) })
    const body = { ...(VALID_BODIES['transformation'] as object), future_field: { x: 1 } }
    const known = parseLedgerLine(line('transformation', body))
    expect(known.status === 'entry' && known.entry.body).toEqual(body)
  })

  it('hands UUIDs on in lower case', () => {
    const verdict = parseLedgerLine(line('object-registered', { object: ELENA.toUpperCase(), path: 'a.md' }, { writer: OUR_WRITER.toUpperCase() }))
    expect(verdict.status === 'entry' && [verdict.entry.writer, (verdict.entry.body as { object: string }).object]).toEqual([OUR_WRITER, ELENA])
  })

  it('skips a newer format without calling it malformed; a malformed newer envelope is malformed', () => {
    expect(parseLedgerLine(line('transformation', {}, { format: 1 }))).toEqual({ status: 'future-format', format: 1 })
    expect(parseLedgerLine(JSON.stringify({ format: 1, kind: 'x' })).status).toBe('malformed')
  })

  it('quarantines what the spec calls malformed, with the reason', () => {
    expect(reasonOf(parseLedgerLine('{"format":0,"id'))).toMatch(/^invalid JSON/)
    expect(reasonOf(parseLedgerLine(line('transformation', {}, { time: 'yesterday' })))).toMatch(/^invalid envelope: time/)
    expect(reasonOf(parseLedgerLine(line('transformation', {}, { idem: 'sha256:abc' })))).toMatch(/idem: not a UUID/)
    expect(reasonOf(judgeLineBytes(Uint8Array.from([0x7b, 0xff, 0x7d])))).toBe('invalid UTF-8')
    expect(reasonOf(parseLedgerLine(line('transformation', { ...saveBody(ELENA, 'x'), outputs: [] })))).toMatch(/at least one output/)
    expect(reasonOf(parseLedgerLine(line('transformation', { ...saveBody(ELENA, 'x'), confidence: 'sure' })))).toMatch(/confidence/)
    expect(reasonOf(parseLedgerLine(line('check-result', { ...(VALID_BODIES['check-result'] as object), verdict: 'maybe' })))).toMatch(/verdict/)
  })

  it('§5.4.3: a waiver needs a reason; a non-human resolution needs its delegation, a human one carries none', () => {
    expect(reasonOf(parseLedgerLine(line('waiver', resolution)))).toMatch(/reason/)
    expect(reasonOf(parseLedgerLine(line('waiver', { ...resolution, reason: '  ' })))).toMatch(/reason/)
    const byAgent = { ...resolution, actor: { type: 'agent', id: 'agent-7' } }
    expect(reasonOf(parseLedgerLine(line('ratification', byAgent)))).toMatch(/delegation/)
    expect(parseLedgerLine(line('ratification', { ...byAgent, delegation: uuid('0198c0d0', 1) })).status).toBe('entry')
    expect(reasonOf(parseLedgerLine(line('ratification', { ...resolution, delegation: uuid('0198c0d0', 1) })))).toMatch(/human resolution/)
  })

  it('§5.4.7: a delegation needs an expiry and is granted by a person', () => {
    const grant = VALID_BODIES['delegation'] as Record<string, unknown>
    const { expires: _expires, ...withoutExpiry } = grant
    expect(reasonOf(parseLedgerLine(line('delegation', withoutExpiry)))).toMatch(/expires/)
    expect(reasonOf(parseLedgerLine(line('delegation', { ...grant, actor: { type: 'agent', id: 'a' } })))).toMatch(/actor/)
    expect(parseLedgerLine(line('delegation', { ...grant, scope: [], supersedes: uuid('0198c0a0', 3) })).status).toBe('entry')
  })
})
