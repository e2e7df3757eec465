import { describe, expect, it } from 'vitest'
import { CoherenceProjection } from '../../../core/coherence/model/breakdown.js'
import { DEFAULT_CONTEXT_ID } from '../../../core/coherence/model/contexts.js'
import { NON_FRESH_STATES } from '../../../core/coherence/model/staleness.js'
import { ELENA, HandLedger, SCENE, WORLD } from './handLedger.js'

const NOW = new Date('2026-07-18T12:00:00Z')

/** Elena and the world rules feed chapter 3; both upstreams then move on, one edge is waived, one stays stale. */
function workspace() {
  const ledger = new HandLedger()
  ledger.register(ELENA, 'characters/elena.md', 'character')
  ledger.register(WORLD, 'world/rules.md')
  ledger.register(SCENE, 'scenes/chapter-3.md')
  const e0 = ledger.revision(ELENA, 'Elena v1')
  const w0 = ledger.revision(WORLD, 'rules v1')
  ledger.transform([e0], [], { type: 'human' })
  ledger.transform([w0], [], { type: 'human' })
  const s0 = ledger.revision(SCENE, 'chapter 3')
  const txf = ledger.transform([s0], [{ object: ELENA, revision: e0.revision }, { object: WORLD, revision: w0.revision }, { object: WORLD, revision: w0.revision, role: 'contextual' }])
  const e1 = ledger.revision(ELENA, 'Elena v2', [e0.revision])
  const w1 = ledger.revision(WORLD, 'rules v2', [w0.revision])
  ledger.transform([e1], [], { type: 'human' })
  ledger.transform([w1], [], { type: 'human' })
  ledger.waive(txf, 1, WORLD, w0.revision, w1.revision)
  return { ledger, txf, e0, e1, w0, w1, s0 }
}

describe('coherence.edges rows (COH.EDGES.2–5)', () => {
  it('COH.EDGES.3: every row carries txf, input, upstream, upstream_path, pinned, downstream, downstream_path, downstream_rev and state', () => {
    const { ledger, txf, e0, w0, s0 } = workspace()
    const { rows } = new CoherenceProjection(ledger.entries).breakdown({ now: NOW })
    expect(rows).toEqual([
      { txf, input: 0, upstream: ELENA, upstream_path: 'characters/elena.md', pinned: e0.revision, downstream: SCENE, downstream_path: 'scenes/chapter-3.md', downstream_rev: s0.revision, state: 'version-stale' },
      { txf, input: 1, upstream: WORLD, upstream_path: 'world/rules.md', pinned: w0.revision, downstream: SCENE, downstream_path: 'scenes/chapter-3.md', downstream_rev: s0.revision, state: 'waived' },
    ])
    for (const row of rows) expect(NON_FRESH_STATES).toContain(row.state) // COH.EDGES.4
  })

  it('COH.EDGES.2: an empty array when everything is coherent (fresh and ratified edges are not listed)', () => {
    const { ledger, txf, e0, e1 } = workspace()
    ledger.ratify(txf, 0, ELENA, e0.revision, e1.revision)
    const projection = new CoherenceProjection(ledger.entries)
    expect(projection.breakdown({ now: NOW }).rows.map((row) => row.state)).toEqual(['waived'])
    const fresh = new HandLedger()
    const a = fresh.revision(ELENA, 'A')
    fresh.transform([a], [], { type: 'human' })
    fresh.transform([fresh.revision(SCENE, 'S')], [{ object: ELENA, revision: a.revision }])
    expect(new CoherenceProjection(fresh.entries).breakdown({ now: NOW }).rows).toEqual([])
  })

  it('COH.EDGES.5: (txf, input) finds the live edge for coherence_resolve; a retired edge finds none', () => {
    const { ledger, txf, s0 } = workspace()
    const projection = new CoherenceProjection(ledger.entries)
    expect(projection.liveEdgesOf(txf, 0, { now: NOW }).map(({ projection: p }) => [p.state, p.selected])).toEqual([['version-stale', expect.stringMatching(/^rev1:/)]])
    // The contextual input (index 2) is no edge at all.
    expect(projection.liveEdgesOf(txf, 2, { now: NOW })).toEqual([])
    ledger.transform([ledger.revision(SCENE, 'chapter 3 revised', [s0.revision])], [], { type: 'human' })
    expect(new CoherenceProjection(ledger.entries).liveEdgesOf(txf, 0, { now: NOW })).toEqual([])
  })

  it('an object no registration names has a null path', () => {
    const ledger = new HandLedger()
    const a = ledger.revision(ELENA, 'A')
    ledger.transform([a], [], { type: 'human' })
    ledger.transform([ledger.revision(SCENE, 'S')], [{ object: ELENA, revision: a.revision }])
    ledger.transform([ledger.revision(ELENA, 'B', [a.revision])], [], { type: 'human' })
    const [row] = new CoherenceProjection(ledger.entries).breakdown({ now: NOW }).rows
    expect(row).toMatchObject({ upstream_path: null, downstream_path: null, state: 'version-stale' })
  })

  it('the latest registration is the path (a move re-registers, §5.4.6)', () => {
    const { ledger } = workspace()
    ledger.register(SCENE, 'book/03-chapter.md')
    const rows = new CoherenceProjection(ledger.entries).breakdown({ now: NOW }).rows
    expect(rows.map((row) => row.downstream_path)).toEqual(['book/03-chapter.md', 'book/03-chapter.md'])
  })

  it('the breakdown header names the context and carries manifest load problems', () => {
    const { ledger } = workspace()
    const projection = new CoherenceProjection(ledger.entries, [{ file: 'broken.json', manifest: { format: 0 } }])
    const { context } = projection.breakdown({ now: NOW })
    expect(context).toMatchObject({ id: DEFAULT_CONTEXT_ID, name: 'default', degraded: false })
    expect(context.errors.join(' ')).toMatch(/^broken\.json: manifest is not a context/)
  })

  it('the same line twice (a union merge of one clone’s branches) is counted once', () => {
    const { ledger } = workspace()
    const doubled = [...ledger.entries, ...ledger.entries]
    expect(new CoherenceProjection(doubled).breakdown({ now: NOW })).toEqual(new CoherenceProjection(ledger.entries).breakdown({ now: NOW }))
  })

  it('unknown kinds and fields are preserved and ignored (§5.3)', () => {
    const { ledger } = workspace()
    const before = new CoherenceProjection(ledger.entries).breakdown({ now: NOW })
    ledger.other('anchor-moved', { object: ELENA, anchor: 'a-1' })
    ledger.other('navigation', { git: { op: 'checkout', from: 'a', to: 'b', ref: 'main' } })
    expect(new CoherenceProjection(ledger.entries).breakdown({ now: NOW })).toEqual(before)
  })
})

