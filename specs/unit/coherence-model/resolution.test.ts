import { describe, expect, it } from 'vitest'
import { CoherenceProjection } from '../../../core/coherence/model/breakdown.js'
import { DelegationIndex } from '../../../core/coherence/model/delegations.js'
import { decideResolution, type ResolutionRequest, type Resolver } from '../../../core/coherence/model/resolution.js'
import { CoherenceRefusal, type CoherenceRefusalReason } from '../../../core/coherence/refusal.js'
import { ELENA, HandLedger, SCENE } from './handLedger.js'

/**
 * The decision of a resolution (COHR.RESOLVE.1–5, APPR.10; spec §5.4.3, §5.4.7, §9.2), given a ledger, when someone
 * resolves, then the entry it would append — or the refusal. Pure: nothing is appended here.
 */

const NOW = new Date('2026-07-20T12:00:00Z')
const LATER = '2026-07-27T12:00:00Z'
const EARLIER = '2026-07-19T12:00:00Z'
const GRANT = '0198c0de-0000-7000-8000-0000000000f1'
const OTHER_GRANT = '0198c0de-0000-7000-8000-0000000000f2'

/** Elena's sheet e0, chapter 3 generated from it, then the sheet edited to e1: the edge (txf, 0) is version-stale. */
function given(build: (ledger: HandLedger, world: { txf: string; e0: string; e1: string }) => void = () => {}) {
  const ledger = new HandLedger()
  ledger.register(ELENA, 'characters/elena.md')
  ledger.register(SCENE, 'scenes/chapter-3.md')
  const e0 = ledger.revision(ELENA, 'Elena v1')
  ledger.transform([e0], [], { type: 'human' })
  const s0 = ledger.revision(SCENE, 'chapter 3')
  const txf = ledger.transform([s0], [{ object: ELENA, revision: e0.revision }])
  const e1 = ledger.revision(ELENA, 'Elena v2', [e0.revision])
  ledger.transform([e1], [], { type: 'human' })
  const world = { txf, e0: e0.revision, e1: e1.revision }
  build(ledger, world)
  return { ledger, ...world }
}

function when(ledger: HandLedger, request: ResolutionRequest, resolver: Resolver) {
  const projection = new CoherenceProjection(ledger.entries)
  return () => decideResolution(projection, new DelegationIndex(ledger.entries), request, resolver, { now: NOW })
}

function refusedWith(decision: () => unknown, reason: CoherenceRefusalReason): string {
  try {
    decision()
  } catch (error) {
    expect(error).toBeInstanceOf(CoherenceRefusal)
    expect((error as CoherenceRefusal).reason).toBe(reason)
    return (error as CoherenceRefusal).message
  }
  throw new Error(`expected a ${reason} refusal, got a decision`)
}

const agent = (principal: string | null): Resolver => ({ kind: 'agent', principal })

describe('COHR.RESOLVE.1 / APPR.10: an agent resolves under a live delegation', () => {
  it('accept-newer becomes a ratification against the selected upstream, naming the agent and the grant', () => {
    const { ledger, txf, e0, e1 } = given((l) => l.delegate(GRANT, 'claude', ['resolve.accept-newer'], LATER))
    const decided = when(ledger, { txf, input: 0, resolution: 'accept-newer' }, agent('claude'))()
    expect(decided).toEqual({
      kind: 'ratification',
      body: { edge: { txf, input: 0 }, upstream_object: ELENA, pinned: e0, resolved_against: e1, actor: { type: 'agent', id: 'claude' }, delegation: GRANT },
    })
  })

  it('waive becomes a waiver with the reason, never an expiry (COHR.RESOLVE.7)', () => {
    const { ledger, txf } = given((l) => l.delegate(GRANT, 'claude', ['resolve.accept-newer', 'resolve.waive'], LATER))
    const decided = when(ledger, { txf, input: 0, resolution: 'waive', reason: '  the narrator lies  ' }, agent('claude'))()
    expect(decided.kind).toBe('waiver')
    expect(decided.body.reason).toBe('the narrator lies')
    expect(decided.body).not.toHaveProperty('expires')
  })

  it('the grant that expires last is named when several are live', () => {
    const { ledger, txf } = given((l) => {
      l.delegate(GRANT, 'claude', ['resolve.accept-newer'], LATER)
      l.delegate(OTHER_GRANT, 'claude', ['resolve.accept-newer'], '2026-08-30T00:00:00Z')
    })
    expect(when(ledger, { txf, input: 0, resolution: 'accept-newer' }, agent('claude'))().body.delegation).toBe(OTHER_GRANT)
  })
})

