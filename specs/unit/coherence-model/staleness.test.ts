import { describe, expect, it } from 'vitest'
import { CoherenceProjection } from '../../../core/coherence/model/breakdown.js'
import { DEFAULT_CONTEXT_ID } from '../../../core/coherence/model/contexts.js'
import { NON_FRESH_STATES, type EdgeState } from '../../../core/coherence/model/staleness.js'
import { ELENA, EMPTY_FEED, HandLedger, SCENE, WORLD } from './handLedger.js'

const NOW = new Date('2026-07-18T12:00:00Z')
const PINNED_CONTEXT = '0198c0de-0000-7000-8000-0000000000c1'

/**
 * The world most tests start from: Elena's character sheet e0, chapter 3 generated from it (s0), then the sheet
 * edited to e1. The single edge is (txf, 0): ELENA pinned at e0 → SCENE@s0.
 */
function world() {
  const ledger = new HandLedger()
  ledger.register(ELENA, 'characters/elena.md', 'character')
  ledger.register(SCENE, 'scenes/chapter-3.md')
  const e0 = ledger.revision(ELENA, 'Elena v1')
  ledger.transform([e0], [], { type: 'human' })
  const s0 = ledger.revision(SCENE, 'chapter 3, first draft')
  const txf = ledger.transform([s0], [{ object: ELENA, revision: e0.revision }])
  const e1 = ledger.revision(ELENA, 'Elena v2', [e0.revision])
  return { ledger, e0, e1, s0, txf }
}

function pinManifest(pins: Record<string, string>) {
  return { file: 'pinned.json', manifest: { format: 0, id: PINNED_CONTEXT, name: 'pinned', parent: null, selections: pins, enforcement: 'greenhouse', visible_claims: [] } }
}

function stateOf(ledger: HandLedger, options: { context?: string; manifests?: Array<{ file: string; manifest: unknown }> } = {}): EdgeState | 'not live' {
  const projection = new CoherenceProjection(ledger.entries, options.manifests ?? [])
  const live = projection.liveEdges({ now: NOW, ...(options.context === undefined ? {} : { context: options.context }) })
  expect(live.length).toBeLessThanOrEqual(1)
  return live[0]?.projection.state ?? 'not live'
}

