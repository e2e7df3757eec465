import { describe, expect, it } from 'vitest'
import { RevisionDag } from '../../../core/coherence/model/dag.js'
import type { LedgerEntry } from '../../../core/coherence/model/entries.js'
import { ELENA, HandLedger, SCENE } from './handLedger.js'

describe('spec §2.3 / §9.3 the revision DAG', () => {
  it('heads are the revisions with no children, per object; a linear history has one', () => {
    const ledger = new HandLedger()
    const a = ledger.revision(ELENA, 'A')
    const b = ledger.revision(ELENA, 'B', [a.revision])
    const s = ledger.revision(SCENE, 'S')
    ledger.transform([a], [], { type: 'human' })
    ledger.transform([b], [], { type: 'human' })
    ledger.transform([s], [], { type: 'human' })
    const dag = RevisionDag.fromEntries(ledger.entries)
    expect(dag.heads(ELENA)).toEqual([b.revision])
    expect(dag.heads(SCENE)).toEqual([s.revision])
    expect(dag.revisionCount(ELENA)).toBe(2)
    expect(dag.objects()).toEqual([ELENA, SCENE].sort())
  })

  it('two children of one revision make a multi-head object; a merge revision with both as parents joins them', () => {
    const ledger = new HandLedger()
    const a = ledger.revision(ELENA, 'A')
    const b = ledger.revision(ELENA, 'B', [a.revision])
    const c = ledger.revision(ELENA, 'C', [a.revision])
    ledger.transform([a], [], { type: 'human' })
    ledger.transform([b], [], { type: 'human' })
    ledger.transform([c], [], { type: 'human' })
    expect(RevisionDag.fromEntries(ledger.entries).heads(ELENA)).toEqual([b.revision, c.revision].sort())
    const merge = ledger.revision(ELENA, 'M', [c.revision, b.revision])
    ledger.transform([merge], [], { type: 'git', id: 'merge' })
    const dag = RevisionDag.fromEntries(ledger.entries)
    expect(dag.heads(ELENA)).toEqual([merge.revision])
    expect(dag.isStrictAncestor(ELENA, a.revision, merge.revision)).toBe(true)
    expect(dag.isStrictAncestor(ELENA, b.revision, c.revision)).toBe(false)
  })

  it('A → B → A is three revisions: the same content hash under different parents is a different revision', () => {
    const ledger = new HandLedger()
    const a = ledger.revision(ELENA, 'A')
    const b = ledger.revision(ELENA, 'B', [a.revision])
    const again = ledger.revision(ELENA, 'A', [b.revision])
    for (const revision of [a, b, again]) ledger.transform([revision], [], { type: 'human' })
    const dag = RevisionDag.fromEntries(ledger.entries)
    expect(again.revision).not.toBe(a.revision)
    expect(dag.heads(ELENA)).toEqual([again.revision])
    expect(dag.revisionsWithContent(ELENA, a.content_hash)).toEqual([a.revision, again.revision].sort())
  })

  it('strict ancestry: never reflexive, never backwards, false for revisions the object does not have', () => {
    const ledger = new HandLedger()
    const a = ledger.revision(ELENA, 'A')
    const b = ledger.revision(ELENA, 'B', [a.revision])
    ledger.transform([a], [], { type: 'human' })
    ledger.transform([b], [], { type: 'human' })
    const dag = RevisionDag.fromEntries(ledger.entries)
    expect(dag.isStrictAncestor(ELENA, a.revision, a.revision)).toBe(false)
    expect(dag.isStrictAncestor(ELENA, b.revision, a.revision)).toBe(false)
    expect(dag.isStrictAncestor(SCENE, a.revision, b.revision)).toBe(false)
  })

  it('the ancestor walk terminates on a malformed ledger whose parent links loop', () => {
    const x = `rev1:${'1'.repeat(64)}`
    const y = `rev1:${'2'.repeat(64)}`
    const missing = `rev1:${'3'.repeat(64)}`
    const entry = (id: string, revision: string, parents: string[]): LedgerEntry => ({
      format: 0,
      id,
      kind: 'transformation',
      time: '2026-07-18T09:00:00.000Z',
      writer: 'w',
      idem: id,
      body: { inputs: [], outputs: [{ object: ELENA, revision, content_hash: `sha256:${'0'.repeat(64)}`, parents }], agent: { type: 'human' }, intent: { kind: 'edit', summary: '' }, confidence: 'exact' },
    })
    const dag = RevisionDag.fromEntries([entry('1', x, [y]), entry('2', y, [x])])
    expect(dag.isStrictAncestor(ELENA, missing, x)).toBe(false)
    expect(dag.isStrictAncestor(ELENA, y, x)).toBe(true)
    // Both have a child: a loop has no head, which the projection reports as unpinnable rather than guessing.
    expect(dag.heads(ELENA)).toEqual([])
  })

  it('the same revision output twice (a provenance confirmation, §5.4.1a) is one node', () => {
    const ledger = new HandLedger()
    const a = ledger.revision(ELENA, 'A')
    ledger.transform([a], [], { type: 'human' })
    ledger.transform([a], [], { type: 'human' })
    const dag = RevisionDag.fromEntries(ledger.entries)
    expect(dag.revisionCount(ELENA)).toBe(1)
    expect(dag.heads(ELENA)).toEqual([a.revision])
  })

  it('only transformations build the DAG: other kinds, known and unknown, add nothing', () => {
    const ledger = new HandLedger()
    ledger.other('navigation', { git: { op: 'checkout', from: 'a', to: 'b', ref: 'main' } })
    ledger.other('anchor-moved', { object: ELENA, revision: `rev1:${'9'.repeat(64)}` })
    ledger.register(ELENA, 'characters/elena.md')
    expect(RevisionDag.fromEntries(ledger.entries).objects()).toEqual([])
  })
})