describe('COHR.RESOLVE.3–4: authorization is fail-closed and bound to the authenticated principal', () => {
  it('another agent is refused: the delegate must be the principal itself', () => {
    const { ledger, txf } = given((l) => l.delegate(GRANT, 'claude', ['resolve.accept-newer'], LATER))
    const message = refusedWith(when(ledger, { txf, input: 0, resolution: 'accept-newer' }, agent('gpt')), 'no-delegation')
    expect(message).toContain('"gpt"')
  })

  it('an anonymous connection never matches a grant', () => {
    const { ledger, txf } = given((l) => l.delegate(GRANT, 'anonymous', ['resolve.accept-newer'], LATER))
    refusedWith(when(ledger, { txf, input: 0, resolution: 'accept-newer' }, agent(null)), 'anonymous')
  })

  it('a grant of the other scope does not cover the resolution', () => {
    const { ledger, txf } = given((l) => l.delegate(GRANT, 'claude', ['resolve.accept-newer'], LATER))
    refusedWith(when(ledger, { txf, input: 0, resolution: 'waive', reason: 'why not' }, agent('claude')), 'no-delegation')
  })

  it('an expired grant is refused, saying it expired', () => {
    const { ledger, txf } = given((l) => l.delegate(GRANT, 'claude', ['resolve.accept-newer'], EARLIER))
    refusedWith(when(ledger, { txf, input: 0, resolution: 'accept-newer' }, agent('claude')), 'delegation-expired')
  })

  it('a revoked grant (a superseding entry with an empty scope) is refused, saying it was revoked', () => {
    const { ledger, txf } = given((l) => {
      const first = l.delegate(GRANT, 'claude', ['resolve.accept-newer'], LATER)
      l.delegate(GRANT, 'claude', [], LATER, first)
    })
    refusedWith(when(ledger, { txf, input: 0, resolution: 'accept-newer' }, agent('claude')), 'delegation-revoked')
  })

  it('a grant narrowed by a superseding entry authorizes only what it says now', () => {
    const { ledger, txf } = given((l) => {
      const first = l.delegate(GRANT, 'claude', ['resolve.accept-newer', 'resolve.waive'], LATER)
      l.delegate(GRANT, 'claude', ['resolve.waive'], LATER, first)
    })
    refusedWith(when(ledger, { txf, input: 0, resolution: 'accept-newer' }, agent('claude')), 'no-delegation')
    expect(when(ledger, { txf, input: 0, resolution: 'waive', reason: 'ok' }, agent('claude'))().kind).toBe('waiver')
  })
})

describe('COHR.RESOLVE.2, .5 and spec §9.2: what can be resolved', () => {
  it('a waive without a reason is refused before anything else', () => {
    const { ledger, txf } = given()
    refusedWith(when(ledger, { txf, input: 0, resolution: 'waive', reason: '   ' }, { kind: 'human', id: 'xiaolai' }), 'invalid-argument')
  })

  it('an edge already ratified against the current upstream is fresh, so not live for resolution', () => {
    const { ledger, txf, e0, e1 } = given((l, w) => l.ratify(w.txf, 0, ELENA, w.e0, w.e1))
    expect(e0).not.toBe(e1)
    refusedWith(when(ledger, { txf, input: 0, resolution: 'accept-newer' }, { kind: 'human', id: 'xiaolai' }), 'edge-not-live')
  })

  it('an edge that does not exist is not live', () => {
    const { ledger } = given()
    refusedWith(when(ledger, { txf: '0198c0de-0000-7000-8000-0000000000aa', input: 0, resolution: 'accept-newer' }, { kind: 'human', id: 'x' }), 'edge-not-live')
  })

  it('a multi-head upstream is diverged-multi-head: no single revision to resolve against', () => {
    const { ledger, txf } = given((l, w) => {
      const rival = l.revision(ELENA, 'Elena v2 elsewhere', [w.e0])
      l.transform([rival], [], { type: 'human' })
    })
    refusedWith(when(ledger, { txf, input: 0, resolution: 'accept-newer' }, { kind: 'human', id: 'xiaolai' }), 'multi-head-upstream')
  })

  it('the person resolves without any delegation, and the entry carries none', () => {
    const { ledger, txf } = given()
    const decided = when(ledger, { txf, input: 0, resolution: 'accept-newer' }, { kind: 'human', id: 'xiaolai' })()
    expect(decided.body.actor).toEqual({ type: 'human', id: 'xiaolai' })
    expect(decided.body).not.toHaveProperty('delegation')
  })
})

describe('spec §5.4.7: the delegation index', () => {
  it('lists what a grant authorized across its supersession chain', () => {
    const { ledger, txf, e0, e1 } = given((l, w) => {
      const first = l.delegate(GRANT, 'claude', ['resolve.accept-newer'], LATER)
      l.agentResolution('ratification', w.txf, 0, ELENA, w.e0, w.e1, 'claude', GRANT)
      l.delegate(GRANT, 'claude', [], LATER, first)
    })
    const index = new DelegationIndex(ledger.entries)
    expect(index.authorizedBy(GRANT).map((entry) => entry.body)).toEqual([
      expect.objectContaining({ edge: { txf, input: 0 }, pinned: e0, resolved_against: e1, delegation: GRANT }),
    ])
    expect(index.summaries(NOW)).toEqual([
      expect.objectContaining({ delegation: GRANT, delegate: 'claude', scope: [], standing: 'revoked', authorized: 1, conflicts: 0 }),
    ])
  })

  it('rival supersessions: the latest in reader order is current, the other surfaced as a conflict', () => {
    const ledger = new HandLedger()
    const first = ledger.delegate(GRANT, 'claude', ['resolve.accept-newer'], LATER)
    ledger.delegate(GRANT, 'claude', ['resolve.waive'], LATER, first)
    ledger.delegate(GRANT, 'claude', [], LATER, first)
    const index = new DelegationIndex(ledger.entries)
    expect(index.summaries(NOW)).toEqual([expect.objectContaining({ standing: 'revoked', conflicts: 1 })])
    expect(index.liveFor('claude', 'resolve.waive', NOW)).toBeUndefined()
  })
})