describe('coherence.status counts (COH.STATUS.1, COH.STATUS.4)', () => {
  it('COH.STATUS.4: open_items is the number of live non-fresh dependency edges; objects counts tracked objects', () => {
    const { ledger } = workspace()
    const projection = new CoherenceProjection(ledger.entries)
    expect(projection.status({ now: NOW })).toEqual({ objects: 3, open_items: projection.breakdown({ now: NOW }).rows.length })
    expect(projection.status({ now: NOW }).open_items).toBe(2)
  })

  it('an empty ledger has nothing open and no objects', () => {
    expect(new CoherenceProjection([]).status({ now: NOW })).toEqual({ objects: 0, open_items: 0 })
  })
})

describe('coherence.claims and coherence.contexts answers', () => {
  const CLAIM = '0198c0de-0000-7000-8000-0000000000f1'
  const OTHER = '0198c0de-0000-7000-8000-0000000000f2'

  it('COH.CLAIMS.1 / COH.CLAIMS.3: current claims with {claim, entryId, statement, maturity, invalidAt, visible}, visible in the default context', () => {
    const ledger = new HandLedger()
    const first = ledger.claim(CLAIM, 'Elena is Marcus’s daughter', 'draft')
    const promoted = ledger.claim(CLAIM, 'Elena is Marcus’s daughter', 'established', { supersedes: first })
    const retired = ledger.claim(OTHER, 'The war ends in spring', 'established')
    const ended = ledger.claim(OTHER, 'The war ends in spring', 'established', { supersedes: retired, invalidAt: '2026-09-01T00:00:00Z' })
    const manifests = [{ file: 'default.json', manifest: { format: 0, id: DEFAULT_CONTEXT_ID, name: 'default', parent: null, selections: {}, visible_claims: [CLAIM] } }]
    expect(new CoherenceProjection(ledger.entries, manifests).claimSummaries()).toEqual([
      { claim: CLAIM, entryId: promoted, statement: 'Elena is Marcus’s daughter', maturity: 'established', invalidAt: null, visible: true },
      { claim: OTHER, entryId: ended, statement: 'The war ends in spring', maturity: 'established', invalidAt: '2026-09-01T00:00:00Z', visible: false },
    ])
  })

  it('COH.CLAIMS.2: only established, current, unended, visible claims are fed; rival supersessions: latest is current', () => {
    const ledger = new HandLedger()
    const root = ledger.claim(CLAIM, 'Elena is 30', 'established')
    ledger.claim(CLAIM, 'Elena is 31', 'established', { supersedes: root })
    const latest = ledger.claim(CLAIM, 'Elena is 32', 'established', { supersedes: root })
    ledger.claim(OTHER, 'A draft', 'draft')
    const projection = new CoherenceProjection(ledger.entries)
    const current = projection.claims.currentOf(CLAIM)
    expect(current?.entry.id).toBe(latest)
    expect(current?.rivals).toHaveLength(1)
    expect(projection.claims.fedClaims([CLAIM, OTHER]).map((fed) => fed.claim)).toEqual([CLAIM])
    expect(projection.claims.fedClaims([OTHER])).toEqual([])
  })

  it('the claims fingerprint is SHA-256 of the sorted `claim=entry\\n` pairs; the empty feed hashes the empty string', async () => {
    const { createHash } = await import('node:crypto')
    const ledger = new HandLedger()
    const entry = ledger.claim(CLAIM, 'Elena is Marcus’s daughter', 'established')
    const projection = new CoherenceProjection(ledger.entries)
    expect(projection.claims.fingerprint([])).toBe(`sha256:${createHash('sha256').update('').digest('hex')}`)
    expect(projection.claims.fingerprint([CLAIM])).toBe(`sha256:${createHash('sha256').update(`${CLAIM}=${entry}\n`).digest('hex')}`)
  })

  it('COH.CONTEXTS.1 / COH.CONTEXTS.2: {id, name, parent, enforcement, visibleClaims, errors}, default always first', () => {
    const child = '0198c0de-0000-7000-8000-0000000000c2'
    const projection = new CoherenceProjection([], [
      { file: 'draft.json', manifest: { format: 0, id: child, name: 'draft', parent: DEFAULT_CONTEXT_ID, selections: {}, enforcement: 'enforcing', visible_claims: [CLAIM] } },
    ])
    expect(projection.contextSummaries()).toEqual([
      { id: DEFAULT_CONTEXT_ID, name: 'default', parent: null, enforcement: 'greenhouse', visibleClaims: [], errors: [] },
      { id: child, name: 'draft', parent: DEFAULT_CONTEXT_ID, enforcement: 'enforcing', visibleClaims: [CLAIM], errors: [] },
    ])
  })
})
