import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseDocument } from 'yaml'
import { isQuireError } from '../../core/errors.js'
import { applyPatches } from '../../core/workflow/applyPatches.js'
import type { IRPatch } from '../../core/workflow/patches.js'
import { fuzzParameters } from '../support/fuzz.js'

/**
 * Random workflows (comments on their own lines and after values, blank lines, an anchor and its alias, flow and
 * block collections, plain and quoted scalars, block scalars) and random patches of every kind. Checked: the result
 * parses to the original with exactly the intended change; every comment line survives verbatim; only one span of
 * the text changes; a set applied twice equals once; a refusal is always INVALID_PATCH and only for the
 * documented reasons.
 */

type Json = Record<string, unknown>

interface Step {
  readonly name: string | null
  readonly uses: boolean
  readonly withStyle: 'none' | 'block' | 'flow'
  readonly withKeys: readonly string[]
  readonly run: 'none' | 'literal' | 'plain'
  readonly comment: boolean
}

interface Job {
  readonly needs: 'none' | 'scalar' | 'flow' | 'block'
  readonly quoted: boolean
  readonly env: boolean
  readonly steps: readonly Step[]
  readonly blankAfter: boolean
}

interface Workflow {
  readonly header: boolean
  readonly nameStyle: 'plain' | 'single' | 'double' | 'none'
  readonly on: 'map' | 'scalar' | 'list'
  readonly branches: 'flow' | 'padded' | 'block' | 'none'
  readonly anchor: boolean
  readonly jobs: readonly Job[]
}

const step: fc.Arbitrary<Step> = fc.record({
  name: fc.option(fc.constantFrom('Check out', 'Build: all', "it's", 'true'), { nil: null }),
  uses: fc.boolean(),
  withStyle: fc.constantFrom('none' as const, 'block' as const, 'flow' as const),
  withKeys: fc.uniqueArray(fc.constantFrom('token', 'path', 'fetch-depth', 'key'), { maxLength: 3 }),
  run: fc.constantFrom('none' as const, 'literal' as const, 'plain' as const),
  comment: fc.boolean(),
})

const job: fc.Arbitrary<Job> = fc.record({
  needs: fc.constantFrom('none' as const, 'scalar' as const, 'flow' as const, 'block' as const),
  quoted: fc.boolean(),
  env: fc.boolean(),
  steps: fc.array(step, { minLength: 1, maxLength: 3 }),
  blankAfter: fc.boolean(),
})

const workflow: fc.Arbitrary<Workflow> = fc.record({
  header: fc.boolean(),
  nameStyle: fc.constantFrom('plain' as const, 'single' as const, 'double' as const, 'none' as const),
  on: fc.constantFrom('map' as const, 'scalar' as const, 'list' as const),
  branches: fc.constantFrom('flow' as const, 'padded' as const, 'block' as const, 'none' as const),
  anchor: fc.boolean(),
  jobs: fc.array(job, { minLength: 1, maxLength: 4 }),
})

const jobId = (index: number): string => ['build', 'test', 'lint', 'deploy'][index]!
const quote = (text: string): string => `'${text.replace(/'/g, "''")}'`

function render(w: Workflow): string {
  const lines: string[] = []
  if (w.header) lines.push('# Generated workflow', '')
  if (w.nameStyle === 'plain') lines.push('name: CI   # the name')
  if (w.nameStyle === 'single') lines.push("name: 'CI'")
  if (w.nameStyle === 'double') lines.push('name: "CI"  # double')
  if (w.on === 'scalar') lines.push('on: push')
  else if (w.on === 'list') lines.push('on: [push, pull_request]  # two triggers')
  else {
    lines.push('on:', '  push:')
    if (w.branches === 'flow') lines.push('    branches: [main, dev]')
    if (w.branches === 'padded') lines.push('    branches: [ main ]   # padded')
    if (w.branches === 'block') lines.push('    branches:', '      # protected', '      - main', "      - 'release/**'")
    lines.push('  pull_request:')
  }
  lines.push('')
  if (w.anchor) lines.push('env: &shared', "  NODE: '20'", '  COLOR: 1')
  lines.push('jobs:')
  w.jobs.forEach((j, index) => {
    lines.push(`  ${jobId(index)}:`)
    const earlier = Array.from({ length: index }, (_, i) => jobId(i))
    if (earlier.length > 0) {
      if (j.needs === 'scalar') lines.push(`    needs: ${earlier[0]}   # first`)
      if (j.needs === 'flow') lines.push(`    needs: [${earlier.join(', ')}]`)
      if (j.needs === 'block') lines.push('    needs:', ...earlier.map((id) => `      - ${id}`))
    }
    lines.push(j.quoted ? "    runs-on: 'ubuntu-latest'" : '    runs-on: ubuntu-latest')
    if (j.env && w.anchor) lines.push('    env: *shared')
    lines.push('    steps:')
    j.steps.forEach((s) => {
      if (s.comment) lines.push('      # a step')
      const keys: string[] = []
      if (s.name !== null) keys.push(`name: ${s.name === 'Check out' ? s.name : quote(s.name)}`)
      if (s.uses) keys.push('uses: actions/checkout@v4   # pinned')
      if (s.run === 'plain') keys.push('run: make')
      if (s.run === 'literal') keys.push('run: |', '  make', '', '  make test')
      if (s.withStyle === 'block' && s.withKeys.length > 0) keys.push('with:', ...s.withKeys.map((key, i) => `  ${key}: ${i % 2 === 0 ? 'value' : "'quoted'"}`))
      if (s.withStyle === 'flow') keys.push(`with: {${s.withKeys.map((key) => `${key}: v`).join(', ')}}`)
      if (keys.length === 0) keys.push('run: echo')
      keys.forEach((key, i) => lines.push(`${i === 0 ? '      - ' : '        '}${key}`))
    })
    if (j.blankAfter) lines.push('')
  })
  lines.push('# the end')
  return lines.join('\n') + '\n'
}

