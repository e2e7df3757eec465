import { describe, expect, it } from 'vitest'
import { CoherenceProjection } from '../../../core/coherence/model/breakdown.js'
import { composeEntry, parseLedgerLine } from '../../../core/coherence/index.js'
import { plannedEntries, reconcile, type ScannedFile } from '../../../core/coherence/model/reconcile.js'
import { ELENA, HandLedger, SCENE, WORLD, WRITER, contentHash, revisionId } from './handLedger.js'

const NOW = new Date('2026-07-18T12:00:00Z')
const IMAGE = '0198c0de-0000-7000-8000-0000000000e1'

/** Elena's sheet and chapter 3, both captured once, chapter 3 derived from the sheet. */
function workspace() {
  const ledger = new HandLedger()
  ledger.register(ELENA, 'characters/elena.md', 'character')
  ledger.register(SCENE, 'scenes/chapter-3.md')
  const e0 = ledger.revision(ELENA, 'Elena v1')
  ledger.transform([e0], [], { type: 'human' })
  const s0 = ledger.revision(SCENE, 'chapter 3')
  ledger.transform([s0], [{ object: ELENA, revision: e0.revision }])
  const files: ScannedFile[] = [
    { path: 'characters/elena.md', isSymlink: false, contentHash: e0.content_hash, vmarkId: ELENA, schema: 'character' },
    { path: 'scenes/chapter-3.md', isSymlink: false, contentHash: s0.content_hash, vmarkId: SCENE },
    { path: 'notes/todo.md', isSymlink: false, contentHash: contentHash('todo'), vmarkId: null },
  ]
  return { ledger, e0, s0, files }
}

const withFile = (files: ScannedFile[], path: string, change: Partial<ScannedFile>) => files.map((file) => (file.path === path ? { ...file, ...change } : file))

