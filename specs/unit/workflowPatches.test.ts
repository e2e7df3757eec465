import { describe, expect, it } from 'vitest'
import { isQuireError } from '../../core/errors.js'
import { isWorkflowPath, looksLikeWorkflow } from '../../core/workflow/detect.js'
import { irPatchSchema, parsePatches, PATCH_KINDS } from '../../core/workflow/patches.js'

function rejection(input: unknown): string {
  try {
    parsePatches(input)
  } catch (error) {
    expect(isQuireError(error, 'INVALID_PATCH'), String(error)).toBe(true)
    return (error as Error).message
  }
  throw new Error('expected INVALID_PATCH')
}

describe('parsePatches', () => {
  it('WF.APPLY_PATCH.3 accepts exactly the eight kinds', () => {
    expect([...PATCH_KINDS].sort()).toEqual(
      ['job.set', 'needs.add', 'needs.remove', 'step.set', 'trigger.setFilters', 'with.remove', 'with.set', 'workflow.set'].sort(),
    )
    const all = [
      { kind: 'workflow.set', path: 'env.A', value: 'x' },
      { kind: 'job.set', jobId: 'build', path: ['timeout-minutes'], value: 5 },
      { kind: 'step.set', jobId: 'build', stepIndex: 0, path: 'name', value: null },
      { kind: 'with.set', jobId: 'build', stepIndex: 1, key: 'k', value: true },
      { kind: 'with.remove', jobId: 'build', stepIndex: 1, key: 'k' },
      { kind: 'needs.add', jobId: 'build', ref: 'lint' },
      { kind: 'needs.remove', jobId: 'build', ref: 'lint' },
      { kind: 'trigger.setFilters', event: 'push', filter: 'branches', value: ['main'] },
    ]
    expect(parsePatches(all)).toEqual(all)
    for (const patch of all) expect(irPatchSchema.safeParse(patch).success).toBe(true)
    expect(parsePatches([])).toEqual([])
    for (const kind of ['job.create', 'step.insert', 'workflow.permissions.set', 'JOB.SET']) {
      expect(rejection([{ kind }])).toBe(`patches[0].kind is missing or invalid: ${kind}`)
    }
  })

  it.each<[string, unknown, string]>([
    ['not an array', { kind: 'workflow.set' }, 'patches must be an array'],
    ['a string', 'patches', 'patches must be an array'],
    ['an element that is not an object', [{ kind: 'needs.add', jobId: 'a', ref: 'b' }, 3], 'patches[1] must be an object'],
    ['an element that is an array', [[]], 'patches[0] must be an object'],
    ['a missing kind', [{ path: 'a', value: 1 }], 'patches[0].kind is missing or invalid: undefined'],
    ['a non-string kind', [{ kind: 7 }], 'patches[0].kind is missing or invalid: 7'],
    ['a negative stepIndex', [{ kind: 'step.set', jobId: 'a', stepIndex: -1, path: 'x', value: 1 }], 'patches[0].stepIndex must be a non-negative integer'],
    ['a fractional stepIndex', [{ kind: 'with.remove', jobId: 'a', stepIndex: 1.5, key: 'x' }], 'patches[0].stepIndex must be a non-negative integer'],
    ['a missing jobId', [{ kind: 'needs.add', ref: 'b' }], 'patches[0].jobId is missing'],
    ['an empty jobId', [{ kind: 'needs.add', jobId: '', ref: 'b' }], 'patches[0].jobId must be a non-empty string'],
    ['an empty path segment', [{ kind: 'workflow.set', path: 'env..A', value: 1 }], 'patches[0].path must be a dotted path of non-empty keys (or an array of non-empty keys)'],
    ['an object value', [{ kind: 'workflow.set', path: 'env', value: { A: 1 } }], 'patches[0].value must be a string, number, boolean, null or an array of strings'],
    ['a list value for with.set', [{ kind: 'with.set', jobId: 'a', stepIndex: 0, key: 'k', value: ['x'] }], 'patches[0].value must be a string, number, boolean or null'],
    ['a missing value', [{ kind: 'job.set', jobId: 'a', path: 'x' }], 'patches[0].value is missing'],
    ['an unknown filter', [{ kind: 'trigger.setFilters', event: 'push', filter: 'branch', value: [] }], 'patches[0].filter must be one of branches, branches-ignore, tags, tags-ignore, paths, paths-ignore, types, workflows'],
    ['a scalar filter value', [{ kind: 'trigger.setFilters', event: 'push', filter: 'branches', value: 'main' }], 'patches[0].value must be an array of strings'],
    ['an unknown field', [{ kind: 'needs.add', jobId: 'a', ref: 'b', refs: ['c'] }], 'patches[0] has unknown field "refs" for kind needs.add'],
  ])('WF.APPLY_PATCH.10 rejects %s', (_, input, message) => {
    expect(rejection(input)).toBe(message)
  })
})

describe('workflow detection', () => {
  it('recognizes workflow paths', () => {
    expect(isWorkflowPath('/repo/.github/workflows/ci.yml')).toBe(true)
    expect(isWorkflowPath('.github/workflows/release.yaml')).toBe(true)
    expect(isWorkflowPath('C:\\repo\\.github\\workflows\\ci.yml')).toBe(true)
    expect(isWorkflowPath('/repo/.github/workflows/nested/ci.yml')).toBe(false)
    expect(isWorkflowPath('/repo/.github/ci.yml')).toBe(false)
    expect(isWorkflowPath('/repo/.github/workflows/ci.json')).toBe(false)
  })

  it('recognizes workflow content by top-level on: and jobs:', () => {
    expect(looksLikeWorkflow('name: x\non:\n  push:\njobs:\n  a: {}\n')).toBe(true)
    expect(looksLikeWorkflow('"on": push\njobs: {}\n')).toBe(true)
    expect(looksLikeWorkflow("'on': [push]\r\njobs:\r\n")).toBe(true)
    expect(looksLikeWorkflow('true: push\njobs: {}\n')).toBe(false)
    expect(looksLikeWorkflow('  on: push\n  jobs: {}\n')).toBe(false)
    expect(looksLikeWorkflow('on:push\njobs: {}\n')).toBe(false)
    expect(looksLikeWorkflow('on: push\n')).toBe(false)
    expect(looksLikeWorkflow('on: push\njobs: {}\nfoo: ::bar\n')).toBe(false)
  })
})