const plain = (text: string): Json => parseDocument(text, { version: '1.2' }).toJS({ maxAliasCount: -1 }) as Json

const patch = (jobs: number): fc.Arbitrary<IRPatch> => {
  const id = fc.nat(jobs).map(jobId)
  const stepIndex = fc.nat(3)
  const text = fc.constantFrom('x', 'two words', 'true', '42', 'a: b', '#tag', 'line\nbreak', "it's", '*star', '')
  const scalar = fc.oneof(text, fc.integer({ min: -5, max: 100 }), fc.boolean(), fc.constant(null))
  const list = fc.array(fc.constantFrom('main', 'dev', 'release/*', '**.md', 'a, b'), { maxLength: 3 })
  return fc.oneof(
    fc.record({ kind: fc.constant('workflow.set' as const), path: fc.constantFrom('name', 'env.NODE', 'env.NEW', 'concurrency.group', 'run-name'), value: fc.oneof(scalar, list) }),
    fc.record({ kind: fc.constant('job.set' as const), jobId: id, path: fc.constantFrom('runs-on', 'timeout-minutes', 'needs', 'if'), value: fc.oneof(scalar, list) }),
    fc.record({ kind: fc.constant('step.set' as const), jobId: id, stepIndex, path: fc.constantFrom('name', 'uses', 'run', 'with.token', 'id'), value: scalar }),
    fc.record({ kind: fc.constant('with.set' as const), jobId: id, stepIndex, key: fc.constantFrom('token', 'path', 'fresh'), value: scalar }),
    fc.record({ kind: fc.constant('with.remove' as const), jobId: id, stepIndex, key: fc.constantFrom('token', 'path', 'fetch-depth', 'key') }),
    fc.record({ kind: fc.constant('needs.add' as const), jobId: id, ref: id }),
    fc.record({ kind: fc.constant('needs.remove' as const), jobId: id, ref: id }),
    fc.record({ kind: fc.constant('trigger.setFilters' as const), event: fc.constantFrom('push', 'pull_request', 'release'), filter: fc.constantFrom('branches' as const, 'paths' as const), value: list }),
  )
}

