import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { CoherenceProjection } from '../../../core/coherence/model/breakdown.js'
import { DEFAULT_CONTEXT_ID } from '../../../core/coherence/model/contexts.js'
import type { LedgerEntry } from '../../../core/coherence/model/entries.js'
import { NON_FRESH_STATES } from '../../../core/coherence/model/staleness.js'
import { fuzzParameters } from '../../support/fuzz.js'
import { ELENA, EMPTY_FEED, HandLedger, SCENE, WORLD } from './handLedger.js'

const NOW = new Date('2026-07-18T12:00:00Z')
const OBJECTS = [ELENA, WORLD, SCENE, '0198c0de-0000-7000-8000-0000000000e4']
const PINNED = '0198c0de-0000-7000-8000-0000000000c9'

type Step =
  | { kind: 'revision'; object: number; parents: Parents; inputs: Array<{ object: number; revision: number; contextual: boolean }> }
  | { kind: 'resolution'; waiver: boolean; txf: number; input: number; against: number; expired: boolean; at: number | null }
  | { kind: 'check'; txf: number; input: number; against: number; verdict: 'no-contradiction' | 'contradiction' | 'unknown'; live: boolean }

/** How a new revision relates to its object's history: mostly the next edit, sometimes a fork, a merge or a new root. */
type Parents = { kind: 'extend' } | { kind: 'fork'; from: number } | { kind: 'merge'; a: number; b: number } | { kind: 'root' }

const index = fc.nat({ max: 7 })
const parents: fc.Arbitrary<Parents> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'extend' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('fork' as const), from: index }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('merge' as const), a: index, b: index }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'root' as const }) },
)
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('revision' as const), object: fc.nat({ max: OBJECTS.length - 1 }), parents, inputs: fc.array(fc.record({ object: fc.nat({ max: OBJECTS.length - 1 }), revision: index, contextual: fc.boolean() }), { maxLength: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('resolution' as const), waiver: fc.boolean(), txf: index, input: fc.nat({ max: 2 }), against: index, expired: fc.boolean(), at: fc.option(fc.nat({ max: 3 }), { nil: null }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('check' as const), txf: index, input: fc.nat({ max: 2 }), against: index, verdict: fc.constantFrom('no-contradiction' as const, 'contradiction' as const, 'unknown' as const), live: fc.boolean() }) },
)