describe('spec §9.2 edge states (COH.EDGES.4)', () => {
  it('fresh: the pin is the upstream revision the context selects (p == sel)', () => {
    const { ledger } = world()
    expect(stateOf(ledger)).toBe('fresh')
  })

  it('version-stale: the upstream advanced past the pin and no check result is live (p strict ancestor of sel)', () => {
    const { ledger, e1 } = world()
    ledger.transform([e1], [], { type: 'human' })
    expect(stateOf(ledger)).toBe('version-stale')
  })

  it('version-stale reaches the pin through several revisions (BFS over parent links, §9.3)', () => {
    const { ledger, e1 } = world()
    ledger.transform([e1], [], { type: 'human' })
    const e2 = ledger.revision(ELENA, 'Elena v3', [e1.revision])
    ledger.transform([e2], [], { type: 'human' })
    expect(stateOf(ledger)).toBe('version-stale')
  })

  it('stale-valid / stale-contradicted / stale-unknown: the latest live check verdict for (p, sel) (§5.4.4)', () => {
    for (const [verdict, expected] of [
      ['no-contradiction', 'stale-valid'],
      ['contradiction', 'stale-contradicted'],
      ['unknown', 'stale-unknown'],
    ] as const) {
      const { ledger, e0, e1, txf } = world()
      ledger.transform([e1], [], { type: 'human' })
      ledger.check(txf, 0, e0.revision, e1.revision, verdict, { context: DEFAULT_CONTEXT_ID, fingerprint: EMPTY_FEED })
      expect(stateOf(ledger)).toBe(expected)
    }
  })

  it('stale-*: of several live check results the latest in reader order decides', () => {
    const { ledger, e0, e1, txf } = world()
    ledger.transform([e1], [], { type: 'human' })
    ledger.check(txf, 0, e0.revision, e1.revision, 'contradiction', { context: DEFAULT_CONTEXT_ID, fingerprint: EMPTY_FEED })
    ledger.check(txf, 0, e0.revision, e1.revision, 'no-contradiction', { context: DEFAULT_CONTEXT_ID, fingerprint: EMPTY_FEED })
    expect(stateOf(ledger)).toBe('stale-valid')
  })

  it('a check result is live only for its own pair, context and claim feed (D5.6); otherwise the edge is version-stale', () => {
    const { ledger, e0, e1, txf } = world()
    ledger.transform([e1], [], { type: 'human' })
    // Checked against another revision (expired: an endpoint moved), under another context, against another feed,
    // and one from before revision 1 without the context fields: none of them is live.
    ledger.check(txf, 0, e0.revision, e0.revision, 'contradiction', { context: DEFAULT_CONTEXT_ID, fingerprint: EMPTY_FEED })
    ledger.check(txf, 0, e0.revision, e1.revision, 'contradiction', { context: PINNED_CONTEXT, fingerprint: EMPTY_FEED })
    ledger.check(txf, 0, e0.revision, e1.revision, 'contradiction', { context: DEFAULT_CONTEXT_ID, fingerprint: `sha256:${'0'.repeat(64)}` })
    ledger.check(txf, 0, e0.revision, e1.revision, 'contradiction', null)
    expect(stateOf(ledger)).toBe('version-stale')
  })

  it('a check result stops being live when the context feeds a newly established claim (fingerprint moves)', () => {
    const claim = '0198c0de-0000-7000-8000-0000000000f1'
    const manifests = [{ file: 'default.json', manifest: { format: 0, id: DEFAULT_CONTEXT_ID, name: 'default', parent: null, selections: {}, visible_claims: [claim] } }]
    const { ledger, e0, e1, txf } = world()
    ledger.transform([e1], [], { type: 'human' })
    ledger.claim(claim, 'Elena is Marcus’s daughter', 'draft')
    // A draft claim is not fed (R33): the feed is still empty, the check is live.
    ledger.check(txf, 0, e0.revision, e1.revision, 'no-contradiction', { context: DEFAULT_CONTEXT_ID, fingerprint: EMPTY_FEED })
    expect(stateOf(ledger, { manifests })).toBe('stale-valid')
    const draft = ledger.entries.find((entry) => entry.kind === 'claim')!
    ledger.claim(claim, 'Elena is Marcus’s daughter', 'established', { supersedes: draft.id })
    expect(stateOf(ledger, { manifests })).toBe('version-stale')
  })

  it('fresh-ratified: the latest resolution against the selection is a ratification (§5.4.3)', () => {
    const { ledger, e0, e1, txf } = world()
    ledger.transform([e1], [], { type: 'human' })
    ledger.ratify(txf, 0, ELENA, e0.revision, e1.revision)
    expect(stateOf(ledger)).toBe('fresh-ratified')
  })

  it('waived: the latest resolution against the selection is an unexpired waiver', () => {
    const { ledger, e0, e1, txf } = world()
    ledger.transform([e1], [], { type: 'human' })
    ledger.waive(txf, 0, ELENA, e0.revision, e1.revision, { expires: '2026-08-01T00:00:00Z' })
    expect(stateOf(ledger)).toBe('waived')
    const { ledger: again, e0: p, e1: q, txf: t } = world()
    again.transform([q], [], { type: 'human' })
    again.waive(t, 0, ELENA, p.revision, q.revision)
    expect(stateOf(again)).toBe('waived')
  })

  it('waived → version-stale once the waiver has expired (the expired waiver decides nothing)', () => {
    const { ledger, e0, e1, txf } = world()
    ledger.transform([e1], [], { type: 'human' })
    ledger.waive(txf, 0, ELENA, e0.revision, e1.revision, { expires: '2026-07-18T11:00:00Z' })
    expect(stateOf(ledger)).toBe('version-stale')
  })

  it('the latest resolution wins: a waiver after a ratification waives, a ratification after a waiver revokes it', () => {
    const { ledger, e0, e1, txf } = world()
    ledger.transform([e1], [], { type: 'human' })
    ledger.ratify(txf, 0, ELENA, e0.revision, e1.revision)
    ledger.waive(txf, 0, ELENA, e0.revision, e1.revision)
    expect(stateOf(ledger)).toBe('waived')
    ledger.ratify(txf, 0, ELENA, e0.revision, e1.revision)
    expect(stateOf(ledger)).toBe('fresh-ratified')
  })

  it('"latest" is reader order (time, id), not line order: an earlier-timed line appended later does not win', () => {
    const { ledger, e0, e1, txf } = world()
    ledger.transform([e1], [], { type: 'human' })
    ledger.waive(txf, 0, ELENA, e0.revision, e1.revision, { at: '2026-07-18T10:00:00.000Z' })
    ledger.ratify(txf, 0, ELENA, e0.revision, e1.revision, '2026-07-18T08:00:00.000Z')
    expect(stateOf(ledger)).toBe('waived')
  })

  it('reader order compares instants, not spellings: 12:30+02:00 is before 11:00Z', () => {
    const { ledger, e0, e1, txf } = world()
    ledger.transform([e1], [], { type: 'human' })
    ledger.waive(txf, 0, ELENA, e0.revision, e1.revision, { at: '2026-07-18T12:30:00+02:00' })
    ledger.ratify(txf, 0, ELENA, e0.revision, e1.revision, '2026-07-18T11:00:00.000Z')
    expect(stateOf(ledger)).toBe('fresh-ratified')
  })

  it('an upstream advance past resolved_against re-opens the edge (v0 waiver scope, §5.4.3)', () => {
    const { ledger, e0, e1, txf } = world()
    ledger.transform([e1], [], { type: 'human' })
    ledger.waive(txf, 0, ELENA, e0.revision, e1.revision)
    ledger.ratify(txf, 0, ELENA, e0.revision, e1.revision)
    const e2 = ledger.revision(ELENA, 'Elena v3', [e1.revision])
    ledger.transform([e2], [], { type: 'human' })
    expect(stateOf(ledger)).toBe('version-stale')
  })

  it('diverged-multi-head: the live upstream has two heads, so there is no single selection (DIVERGED_HEADS)', () => {
    const { ledger, e0, e1 } = world()
    ledger.transform([e1], [], { type: 'human' })
    const fork = ledger.revision(ELENA, 'Elena v2 (other clone)', [e0.revision])
    ledger.transform([fork], [], { type: 'human' })
    expect(stateOf(ledger)).toBe('diverged-multi-head')
  })

  it('diverged-multi-head cannot be waived: no record can be bound to an undefined selection', () => {
    const { ledger, e0, e1, txf } = world()
    ledger.transform([e1], [], { type: 'human' })
    const fork = ledger.revision(ELENA, 'Elena v2 (other clone)', [e0.revision])
    ledger.transform([fork], [], { type: 'human' })
    ledger.waive(txf, 0, ELENA, e0.revision, e1.revision)
    ledger.ratify(txf, 0, ELENA, e0.revision, fork.revision)
    expect(stateOf(ledger)).toBe('diverged-multi-head')
  })

  it('a merge revision joining the heads ends the divergence: the pin is its ancestor again (version-stale)', () => {
    const { ledger, e0, e1 } = world()
    ledger.transform([e1], [], { type: 'human' })
    const fork = ledger.revision(ELENA, 'Elena v2 (other clone)', [e0.revision])
    ledger.transform([fork], [], { type: 'human' })
    const merged = ledger.revision(ELENA, 'Elena v2 merged', [fork.revision, e1.revision])
    ledger.transform([merged], [], { type: 'git', id: 'merge' })
    expect(stateOf(ledger)).toBe('version-stale')
  })

  it('diverged: a defined selection incomparable with the pin (a context pins the other branch)', () => {
    const { ledger, e0, e1 } = world()
    ledger.transform([e1], [], { type: 'human' })
    const fork = ledger.revision(ELENA, 'Elena v2 (other clone)', [e0.revision])
    ledger.transform([fork], [], { type: 'human' })
    // The scene is regenerated from the fork; the context looks at e1.
    const s1 = ledger.revision(SCENE, 'chapter 3 from the fork', [ledger.revision(SCENE, 'chapter 3, first draft').revision])
    ledger.transform([s1], [{ object: ELENA, revision: fork.revision }])
    expect(stateOf(ledger, { context: PINNED_CONTEXT, manifests: [pinManifest({ [ELENA]: e1.revision })] })).toBe('diverged')
  })

  it('diverged with a defined selection can be waived or ratified against that selection', () => {
    const { ledger, e0, e1 } = world()
    ledger.transform([e1], [], { type: 'human' })
    const fork = ledger.revision(ELENA, 'Elena v2 (other clone)', [e0.revision])
    ledger.transform([fork], [], { type: 'human' })
    const s1 = ledger.revision(SCENE, 'chapter 3 from the fork', [ledger.revision(SCENE, 'chapter 3, first draft').revision])
    const txf = ledger.transform([s1], [{ object: ELENA, revision: fork.revision }])
    ledger.waive(txf, 0, ELENA, fork.revision, e1.revision)
    expect(stateOf(ledger, { context: PINNED_CONTEXT, manifests: [pinManifest({ [ELENA]: e1.revision })] })).toBe('waived')
  })

  it('fresh-ahead: the pin is newer than a pinned context selection (sel strict ancestor of p)', () => {
    const { ledger, e0, e1 } = world()
    ledger.transform([e1], [], { type: 'human' })
    const s1 = ledger.revision(SCENE, 'chapter 3 against Elena v2', [ledger.revision(SCENE, 'chapter 3, first draft').revision])
    ledger.transform([s1], [{ object: ELENA, revision: e1.revision }])
    expect(stateOf(ledger, { context: PINNED_CONTEXT, manifests: [pinManifest({ [ELENA]: e0.revision })] })).toBe('fresh-ahead')
  })

  it('unpinnable: the context pins a revision the upstream never had', () => {
    const { ledger } = world()
    const never = ledger.revision(ELENA, 'a revision no line records')
    expect(stateOf(ledger, { context: PINNED_CONTEXT, manifests: [pinManifest({ [ELENA]: never.revision })] })).toBe('unpinnable')
  })

  it('unpinnable: the upstream has no revision in this ledger (its history is in a segment we do not hold)', () => {
    const ledger = new HandLedger()
    const s0 = ledger.revision(SCENE, 'chapter 3')
    const elsewhere = ledger.revision(WORLD, 'world rules, recorded by another clone')
    ledger.transform([s0], [{ object: WORLD, revision: elsewhere.revision }])
    expect(stateOf(ledger)).toBe('unpinnable')
  })

  it('unpinnable: the edge pins a revision the upstream history neither holds nor reaches', () => {
    const { ledger, e0 } = world()
    const s0 = ledger.revision(SCENE, 'chapter 3, first draft')
    const s1 = ledger.revision(SCENE, 'chapter 3 against a lost revision', [s0.revision])
    const lost = ledger.revision(ELENA, 'lost', [e0.revision])
    ledger.transform([s1], [{ object: ELENA, revision: lost.revision }])
    expect(stateOf(ledger)).toBe('unpinnable')
  })

  it('the golden set covers every non-fresh state the tool can return', () => {
    expect([...NON_FRESH_STATES].sort()).toEqual(
      ['diverged', 'diverged-multi-head', 'stale-contradicted', 'stale-unknown', 'stale-valid', 'unpinnable', 'version-stale', 'waived'].sort(),
    )
  })
})

