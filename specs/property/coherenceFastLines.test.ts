import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { judgeBySchemas, parseLedgerLine } from '../../core/coherence/entries.js'
import { fuzzParameters } from '../support/fuzz.js'

/**
 * The fast path for transformation lines (core/coherence/fastLines.ts) against the schemas it stands in for: on
 * well-formed transformations and on every way of spoiling one (a field missing, null, of the wrong type or shape,
 * upper-case UUIDs, a newer format, extra fields, another kind), `parseLedgerLine` — fast path first — gives the
 * verdict and the entry the schemas alone give.
 */

const hex = (length: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`))
const uuid = fc.tuple(hex(8), hex(4), hex(4), hex(4), hex(12)).map((parts) => parts.join('-'))
const revision = hex(64).map((digits) => `rev1:${digits}`)
const contentHash = hex(64).map((digits) => `sha256:${digits}`)
const time = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((date) => date.toISOString())

const transformation = fc.record({
  format: fc.constant(0),
  id: uuid,
  kind: fc.constant('transformation'),
  time,
  writer: uuid,
  idem: uuid,
  body: fc.record(
    {
      inputs: fc.array(fc.record({ object: uuid, revision, role: fc.constantFrom('direct', 'contextual'), kind: fc.constant('dependency') }, { requiredKeys: ['object', 'revision', 'role'] }), { maxLength: 3 }),
      outputs: fc.array(fc.record({ object: uuid, revision, content_hash: contentHash, parents: fc.array(revision, { maxLength: 2 }) }), { minLength: 1, maxLength: 2 }),
      agent: fc.record({ type: fc.constantFrom('human', 'model', 'external', 'git'), id: fc.string({ maxLength: 8 }) }, { requiredKeys: ['type'] }),
      intent: fc.record({ kind: fc.string({ maxLength: 8 }), summary: fc.string({ maxLength: 8 }), prompt_hash: contentHash }, { requiredKeys: ['kind', 'summary'] }),
      confidence: fc.constantFrom('exact', 'inferred', 'unknown'),
      extra: fc.jsonValue({ maxDepth: 1 }),
    },
    { requiredKeys: ['inputs', 'outputs', 'agent', 'intent', 'confidence'] },
  ),
})

type Json = Record<string, unknown>

/** Every path to a value inside a JSON tree. */
function paths(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (typeof value !== 'object' || value === null) return [prefix]
  const inner = Array.isArray(value) ? value.flatMap((item, index) => paths(item, [...prefix, index])) : Object.entries(value).flatMap(([key, item]) => paths(item, [...prefix, key]))
  return [prefix, ...inner]
}

const spoilers = fc.constantFrom<(value: unknown) => unknown>(
  () => undefined,
  () => null,
  () => 42,
  () => '',
  () => [],
  () => ({}),
  (value) => (typeof value === 'string' ? value.toUpperCase() : value),
  (value) => (typeof value === 'string' ? `${value} ` : value),
  (value) => (typeof value === 'number' ? value + 1 : value),
)

function spoil(entry: Json, path: ReadonlyArray<string | number>, spoiler: (value: unknown) => unknown): Json {
  const copy = structuredClone(entry)
  if (path.length === 0) return copy
  let parent: any = copy
  for (const key of path.slice(0, -1)) parent = parent[key]
  const last = path[path.length - 1]!
  const replaced = spoiler(parent[last])
  if (replaced === undefined) {
    if (Array.isArray(parent)) parent.splice(Number(last), 1)
    else delete parent[last]
  } else parent[last] = replaced
  return copy
}

function sameVerdict(line: string): void {
  const fast = parseLedgerLine(line)
  const schemas = judgeBySchemas(JSON.parse(line))
  expect(fast.status).toBe(schemas.status)
  if (fast.status === 'entry' && schemas.status === 'entry') expect(fast.entry).toEqual(schemas.entry)
}

describe('the transformation fast path judges as the schemas do', () => {
  it('well-formed transformations: the same entry', () => {
    fc.assert(
      fc.property(transformation, (entry) => {
        const line = JSON.stringify(entry)
        expect(parseLedgerLine(line).status).toBe('entry')
        sameVerdict(line)
      }),
      fuzzParameters({ numRuns: 300 }),
    )
  })

  it('a transformation spoiled anywhere: the same verdict (and the same entry when it is still one)', () => {
    fc.assert(
      fc.property(transformation, fc.nat(), spoilers, (entry, pick, spoiler) => {
        const every = paths(entry)
        sameVerdict(JSON.stringify(spoil(entry as Json, every[pick % every.length]!, spoiler)))
      }),
      fuzzParameters({ numRuns: 2000 }),
    )
  })
})