/** The intended effect on the plain value, or the reason the patch must be refused. */
function intended(before: Json, p: IRPatch): Json | 'refused' {
  const after = structuredClone(before)
  const jobs = after.jobs as Record<string, Json>
  const step = (jobId: string, index: number): Json | undefined => (jobs[jobId]?.steps as Json[] | undefined)?.[index]
  const setPath = (root: Json, path: string, value: unknown, create: boolean): boolean => {
    const keys = path.split('.')
    let at = root
    for (const key of keys.slice(0, -1)) {
      if (at[key] === undefined || at[key] === null) {
        if (!create) return false
        at[key] = {}
      }
      if (typeof at[key] !== 'object' || Array.isArray(at[key])) return false
      at = at[key] as Json
    }
    at[keys[keys.length - 1]!] = value
    return true
  }
  switch (p.kind) {
    case 'workflow.set':
      return setPath(after, p.path as string, p.value, true) ? after : 'refused'
    case 'job.set':
      return jobs[p.jobId] && setPath(jobs[p.jobId]!, p.path as string, p.value, false) ? after : 'refused'
    case 'step.set': {
      const s = step(p.jobId, p.stepIndex)
      return s && setPath(s, p.path as string, p.value, false) ? after : 'refused'
    }
    case 'with.set': {
      const s = step(p.jobId, p.stepIndex)
      return s && setPath(s, `with.${p.key}`, p.value, true) ? after : 'refused'
    }
    case 'with.remove': {
      const s = step(p.jobId, p.stepIndex)
      const w = s?.with as Json | undefined
      if (!s || !w || !(p.key in w)) return 'refused'
      delete w[p.key]
      if (Object.keys(w).length === 0) delete s.with
      return after
    }
    case 'needs.add':
    case 'needs.remove': {
      const j = jobs[p.jobId]
      if (!j || !jobs[p.ref] || p.ref === p.jobId) return 'refused'
      const raw = j.needs
      if (!(raw === undefined || raw === null || typeof raw === 'string' || (Array.isArray(raw) && raw.every((need) => typeof need === 'string')))) return 'refused'
      const needs: string[] = raw === undefined || raw === null ? [] : Array.isArray(raw) ? raw : [raw]
      if (p.kind === 'needs.add') {
        if (!needs.includes(p.ref)) j.needs = [...needs, p.ref]
        return after
      }
      if (!needs.includes(p.ref)) return 'refused'
      const rest = needs.filter((need) => need !== p.ref)
      if (rest.length === 0) delete j.needs
      else j.needs = rest
      return after
    }
    case 'trigger.setFilters': {
      const on = after.on
      const events: string[] = typeof on === 'string' ? [on] : Array.isArray(on) ? on : Object.keys(on as Json)
      if (!events.includes(p.event)) return 'refused'
      const map: Json = typeof on === 'object' && on !== null && !Array.isArray(on) ? (on as Json) : Object.fromEntries(events.map((e) => [e, null]))
      if (p.value.length === 0) {
        if (map !== on) return after
        const filters = map[p.event] as Json | null
        if (filters) delete filters[p.filter]
        // The last filter removed leaves `event:` with no value (null: every such event), not `{}`.
        if (filters && Object.keys(filters).length === 0) map[p.event] = null
        return after
      }
      map[p.event] = { ...((map[p.event] as Json | null) ?? {}), [p.filter]: p.value }
      after.on = map
      return after
    }
  }
}

/** Jobs whose env is the alias of the top-level anchor: editing the anchored env changes them too. */
const aliasedEnv = (w: Workflow, p: IRPatch): boolean =>
  w.anchor && p.kind === 'job.set' && p.path.toString().startsWith('env')

describe('workflow.apply_patch (property)', () => {
  it('sets exactly the intended value, keeps every comment line, and changes one span of text', () => {
    const seen = { applied: 0, unchanged: 0, refused: 0 }
    fc.assert(
      fc.property(workflow.chain((w) => fc.tuple(fc.constant(w), fc.array(patch(w.jobs.length - 1), { minLength: 1, maxLength: 3 }))), ([w, patches]) => {
        let text = render(w)
        const original = text
        let value = plain(text)
        for (const p of patches) {
          const expected = aliasedEnv(w, p) ? 'refused' : intended(value, p)
          let out: string
          try {
            out = applyPatches(text, [p])
          } catch (error) {
            expect(isQuireError(error, 'INVALID_PATCH'), String(error)).toBe(true)
            expect(expected, `${JSON.stringify(p)} refused: ${(error as Error).message}\n${text}`).toBe('refused')
            seen.refused++
            continue
          }
          expect(expected, `${JSON.stringify(p)} applied\n${text}\n---\n${out}`).not.toBe('refused')
          if (out === text) seen.unchanged++
          else seen.applied++
          expect(plain(out), `${JSON.stringify(p)}\n${text}\n---\n${out}`).toEqual(expected)
          // Every comment line survives verbatim (a pair's own trailing comment may go with the pair).
          const kept = new Set(out.split('\n'))
          const replacesBranches = p.kind === 'trigger.setFilters' && p.event === 'push' && p.filter === 'branches'
          for (const line of text.split('\n')) {
            // The one comment inside a node a patch can replace is the one inside push.branches.
            if (/^\s*#/.test(line) && !(replacesBranches && line.trim() === '# protected')) expect(kept.has(line), line).toBe(true)
          }
          // One span changed: the rest is a common prefix and suffix of both texts.
          let prefix = 0
          while (prefix < text.length && text[prefix] === out[prefix]) prefix++
          let suffix = 0
          while (suffix < text.length - prefix && suffix < out.length - prefix && text.at(-1 - suffix) === out.at(-1 - suffix)) suffix++
          const changedLines = text.slice(prefix, text.length - suffix).split('\n').length
          expect(changedLines, `${JSON.stringify(p)}\n${text}\n---\n${out}`).toBeLessThanOrEqual(6)
          // Idempotent for sets; and a no-op returns the very same text.
          if (p.kind.endsWith('.set') || p.kind === 'needs.add' || p.kind === 'trigger.setFilters') expect(applyPatches(out, [p])).toBe(out)
          text = out
          value = plain(out)
        }
        expect(applyPatches(original, [])).toBe(original)
      }),
      fuzzParameters({ numRuns: 200 }),
    )
    console.log(`workflow property: ${JSON.stringify(seen)}`)
    expect(seen.applied).toBeGreaterThan(seen.refused / 2)
  })
})