describe('spec §9.2 edge liveness', () => {
  it('an edge of a superseded downstream revision is history: revising the scene retires it', () => {
    const { ledger, e1, s0 } = world()
    ledger.transform([e1], [], { type: 'human' })
    expect(stateOf(ledger)).toBe('version-stale')
    const s1 = ledger.revision(SCENE, 'chapter 3 revised by hand', [s0.revision])
    ledger.transform([s1], [], { type: 'human' })
    expect(stateOf(ledger)).toBe('not live')
  })

  it('a context pinning the downstream at the old revision keeps the old edge live', () => {
    const { ledger, e1, s0 } = world()
    ledger.transform([e1], [], { type: 'human' })
    const s1 = ledger.revision(SCENE, 'chapter 3 revised by hand', [s0.revision])
    ledger.transform([s1], [], { type: 'human' })
    expect(stateOf(ledger, { context: PINNED_CONTEXT, manifests: [pinManifest({ [SCENE]: s0.revision })] })).toBe('version-stale')
  })

  it('a multi-head downstream suppresses its edges (no downstream revision equals the selection)', () => {
    const { ledger, e1 } = world()
    ledger.transform([e1], [], { type: 'human' })
    ledger.transform([ledger.revision(SCENE, 'an unrelated root of the same object')], [], { type: 'human' })
    expect(stateOf(ledger)).toBe('not live')
  })

  it('contextual inputs are provenance, not edges (§7)', () => {
    const ledger = new HandLedger()
    const e0 = ledger.revision(ELENA, 'Elena v1')
    ledger.transform([e0], [], { type: 'human' })
    const s0 = ledger.revision(SCENE, 'chapter 3')
    ledger.transform([s0], [{ object: ELENA, revision: e0.revision, role: 'contextual' }])
    const e1 = ledger.revision(ELENA, 'Elena v2', [e0.revision])
    ledger.transform([e1], [], { type: 'human' })
    expect(stateOf(ledger)).toBe('not live')
  })

  it('an input of a non-dependency kind is not a dependency edge (§13.6)', () => {
    const ledger = new HandLedger()
    const e0 = ledger.revision(ELENA, 'Elena v1')
    ledger.transform([e0], [], { type: 'human' })
    const s0 = ledger.revision(SCENE, 'chapter 3')
    ledger.transform([s0], [{ object: ELENA, revision: e0.revision, kind: 'mention' }])
    ledger.transform([ledger.revision(ELENA, 'Elena v2', [e0.revision])], [], { type: 'human' })
    expect(stateOf(ledger)).toBe('not live')
  })

  it('an input naming the output’s own object (a rewrite of the scene) is the revision’s parent, not a stale edge', () => {
    const ledger = new HandLedger()
    const s0 = ledger.revision(SCENE, 'chapter 3')
    ledger.transform([s0], [], { type: 'human' })
    const s1 = ledger.revision(SCENE, 'chapter 3 rewritten', [s0.revision])
    ledger.transform([s1], [{ object: SCENE, revision: s0.revision }])
    expect(stateOf(ledger)).toBe('not live')
  })

  it('a transformation with two outputs makes one edge per output, each judged on its own downstream', () => {
    const { ledger, e0, e1 } = world()
    const w0 = ledger.revision(WORLD, 'world rules')
    ledger.transform([w0, ledger.revision(SCENE, 'chapter 3 second pass', [ledger.revision(SCENE, 'chapter 3, first draft').revision])], [{ object: ELENA, revision: e0.revision }])
    ledger.transform([e1], [], { type: 'human' })
    const projection = new CoherenceProjection(ledger.entries)
    const states = [...projection.stateMap({ now: NOW }).values()]
    expect(states).toEqual(['version-stale', 'version-stale'])
  })
})