describe('spec §9.4 scan reconciliation', () => {
  it('known objects with unchanged content: nothing to record; files without identity are ignored', () => {
    const { ledger, files } = workspace()
    const outcome = reconcile(new CoherenceProjection(ledger.entries), files)
    expect(outcome).toMatchObject({ deferred: false, navigation: null, registrations: [], revisions: [], navigated: [], absent: [], held: [], diagnostics: [] })
    expect(outcome.unchanged.map((entry) => entry.path)).toEqual(['characters/elena.md', 'scenes/chapter-3.md'])
    expect(outcome.ignored).toEqual(['notes/todo.md'])
  })

  it('external edit: an observed-external transformation whose parent is the last known revision', () => {
    const { ledger, e0, files } = workspace()
    const edited = contentHash('Elena, edited in another editor')
    const outcome = reconcile(new CoherenceProjection(ledger.entries), withFile(files, 'characters/elena.md', { contentHash: edited }))
    expect(outcome.revisions).toEqual([{ object: ELENA, path: 'characters/elena.md', contentHash: edited, parents: [e0.revision], origin: 'external' }])
    expect(outcome.registrations).toEqual([])
  })

  it('external edit of a multi-head object: the new revision’s parents are all the heads', () => {
    const { ledger, e0, files } = workspace()
    const b = ledger.revision(ELENA, 'B', [e0.revision])
    const c = ledger.revision(ELENA, 'C', [e0.revision])
    ledger.transform([b], [], { type: 'human' })
    ledger.transform([c], [], { type: 'human' })
    const outcome = reconcile(new CoherenceProjection(ledger.entries), withFile(files, 'characters/elena.md', { contentHash: contentHash('D') }))
    expect(outcome.revisions[0]?.parents).toEqual([b.revision, c.revision].sort())
  })

  it('content equal to one head of a multi-head object is unchanged', () => {
    const { ledger, e0, files } = workspace()
    const b = ledger.revision(ELENA, 'B', [e0.revision])
    const c = ledger.revision(ELENA, 'C', [e0.revision])
    ledger.transform([b], [], { type: 'human' })
    ledger.transform([c], [], { type: 'human' })
    const outcome = reconcile(new CoherenceProjection(ledger.entries), withFile(files, 'characters/elena.md', { contentHash: c.content_hash }))
    expect(outcome.revisions).toEqual([])
  })

  it('git mutation (revert, merge): a git transformation with the heads as parents', () => {
    const { ledger, e0, files } = workspace()
    const outcome = reconcile(new CoherenceProjection(ledger.entries), withFile(files, 'characters/elena.md', { contentHash: contentHash('reverted') }), { kind: 'mutation' })
    expect(outcome.revisions).toEqual([{ object: ELENA, path: 'characters/elena.md', contentHash: contentHash('reverted'), parents: [e0.revision], origin: 'git' }])
  })

  it('git navigation: one navigation entry and no revision minted (R18)', () => {
    const { ledger, files } = workspace()
    const git = { kind: 'navigation', op: 'checkout', from: 'a1', to: 'b2', ref: 'main' } as const
    const outcome = reconcile(new CoherenceProjection(ledger.entries), withFile(files, 'characters/elena.md', { contentHash: contentHash('other branch') }), git)
    expect(outcome.navigation).toEqual(git)
    expect(outcome.revisions).toEqual([])
    expect(outcome.navigated).toEqual([{ object: ELENA, path: 'characters/elena.md' }])
  })

  it('a merge in progress defers the whole scan', () => {
    const { ledger, files } = workspace()
    const outcome = reconcile(new CoherenceProjection(ledger.entries), withFile(files, 'characters/elena.md', { contentHash: contentHash('conflicted') }), { kind: 'merge-in-progress' })
    expect(outcome).toMatchObject({ deferred: true, revisions: [], absent: [], registrations: [] })
  })

  it('moved file: the same vmark.id at a new path re-registers the path, no revision minted', () => {
    const { ledger, files } = workspace()
    const outcome = reconcile(new CoherenceProjection(ledger.entries), withFile(files, 'characters/elena.md', { path: 'cast/elena.md' }))
    expect(outcome.registrations).toEqual([{ object: ELENA, path: 'cast/elena.md', schema: 'character', reason: 'moved' }])
    expect(outcome.revisions).toEqual([])
    expect(outcome.absent).toEqual([])
  })

  it('moved and edited: re-registered and an external transformation', () => {
    const { ledger, files } = workspace()
    const outcome = reconcile(new CoherenceProjection(ledger.entries), withFile(files, 'characters/elena.md', { path: 'cast/elena.md', contentHash: contentHash('moved + edited') }))
    expect(outcome.registrations.map((registration) => registration.reason)).toEqual(['moved'])
    expect(outcome.revisions.map((revision) => revision.path)).toEqual(['cast/elena.md'])
  })

  it('an observed schema change re-registers the object (§5.4.6); schema edits never mint revisions', () => {
    const { ledger, files } = workspace()
    const outcome = reconcile(new CoherenceProjection(ledger.entries), withFile(files, 'characters/elena.md', { schema: 'protagonist' }))
    expect(outcome.registrations).toEqual([{ object: ELENA, path: 'characters/elena.md', schema: 'protagonist', reason: 'schema-changed' }])
    expect(outcome.revisions).toEqual([])
  })

  it('deleted file: no entry; the object is absent and the breakdown hides its edges', () => {
    const { ledger, e0, files } = workspace()
    ledger.transform([ledger.revision(ELENA, 'Elena v2', [e0.revision])], [], { type: 'human' })
    const projection = new CoherenceProjection(ledger.entries)
    expect(projection.breakdown({ now: NOW }).rows).toHaveLength(1)
    const outcome = reconcile(projection, files.filter((file) => file.path !== 'characters/elena.md'))
    expect(outcome.absent).toEqual([ELENA])
    expect(outcome.revisions).toEqual([])
    expect(outcome.registrations).toEqual([])
    expect(projection.breakdown({ now: NOW, absent: new Set(outcome.absent) }).rows).toEqual([])
    expect(projection.status({ now: NOW, absent: new Set(outcome.absent) })).toEqual({ objects: 1, open_items: 0 })
  })

  it('symlinks are skipped with a diagnostic, never followed', () => {
    const { ledger, files } = workspace()
    const outcome = reconcile(new CoherenceProjection(ledger.entries), [...files, { path: 'escape.md', isSymlink: true }])
    expect(outcome.diagnostics).toEqual([{ code: 'symlink-skipped', path: 'escape.md', message: 'symlinks are never followed', alreadyRecorded: false }])
    expect(outcome.ignored).not.toContain('escape.md')
  })

  it('a symlink carrying a known id is still skipped: the object it points at is absent unless found for real', () => {
    const { ledger, files } = workspace()
    const outcome = reconcile(
      new CoherenceProjection(ledger.entries),
      files.map((file) => (file.path === 'characters/elena.md' ? { ...file, isSymlink: true } : file)),
    )
    expect(outcome.absent).toEqual([ELENA])
    expect(outcome.diagnostics.map((diagnostic) => diagnostic.code)).toEqual(['symlink-skipped'])
  })

  it('unreadable and invalid UTF-8 files: a diagnostic each, skipped', () => {
    const { ledger, files } = workspace()
    const outcome = reconcile(new CoherenceProjection(ledger.entries), [
      ...files,
      { path: 'broken.md', isSymlink: false, unreadable: { code: 'invalid-utf8', message: 'expected UTF-8 text' } },
      { path: 'locked.md', isSymlink: false, unreadable: { code: 'unreadable', message: 'EACCES' } },
    ])
    expect(outcome.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.path])).toEqual([
      ['invalid-utf8', 'broken.md'],
      ['unreadable', 'locked.md'],
    ])
  })

  it('a diagnostic already in the ledger for the same code and path is marked recorded (scans do not repeat it)', () => {
    const { ledger, files } = workspace()
    ledger.diagnostic('symlink-skipped', 'escape.md')
    const outcome = reconcile(new CoherenceProjection(ledger.entries), [...files, { path: 'escape.md', isSymlink: true }])
    expect(outcome.diagnostics[0]?.alreadyRecorded).toBe(true)
  })

  it('two files carrying one vmark.id: a duplicate-id diagnostic for each, a capture-hold, nothing else decided', () => {
    const { ledger, files } = workspace()
    const copy: ScannedFile = { path: 'scenes/chapter-3 copy.md', isSymlink: false, contentHash: contentHash('edited copy'), vmarkId: SCENE }
    const outcome = reconcile(new CoherenceProjection(ledger.entries), [...files, copy])
    expect(outcome.held).toEqual([{ object: SCENE, paths: ['scenes/chapter-3 copy.md', 'scenes/chapter-3.md'] }])
    expect(outcome.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.path])).toEqual([
      ['duplicate-id', 'scenes/chapter-3 copy.md'],
      ['duplicate-id', 'scenes/chapter-3.md'],
    ])
    expect(outcome.revisions).toEqual([])
    expect(outcome.absent).toEqual([])
  })

  it('an id unknown to this ledger is adopted: object-registered plus an observed-external root transformation', () => {
    const { ledger, files } = workspace()
    const imported: ScannedFile = { path: 'world/rules.md', isSymlink: false, contentHash: contentHash('world rules'), vmarkId: WORLD, schema: 'rules' }
    const outcome = reconcile(new CoherenceProjection(ledger.entries), [...files, imported])
    expect(outcome.registrations).toEqual([{ object: WORLD, path: 'world/rules.md', schema: 'rules', reason: 'adopted' }])
    expect(outcome.revisions).toEqual([{ object: WORLD, path: 'world/rules.md', contentHash: contentHash('world rules'), parents: [], origin: 'external' }])
  })

  it('a binary is known by its registered path (it carries no frontmatter); its schema comes from the ledger', () => {
    const { ledger, files } = workspace()
    ledger.register(IMAGE, 'art/elena-ref.png', 'image')
    const png = ledger.revision(IMAGE, 'png bytes')
    ledger.transform([png], [], { type: 'human' })
    const scanned: ScannedFile = { path: 'art/elena-ref.png', isSymlink: false, binary: true, contentHash: png.content_hash }
    const unchanged = reconcile(new CoherenceProjection(ledger.entries), [...files, scanned])
    expect(unchanged).toMatchObject({ registrations: [], revisions: [], absent: [] })
    const edited = reconcile(new CoherenceProjection(ledger.entries), [...files, { ...scanned, contentHash: contentHash('new png') }])
    expect(edited.revisions).toEqual([{ object: IMAGE, path: 'art/elena-ref.png', contentHash: contentHash('new png'), parents: [png.revision], origin: 'external' }])
  })

  it('a registered object with no revision yet (its capture was lost) gets an observed-external root, history gap-free', () => {
    const { ledger, files } = workspace()
    ledger.register(WORLD, 'world/rules.md')
    const outcome = reconcile(new CoherenceProjection(ledger.entries), [...files, { path: 'world/rules.md', isSymlink: false, contentHash: contentHash('rules'), vmarkId: WORLD }])
    expect(outcome.registrations).toEqual([])
    expect(outcome.revisions).toEqual([{ object: WORLD, path: 'world/rules.md', contentHash: contentHash('rules'), parents: [], origin: 'external' }])
  })

  it('the outcome does not depend on the order the scanner listed the files in', () => {
    const { ledger, files } = workspace()
    const all: ScannedFile[] = [
      ...withFile(files, 'characters/elena.md', { contentHash: contentHash('edited') }),
      { path: 'world/rules.md', isSymlink: false, contentHash: contentHash('world rules'), vmarkId: WORLD },
      { path: 'escape.md', isSymlink: true },
    ]
    const projection = new CoherenceProjection(ledger.entries)
    expect(reconcile(projection, [...all].reverse())).toEqual(reconcile(projection, all))
  })
})

