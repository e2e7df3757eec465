import { describe, expect, it } from 'vitest'
import { CoherenceProjection } from '../../../core/coherence/model/breakdown.js'
import { ContextSet, DEFAULT_CONTEXT_ID, MAX_CONTEXT_CHAIN } from '../../../core/coherence/model/contexts.js'
import { ELENA, HandLedger, SCENE, WORLD, uuid } from './handLedger.js'

const REV_A = `rev1:${'a'.repeat(64)}`
const REV_B = `rev1:${'b'.repeat(64)}`
const REV_C = `rev1:${'c'.repeat(64)}`

const contextId = (n: number) => uuid('0198c0c0', n)
const claimId = (n: number) => uuid('0198c1a1', n)

function manifest(n: number, options: { parent?: number | string | null; selections?: Record<string, string>; claims?: string[]; enforcement?: string; extra?: Record<string, unknown> } = {}) {
  const parent = options.parent === undefined || options.parent === null ? null : typeof options.parent === 'number' ? contextId(options.parent) : options.parent
  return {
    file: `ctx-${n}.json`,
    manifest: { format: 0, id: contextId(n), name: `ctx-${n}`, parent, selections: options.selections ?? {}, visible_claims: options.claims ?? [], ...(options.enforcement === undefined ? {} : { enforcement: options.enforcement }), ...options.extra },
  }
}

/** A chain ctx-1 → ctx-2 → … → ctx-length (ctx-1 the child), the root pinning ELENA. */
function chain(length: number) {
  return Array.from({ length }, (_, index) => manifest(index + 1, { parent: index + 1 < length ? index + 2 : null, selections: index + 1 === length ? { [ELENA]: REV_A } : {} }))
}