/** Writes a random but well-formed ledger: revisions extend existing ones (forks and merges included), resolutions and checks name real edges. */
function buildLedger(steps: readonly Step[]) {
  const ledger = new HandLedger()
  OBJECTS.forEach((object, n) => ledger.register(object, `files/${n}.md`))
  const revisions = new Map<string, string[]>(OBJECTS.map((object) => [object, []]))
  const transformations: Array<{ txf: string; inputs: Array<{ object: string; revision: string }> }> = []
  let text = 0
  for (const s of steps) {
    if (s.kind === 'revision') {
      const object = OBJECTS[s.object]!
      const own = revisions.get(object)!
      const pick = (n: number) => own[n % own.length]!
      const parents =
        own.length === 0 || s.parents.kind === 'root'
          ? []
          : s.parents.kind === 'extend'
            ? [own.at(-1)!]
            : s.parents.kind === 'fork'
              ? [pick(s.parents.from)]
              : [...new Set([pick(s.parents.a), pick(s.parents.b)])]
      const revision = ledger.revision(object, `text ${(text += 1)}`, parents)
      const inputs = s.inputs
        .filter((input) => input.object !== s.object && revisions.get(OBJECTS[input.object]!)!.length > 0)
        .map((input) => {
          const theirs = revisions.get(OBJECTS[input.object]!)!
          return { object: OBJECTS[input.object]!, revision: theirs[input.revision % theirs.length]!, role: input.contextual ? ('contextual' as const) : ('direct' as const) }
        })
      const txf = ledger.transform([revision], inputs, inputs.length === 0 ? { type: 'human' } : { type: 'model', id: 'claude-fable-5' })
      own.push(revision.revision)
      if (inputs.length > 0) transformations.push({ txf, inputs })
    } else {
      if (transformations.length === 0) continue
      const target = transformations[s.txf % transformations.length]!
      const input = s.input % target.inputs.length
      const upstream = target.inputs[input]!
      const theirs = revisions.get(upstream.object)!
      const against = theirs[s.against % theirs.length]!
      if (s.kind === 'check') {
        ledger.check(target.txf, input, upstream.revision, against, s.verdict, s.live ? { context: DEFAULT_CONTEXT_ID, fingerprint: EMPTY_FEED } : null)
      } else if (s.waiver) {
        ledger.waive(target.txf, input, upstream.object, upstream.revision, against, {
          ...(s.expired ? { expires: '2026-07-18T11:00:00Z' } : {}),
          // Some resolutions share one instant, so the id breaks the tie.
          ...(s.at === null ? {} : { at: `2026-07-18T10:00:0${s.at}.000Z` }),
        })
      } else {
        ledger.ratify(target.txf, input, upstream.object, upstream.revision, against, s.at === null ? undefined : `2026-07-18T10:00:0${s.at}.000Z`)
      }
    }
  }
  const pins = Object.fromEntries(OBJECTS.filter((_, n) => n % 2 === 0).flatMap((object) => (revisions.get(object)!.length > 0 ? [[object, revisions.get(object)![0]!]] : [])))
  const manifests = [{ file: 'pinned.json', manifest: { format: 0, id: PINNED, name: 'pinned', parent: null, selections: pins, visible_claims: [] } }]
  return { entries: ledger.entries, manifests }
}

/** A permutation of the entries, with some lines repeated (the same line in two segments after a union merge). */
const reordering = (size: number) => fc.record({ keys: fc.array(fc.double({ noNaN: true }), { minLength: size, maxLength: size }), repeats: fc.array(fc.nat({ max: Math.max(0, size - 1) }), { maxLength: 3 }) })

function reorder(entries: readonly LedgerEntry[], { keys, repeats }: { keys: number[]; repeats: number[] }): LedgerEntry[] {
  const shuffled = entries.map((entry, n) => ({ entry, key: keys[n] ?? 0 })).sort((a, b) => a.key - b.key).map(({ entry }) => entry)
  return [...shuffled, ...repeats.flatMap((n) => (entries[n] === undefined ? [] : [entries[n]]))]
}

describe('the coherence projection is a function of the set of entries (spec §5.1: order-independent)', () => {
  it('the breakdown, the status and every live edge state are independent of entry order and repeated lines, in every context', () => {
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 1, maxLength: 40 }).chain((steps) => {
          const built = buildLedger(steps)
          return fc.tuple(fc.constant(built), reordering(built.entries.length))
        }),
        ([{ entries, manifests }, order]) => {
          const inOrder = new CoherenceProjection(entries, manifests)
          const shuffled = new CoherenceProjection(reorder(entries, order), manifests)
          for (const context of [DEFAULT_CONTEXT_ID, PINNED]) {
            const options = { context, now: NOW }
            const breakdown = inOrder.breakdown(options)
            expect(shuffled.breakdown(options)).toEqual(breakdown)
            expect(shuffled.status(options)).toEqual(inOrder.status(options))
            expect(shuffled.stateMap(options)).toEqual(inOrder.stateMap(options))
            // The breakdown is exactly the non-fresh live edges, each state one of the eight (COH.EDGES.4, COH.STATUS.4).
            expect(inOrder.status(options).open_items).toBe(breakdown.rows.length)
            for (const row of breakdown.rows) expect(NON_FRESH_STATES).toContain(row.state)
            const nonFresh = [...inOrder.stateMap(options).values()].filter((state) => !state.startsWith('fresh'))
            expect(nonFresh).toHaveLength(breakdown.rows.length)
          }
        },
      ),
      fuzzParameters({ numRuns: 150 }),
    )
  })
})