describe('spec §9.4 reconciliation → the entries to append', () => {
  it('navigation first, then per path the registration before the revision, then new diagnostics; every line a valid format-0 entry', () => {
    const { ledger, e0, files } = workspace()
    ledger.diagnostic('symlink-skipped', 'old-link.md')
    const scan: ScannedFile[] = [
      ...withFile(files, 'characters/elena.md', { path: 'cast/elena.md', contentHash: contentHash('Elena, moved and edited') }),
      { path: 'world/rules.md', isSymlink: false, contentHash: contentHash('world rules'), vmarkId: WORLD },
      { path: 'old-link.md', isSymlink: true },
      { path: 'new-link.md', isSymlink: true },
    ]
    const projection = new CoherenceProjection(ledger.entries)
    const planned = plannedEntries(reconcile(projection, scan, { kind: 'mutation' }), revisionId)
    expect(planned.map((entry) => [entry.kind, 'path' in entry.body ? entry.body.path : entry.kind === 'transformation' ? entry.body.outputs[0]?.object : ''])).toEqual([
      ['object-registered', 'cast/elena.md'],
      ['transformation', ELENA],
      ['object-registered', 'world/rules.md'],
      ['transformation', WORLD],
      ['diagnostic', 'new-link.md'],
    ])
    const edit = planned[1]!
    expect(edit.kind === 'transformation' && edit.body).toMatchObject({
      inputs: [],
      outputs: [{ object: ELENA, revision: revisionId(contentHash('Elena, moved and edited'), [e0.revision]), parents: [e0.revision] }],
      agent: { type: 'git' },
      confidence: 'unknown',
    })
    const root = planned[3]!
    expect(root.kind === 'transformation' && root.body).toMatchObject({ outputs: [{ object: WORLD, parents: [] }], agent: { type: 'external' }, confidence: 'unknown' })
    for (const entry of planned) {
      const line = JSON.stringify(composeEntry(entry.kind, entry.body as never, { writer: WRITER }))
      expect(parseLedgerLine(line).status).toBe('entry')
    }
  })

  it('a git navigation plans its one navigation entry and no revision; a deferred scan plans nothing', () => {
    const { ledger, files } = workspace()
    const projection = new CoherenceProjection(ledger.entries)
    const changed = withFile(files, 'characters/elena.md', { contentHash: contentHash('other branch') })
    expect(plannedEntries(reconcile(projection, changed, { kind: 'navigation', op: 'checkout', from: 'a1', to: 'b2' }), revisionId)).toEqual([
      { kind: 'navigation', body: { git: { op: 'checkout', from: 'a1', to: 'b2' } } },
    ])
    expect(plannedEntries(reconcile(projection, changed, { kind: 'merge-in-progress' }), revisionId)).toEqual([])
  })
})
