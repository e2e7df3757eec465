import { describe, expect, it } from 'vitest'
import { CoherenceProjection, type ProjectedEdge } from '../../../core/coherence/model/breakdown.js'
import { RevisionDag } from '../../../core/coherence/model/dag.js'
import type { LedgerEntry } from '../../../core/coherence/model/entries.js'
import { EdgeRecords, originEdges, projectEdge } from '../../../core/coherence/model/staleness.js'
import { ContextSet } from '../../../core/coherence/model/contexts.js'
import { HandLedger, uuid } from './handLedger.js'

/**
 * The projection answers from indexes (transformations by output revision and by id, ancestor sets of heads, rows
 * grouped by path); these tests hold each answer to the plain definition it replaces — every origin edge projected
 * one by one, one sort by the whole row key, the spec's bounded breadth-first ancestor walk — on ledgers made at
 * random with the shapes that make indexes go wrong: forks, merges, several outputs, one path for two objects,
 * objects never registered, pinned contexts, absent objects, resolutions.
 */

const NOW = new Date('2026-07-20T12:00:00Z')
const PINNED_CONTEXT = '0198c0de-0000-7000-8000-0000000c0c01'

function seeded(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

interface RandomWorkspace {
  readonly entries: LedgerEntry[]
  readonly objects: readonly string[]
  readonly manifests: ReadonlyArray<{ file: string; manifest: unknown }>
}

function randomWorkspace(seed: number): RandomWorkspace {
  const rand = seeded(seed)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T
  const ledger = new HandLedger()
  const objects = Array.from({ length: 8 }, (_, n) => uuid('0198c0de', 0x100 + n))
  // Objects 0 and 1 share a path, object 7 is never registered.
  objects.slice(0, 7).forEach((object, n) => ledger.register(object, n < 2 ? 'shared/one.md' : `notes/${String.fromCharCode(104 - n)}.md`))
  const revisions = new Map<string, string[]>(objects.map((object) => [object, []]))
  const transformations: Array<{ id: string; inputs: Array<{ object: string; revision: string }> }> = []
  let texts = 0
  for (let step = 0; step < 60; step++) {
    const outputs = [pick(objects)]
    if (rand() < 0.15) outputs.push(pick(objects))
    const refs = outputs.map((object) => {
      const history = revisions.get(object) as string[]
      // Mostly a linear history; sometimes a fork (a parent that is not the newest), sometimes a merge of two.
      const parents = history.length === 0 ? [] : rand() < 0.2 ? [pick(history)] : rand() < 0.1 && history.length > 1 ? [pick(history), history.at(-1) as string] : [history.at(-1) as string]
      const ref = ledger.revision(object, `text ${texts++}`, [...new Set(parents)])
      history.push(ref.revision)
      return ref
    })
    const inputs: Array<{ object: string; revision: string; role?: 'direct' | 'contextual' }> = []
    for (let n = Math.floor(rand() * 4); n > 0; n--) {
      const upstream = pick(objects)
      const history = revisions.get(upstream) as string[]
      if (history.length === 0) continue
      inputs.push({ object: upstream, revision: pick(history), ...(rand() < 0.1 ? { role: 'contextual' as const } : {}) })
    }
    const id = ledger.transform(refs, inputs)
    transformations.push({ id, inputs })
    if (rand() < 0.3 && transformations.length > 0) {
      const target = pick(transformations)
      if (target.inputs.length > 0) {
        const input = Math.floor(rand() * target.inputs.length)
        const pin = target.inputs[input] as { object: string; revision: string }
        const against = pick(revisions.get(pin.object) as string[])
        if (rand() < 0.5) ledger.ratify(target.id, input, pin.object, pin.revision, against)
        else ledger.waive(target.id, input, pin.object, pin.revision, against, rand() < 0.5 ? { expires: '2026-07-19T00:00:00Z' } : {})
      }
    }
  }
  const selections: Record<string, string> = {}
  for (const object of objects.slice(0, 4)) {
    const history = revisions.get(object) as string[]
    if (history.length > 0) selections[object] = pick(history)
  }
  const manifests = [{ file: 'pinned.json', manifest: { format: 0, id: PINNED_CONTEXT, name: 'pinned', parent: null, selections } }]
  return { entries: ledger.entries, objects, manifests }
}

const rowKey = (projection: CoherenceProjection, { edge }: ProjectedEdge): string[] => [
  projection.pathOf(edge.downstream) ?? '',
  edge.txf,
  String(edge.input).padStart(10, '0'),
  edge.downstream,
  edge.downstreamRev,
]

function compareKeys(a: readonly string[], b: readonly string[]): number {
  for (let index = 0; index < a.length; index++) {
    if (a[index] !== b[index]) return (a[index] as string) < (b[index] as string) ? -1 : 1
  }
  return 0
}

/** The definition: every origin edge of every transformation, projected one by one, then one sort by the row key. */
function everyEdgeProjected(workspace: RandomWorkspace, projection: CoherenceProjection, options: { context?: string; absent?: ReadonlySet<string> }): ProjectedEdge[] {
  const dag = RevisionDag.fromEntries(workspace.entries)
  const records = new EdgeRecords(workspace.entries)
  const context = new ContextSet(workspace.manifests).view(options.context ?? '00000000-0000-0000-0000-000000000000')
  const moment = { claimsFingerprint: projection.claims.fingerprint(context.visibleClaims), now: NOW }
  const absent = options.absent ?? new Set<string>()
  const rows: ProjectedEdge[] = []
  for (const edge of originEdges(workspace.entries)) {
    if (absent.has(edge.downstream) || absent.has(edge.upstream)) continue
    const projected = projectEdge(edge, context, dag, records, moment)
    if (projected !== null) rows.push({ edge, projection: projected })
  }
  return rows.sort((a, b) => compareKeys(rowKey(projection, a), rowKey(projection, b)))
}

/** Spec §9.3 as written: breadth-first from the descendant along parent links, bounded by the revision count. */
function walkedAncestor(entries: readonly LedgerEntry[], object: string, ancestor: string, descendant: string): boolean {
  const parents = new Map<string, readonly string[]>()
  for (const entry of entries) {
    if (entry.kind !== 'transformation') continue
    for (const output of (entry.body as { outputs: Array<{ object: string; revision: string; parents: string[] }> }).outputs) {
      if (output.object === object && !parents.has(output.revision)) parents.set(output.revision, output.parents)
    }
  }
  if (ancestor === descendant || !parents.has(descendant)) return false
  const seen = new Set([descendant])
  let frontier = [...(parents.get(descendant) as readonly string[])]
  let budget = parents.size
  while (frontier.length > 0 && budget > 0) {
    const next: string[] = []
    for (const revision of frontier) {
      if (revision === ancestor) return true
      if (seen.has(revision)) continue
      seen.add(revision)
      budget -= 1
      next.push(...(parents.get(revision) ?? []))
    }
    frontier = next
  }
  return false
}

describe('indexed projection queries give the answers of their definitions', () => {
  const seeds = Array.from({ length: 25 }, (_, n) => n + 1)

  it('liveEdges: the edges of projecting every origin edge, in the order of one sort by the whole row key', () => {
    for (const seed of seeds) {
      const workspace = randomWorkspace(seed)
      const projection = new CoherenceProjection(workspace.entries, workspace.manifests)
      for (const options of [{}, { context: PINNED_CONTEXT }, { absent: new Set([workspace.objects[2] as string, workspace.objects[7] as string]) }]) {
        expect(projection.liveEdges({ ...options, now: NOW }), `seed ${seed}`).toEqual(everyEdgeProjected(workspace, projection, options))
      }
    }
  })

  it('liveEdgesOf(txf, input): exactly the live edges of that (txf, input), for every input of every transformation', () => {
    for (const seed of seeds) {
      const workspace = randomWorkspace(seed)
      const projection = new CoherenceProjection(workspace.entries, workspace.manifests)
      for (const options of [{ now: NOW }, { now: NOW, context: PINNED_CONTEXT }, { now: NOW, absent: new Set([workspace.objects[1] as string]) }]) {
        const live = projection.liveEdges(options)
        for (const entry of workspace.entries) {
          if (entry.kind !== 'transformation') continue
          const inputs = (entry.body as { inputs: unknown[] }).inputs.length
          for (let input = 0; input <= inputs; input++) {
            expect(projection.liveEdgesOf(entry.id, input, options), `seed ${seed}, ${entry.id}#${input}`).toEqual(live.filter(({ edge }) => edge.txf === entry.id && edge.input === input))
          }
        }
      }
      expect(projection.liveEdgesOf(uuid('0198c0ff', 1), 0, { now: NOW })).toEqual([])
    }
  })

  it('isStrictAncestor: the bounded breadth-first walk, for every pair of revisions, heads included', () => {
    for (const seed of seeds) {
      const workspace = randomWorkspace(seed)
      const dag = RevisionDag.fromEntries(workspace.entries)
      for (const object of dag.objects()) {
        const all = workspace.entries.flatMap((entry) =>
          entry.kind === 'transformation' ? (entry.body as { outputs: Array<{ object: string; revision: string }> }).outputs.filter((output) => output.object === object).map((output) => output.revision) : [],
        )
        for (const descendant of all) {
          for (const ancestor of all) {
            expect(dag.isStrictAncestor(object, ancestor, descendant), `seed ${seed}`).toBe(walkedAncestor(workspace.entries, object, ancestor, descendant))
          }
        }
      }
    }
  })

  it('isStrictAncestor from a head on a malformed history: the walk budget cuts off the same revisions', () => {
    // A head whose parents are many revisions no segment here holds: the budget (the revision count) runs out in the
    // first frontier, so a recorded revision further back is not found — by the walk, nor by the head's index.
    const object = uuid('0198c0de', 0x200)
    const dangling = Array.from({ length: 5 }, (_, n) => `rev1:${String(n).repeat(64)}`)
    const old = `rev1:${'a'.repeat(64)}`
    const middle = `rev1:${'b'.repeat(64)}`
    const head = `rev1:${'c'.repeat(64)}`
    const entry = (n: number, revision: string, parents: string[]): LedgerEntry => ({
      format: 0,
      id: uuid('0198c0a0', n),
      kind: 'transformation',
      time: '2026-07-18T09:00:00.000Z',
      writer: uuid('0198c0de', 1),
      idem: uuid('0198c0b0', n),
      body: { inputs: [], outputs: [{ object, revision, content_hash: `sha256:${'0'.repeat(64)}`, parents }], agent: { type: 'human' }, intent: { kind: 'edit', summary: '' }, confidence: 'exact' },
    })
    const entries = [entry(1, old, []), entry(2, middle, [old]), entry(3, head, [...dangling, middle])]
    const dag = RevisionDag.fromEntries(entries)
    expect(dag.heads(object)).toEqual([head])
    for (const ancestor of [old, middle, ...dangling, head]) {
      expect(dag.isStrictAncestor(object, ancestor, head), ancestor).toBe(walkedAncestor(entries, object, ancestor, head))
    }
    expect(walkedAncestor(entries, object, old, head)).toBe(false)
  })
})

describe('the capture index answers as the projection does, built at once or extended entry by entry', () => {
  it('heads, revisions with a content hash, pathOf, objectAt and hasDiagnostic on random ledgers', async () => {
    const { CaptureIndex } = await import('../../../core/coherence/model/captureIndex.js')
    for (let seed = 1; seed <= 25; seed++) {
      const workspace = randomWorkspace(seed)
      const projection = new CoherenceProjection(workspace.entries)
      const whole = new CaptureIndex(workspace.entries)
      const grown = new CaptureIndex()
      // In the order the reader would not guarantee: reversed, one entry at a time.
      for (const entry of [...workspace.entries].reverse()) grown.apply([entry])
      for (const index of [whole, grown]) {
        for (const object of workspace.objects) {
          expect(index.heads(object), `seed ${seed}`).toEqual([...projection.dag.heads(object)].sort())
          expect(index.pathOf(object)).toBe(projection.pathOf(object))
          for (const head of projection.dag.heads(object)) {
            const hash = projection.dag.revision(object, head)!.contentHash
            expect(index.contentHashOf(object, head)).toBe(hash)
            expect(new Set(index.revisionsWithContent(object, hash))).toEqual(new Set(projection.dag.revisionsWithContent(object, hash)))
          }
        }
        for (const path of ['shared/one.md', 'notes/h.md', 'notes/c.md', 'nowhere.md']) expect(index.objectAt(path)).toBe(projection.objectAt(path))
      }
    }
  })
})