describe('spec §6 contexts: overlays', () => {
  it('the implicit default exists without a manifest: all live, greenhouse, no claims (COH.CONTEXTS.2)', () => {
    const set = new ContextSet([])
    const view = set.view(DEFAULT_CONTEXT_ID)
    expect(view).toMatchObject({ id: DEFAULT_CONTEXT_ID, name: 'default', parent: null, enforcement: 'greenhouse', visibleClaims: [], degraded: false, errors: [] })
    expect(view.selection(ELENA)).toEqual({ kind: 'live' })
    expect(set.summaries()).toEqual([{ id: DEFAULT_CONTEXT_ID, name: 'default', parent: null, enforcement: 'greenhouse', visibleClaims: [], errors: [] }])
  })

  it('a materialized default.json (the nil id) replaces the implicit default', () => {
    const set = new ContextSet([{ file: 'default.json', manifest: { format: 0, id: DEFAULT_CONTEXT_ID, name: 'default', parent: null, selections: { [ELENA]: REV_A }, visible_claims: [] } }])
    expect(set.view(DEFAULT_CONTEXT_ID).selection(ELENA)).toEqual({ kind: 'pinned', revision: REV_A })
    expect(set.ids()).toEqual([DEFAULT_CONTEXT_ID])
  })

  it('the child’s selection overrides the parent’s per object; the rest is inherited; absent everywhere is live', () => {
    const set = new ContextSet([
      manifest(1, { parent: 2, selections: { [ELENA]: REV_B, [WORLD]: 'live' } }),
      manifest(2, { selections: { [ELENA]: REV_A, [SCENE]: REV_C, [WORLD]: REV_A } }),
    ])
    const child = set.view(contextId(1))
    expect(child.selection(ELENA)).toEqual({ kind: 'pinned', revision: REV_B })
    expect(child.selection(SCENE)).toEqual({ kind: 'pinned', revision: REV_C })
    // An explicit "live" in the child is a decision too: the parent's pin does not show through.
    expect(child.selection(WORLD)).toEqual({ kind: 'live' })
    expect(child.selection(uuid('0198dead', 1))).toEqual({ kind: 'live' })
    expect(set.view(contextId(2)).selection(ELENA)).toEqual({ kind: 'pinned', revision: REV_A })
  })

  it('visible claims inherit additively (child ∪ parent, de-duplicated); enforcement is never inherited', () => {
    const set = new ContextSet([manifest(1, { parent: 2, claims: [claimId(1), claimId(2)] }), manifest(2, { claims: [claimId(2), claimId(3)], enforcement: 'enforcing' })])
    expect(set.view(contextId(1)).visibleClaims).toEqual([claimId(1), claimId(2), claimId(3)])
    expect(set.view(contextId(1)).enforcement).toBe('greenhouse')
    expect(set.view(contextId(2)).enforcement).toBe('enforcing')
  })

  it('a parent naming the implicit default ends the walk cleanly', () => {
    const set = new ContextSet([manifest(1, { parent: DEFAULT_CONTEXT_ID, selections: { [ELENA]: REV_A } })])
    const view = set.view(contextId(1))
    expect(view.degraded).toBe(false)
    expect(view.selection(ELENA)).toEqual({ kind: 'pinned', revision: REV_A })
  })

  it(`a chain of ${MAX_CONTEXT_CHAIN} contexts resolves; the root’s pin reaches the child through every level`, () => {
    const set = new ContextSet(chain(MAX_CONTEXT_CHAIN))
    const view = set.view(contextId(1))
    expect(view.degraded).toBe(false)
    expect(view.selection(ELENA)).toEqual({ kind: 'pinned', revision: REV_A })
  })

  it(`a chain of ${MAX_CONTEXT_CHAIN + 1} contexts overflows: the context degrades to the default and says why`, () => {
    const set = new ContextSet(chain(MAX_CONTEXT_CHAIN + 1))
    const view = set.view(contextId(1))
    expect(view.degraded).toBe(true)
    expect(view.selection(ELENA)).toEqual({ kind: 'live' })
    expect(view.errors.join(' ')).toMatch(/longer than 16 contexts/)
    // One level down the same chain is short enough.
    expect(set.view(contextId(2)).degraded).toBe(false)
  })

  it('a cycle degrades every context on it to the default (all live, no claims) with the error surfaced', () => {
    const set = new ContextSet([manifest(1, { parent: 2, selections: { [ELENA]: REV_A }, claims: [claimId(1)] }), manifest(2, { parent: 1 })])
    for (const n of [1, 2]) {
      const view = set.view(contextId(n))
      expect(view.degraded).toBe(true)
      expect(view.selection(ELENA)).toEqual({ kind: 'live' })
      expect(view.visibleClaims).toEqual([])
      expect(view.errors.join(' ')).toMatch(/loops/)
    }
    expect(set.summaries().find((summary) => summary.id === contextId(1))?.errors.join(' ')).toMatch(/loops/)
  })

  it('a self-parent is a cycle too', () => {
    const set = new ContextSet([manifest(1, { parent: 1, selections: { [ELENA]: REV_A } })])
    expect(set.view(contextId(1)).degraded).toBe(true)
  })

  it('a parent that is not a context degrades the child', () => {
    const set = new ContextSet([manifest(1, { parent: 9, selections: { [ELENA]: REV_A } })])
    expect(set.view(contextId(1))).toMatchObject({ degraded: true })
    expect(set.view(contextId(1)).errors.join(' ')).toMatch(/not a context/)
  })

  it('an unreadable selection fails the entry, not the context: it reads as live and is reported', () => {
    const set = new ContextSet([manifest(1, { selections: { [ELENA]: 'v4', [SCENE]: REV_A } })])
    const view = set.view(contextId(1))
    expect(view.degraded).toBe(false)
    expect(view.selection(ELENA)).toEqual({ kind: 'live' })
    expect(view.selection(SCENE)).toEqual({ kind: 'pinned', revision: REV_A })
    expect(view.errors.join(' ')).toMatch(/neither "live" nor a rev1/)
  })

  it('ids in a manifest are read in lower case, as the ledger reader hands entry ids on', () => {
    const set = new ContextSet([{ file: 'loud.json', manifest: { format: 0, id: contextId(1).toUpperCase(), name: 'loud', parent: null, selections: { [ELENA.toUpperCase()]: REV_A } } }])
    expect(set.view(contextId(1)).selection(ELENA)).toEqual({ kind: 'pinned', revision: REV_A })
  })

  it('a malformed manifest and a duplicate id are load problems; the other manifests still load', () => {
    const set = new ContextSet([manifest(1), { file: 'broken.json', manifest: { format: 0, name: 'no id' } }, { ...manifest(1), file: 'zz-copy.json' }])
    expect(set.ids()).toEqual([DEFAULT_CONTEXT_ID, contextId(1)])
    expect(set.loadProblems.map((problem) => problem.context)).toEqual(['broken.json', 'zz-copy.json'])
  })

  it('fields this build does not know are kept on the manifest (round-trip guarantee, §6 revision 2)', () => {
    const set = new ContextSet([manifest(1, { extra: { git_branch: 'main' } })])
    expect(set.view(contextId(1)).name).toBe('ctx-1')
    const parsed = (set as unknown as { manifests: Map<string, Record<string, unknown>> }).manifests.get(contextId(1))
    expect(parsed?.['git_branch']).toBe('main')
  })
})

describe('spec §6 contexts in the breakdown', () => {
  it('a degraded context is projected as the default: its pins are ignored and the header carries the error', () => {
    const ledger = new HandLedger()
    const e0 = ledger.revision(ELENA, 'Elena v1')
    ledger.transform([e0], [], { type: 'human' })
    const s0 = ledger.revision(SCENE, 'chapter 3')
    ledger.transform([s0], [{ object: ELENA, revision: e0.revision }])
    const e1 = ledger.revision(ELENA, 'Elena v2', [e0.revision])
    ledger.transform([e1], [], { type: 'human' })
    // Pinned at e0 the edge would be fresh; the cycle makes the context all-live, so it is version-stale.
    const manifests = [manifest(1, { parent: 2, selections: { [ELENA]: e0.revision } }), manifest(2, { parent: 1 })]
    const projection = new CoherenceProjection(ledger.entries, manifests)
    const breakdown = projection.breakdown({ context: contextId(1), now: new Date('2026-07-18T12:00:00Z') })
    expect(breakdown.context.degraded).toBe(true)
    expect(breakdown.context.errors.join(' ')).toMatch(/loops/)
    expect(breakdown.rows.map((row) => row.state)).toEqual(['version-stale'])
    // The same pin without the cycle: fresh, so nothing to list.
    const healthy = new CoherenceProjection(ledger.entries, [manifest(1, { selections: { [ELENA]: e0.revision } })])
    expect(healthy.breakdown({ context: contextId(1), now: new Date('2026-07-18T12:00:00Z') }).rows).toEqual([])
  })
})
