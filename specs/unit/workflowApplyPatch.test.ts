import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseDocument } from 'yaml'
import { applyPatches } from '../../core/workflow/applyPatches.js'
import { isQuireError } from '../../core/errors.js'
import type { IRPatch } from '../../core/workflow/patches.js'

/** Every edit is checked byte for byte: the expected output is the fixture with exactly one region replaced. */

const CI = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'workflow', 'ci.yml'), 'utf8')

/** `source` with the one occurrence of `before` replaced by `after` (fails if `before` is not unique). */
function replaced(source: string, before: string, after: string): string {
  const at = source.indexOf(before)
  expect(at, `"${before}" occurs in the fixture`).toBeGreaterThanOrEqual(0)
  expect(source.indexOf(before, at + 1), `"${before}" occurs once`).toBe(-1)
  return source.slice(0, at) + after + source.slice(at + before.length)
}

const apply = (...patches: IRPatch[]): string => applyPatches(CI, patches)

function refusal(source: string, patches: IRPatch[]): string {
  try {
    applyPatches(source, patches)
  } catch (error) {
    expect(isQuireError(error, 'INVALID_PATCH'), String(error)).toBe(true)
    return (error as Error).message
  }
  throw new Error('expected INVALID_PATCH')
}

const js = (text: string): unknown => parseDocument(text, { version: '1.2' }).toJS({ maxAliasCount: -1 })

describe('workflow.apply_patch: the eight kinds, byte for byte', () => {
  it('WF.APPLY_PATCH.4 workflow.set replaces a top-level scalar and keeps its aligned comment', () => {
    expect(apply({ kind: 'workflow.set', path: 'name', value: 'Release' })).toBe(replaced(CI, 'name: CI   #', 'name: Release   #'))
  })

  it('WF.APPLY_PATCH.4 workflow.set keeps a quoted scalar quoted the same way', () => {
    const out = apply({ kind: 'workflow.set', path: 'env.NODE_VERSION', value: '22' })
    expect(out).toBe(replaced(CI, "NODE_VERSION: '20'", "NODE_VERSION: '22'"))
  })

  it('WF.APPLY_PATCH.4 workflow.set adds a key as the last pair of its map, at its indentation', () => {
    const out = apply({ kind: 'workflow.set', path: 'env.CI', value: 'true' })
    expect(out).toBe(replaced(CI, '  FORCE_COLOR: 1\n', '  FORCE_COLOR: 1\n  CI: "true"\n'))
    expect((js(out) as { env: Record<string, unknown> }).env.CI).toBe('true')
  })

  it('WF.APPLY_PATCH.4 workflow.set creates missing intermediate maps', () => {
    const out = apply({ kind: 'workflow.set', path: 'concurrency.group', value: 'ci-${{ github.ref }}' })
    expect(out).toBe(replaced(CI, '          -- --coverage\n', '          -- --coverage\nconcurrency:\n  group: ci-${{ github.ref }}\n'))
  })

  it('WF.APPLY_PATCH.4 workflow.set accepts an array path for keys that contain dots', () => {
    const out = apply({ kind: 'workflow.set', path: ['env', 'a.b'], value: 1 })
    expect(out).toBe(replaced(CI, '  FORCE_COLOR: 1\n', '  FORCE_COLOR: 1\n  a.b: 1\n'))
  })

  it('WF.APPLY_PATCH.5 job.set replaces a field of a job and adds a missing one', () => {
    expect(apply({ kind: 'job.set', jobId: 'lint', path: 'runs-on', value: 'macos-latest' })).toBe(
      replaced(CI, '  lint:\n    runs-on: ubuntu-latest', '  lint:\n    runs-on: macos-latest'),
    )
    expect(apply({ kind: 'job.set', jobId: 'lint', path: 'timeout-minutes', value: 10 })).toBe(
      replaced(CI, '      - run: npm run lint\n', '      - run: npm run lint\n    timeout-minutes: 10\n'),
    )
  })

  it('WF.APPLY_PATCH.5 job.set keeps a flow sequence flow and a block sequence block', () => {
    expect(apply({ kind: 'job.set', jobId: 'build', path: 'strategy.matrix.os', value: ['ubuntu-24.04'] })).toBe(
      replaced(CI, 'os: [ubuntu-latest, macos-latest]', 'os: [ubuntu-24.04]'),
    )
    expect(apply({ kind: 'job.set', jobId: 'test', path: 'needs', value: ['build', 'lint', 'docs'] })).toBe(
      replaced(CI, '      - lint\n      - build\n', '      - build\n      - lint\n      - docs\n'),
    )
  })

  it('WF.APPLY_PATCH.6 step.set sets a field on one step only', () => {
    const out = apply({ kind: 'step.set', jobId: 'build', stepIndex: 0, path: 'uses', value: 'actions/checkout@v5' })
    expect(out).toBe(replaced(CI, 'actions/checkout@v4   # pin me', 'actions/checkout@v5   # pin me'))
  })

  it('WF.APPLY_PATCH.6 step.set keeps a block scalar a block scalar', () => {
    const out = apply({ kind: 'step.set', jobId: 'build', stepIndex: 2, path: 'run', value: 'make\nmake test' })
    expect(out).toBe(replaced(CI, '        run: |\n          npm ci\n          npm run build\n', '        run: |-\n          make\n          make test\n'))
  })

  it('WF.APPLY_PATCH.6 step.set on the first key of a step keeps the dash', () => {
    const out = apply({ kind: 'step.set', jobId: 'build', stepIndex: 1, path: 'name', value: 'Setup Node.js' })
    expect(out).toBe(replaced(CI, '- name: Setup node\n', '- name: Setup Node.js\n'))
  })

  it('WF.APPLY_PATCH.7 with.set replaces and adds keys in a block with: map', () => {
    expect(apply({ kind: 'with.set', jobId: 'build', stepIndex: 1, key: 'cache', value: 'pnpm' })).toBe(replaced(CI, 'cache: npm', 'cache: pnpm'))
    expect(apply({ kind: 'with.set', jobId: 'build', stepIndex: 1, key: 'check-latest', value: true })).toBe(
      replaced(CI, '          cache: npm\n', '          cache: npm\n          check-latest: true\n'),
    )
  })

  it('WF.APPLY_PATCH.7 with.set edits inside a flow with: map', () => {
    expect(apply({ kind: 'with.set', jobId: 'build', stepIndex: 2, key: 'retries', value: 3 })).toBe(replaced(CI, '{retries: 2,', '{retries: 3,'))
    expect(apply({ kind: 'with.set', jobId: 'build', stepIndex: 2, key: 'path', value: 'a, b' })).toBe(
      replaced(CI, 'verbose: true}', 'verbose: true, path: "a, b"}'),
    )
  })

  it('WF.APPLY_PATCH.7 with.set creates the with: block when the step has none', () => {
    const out = apply({ kind: 'with.set', jobId: 'build', stepIndex: 0, key: 'fetch-depth', value: 0 })
    expect(out).toBe(replaced(CI, '# pin me\n', '# pin me\n        with:\n          fetch-depth: 0\n'))
  })

  it('WF.APPLY_PATCH.7 with.remove removes a key, and the with: block with its last key', () => {
    expect(apply({ kind: 'with.remove', jobId: 'build', stepIndex: 1, key: 'cache' })).toBe(replaced(CI, '          cache: npm\n', ''))
    expect(apply({ kind: 'with.remove', jobId: 'build', stepIndex: 2, key: 'verbose' })).toBe(replaced(CI, '{retries: 2, verbose: true}', '{retries: 2}'))
    const once = apply({ kind: 'with.remove', jobId: 'build', stepIndex: 1, key: 'cache' })
    const twice = applyPatches(once, [{ kind: 'with.remove', jobId: 'build', stepIndex: 1, key: 'node-version' }])
    expect(twice).toBe(replaced(CI, '        with:\n          node-version: ${{ env.NODE_VERSION }}\n          cache: npm\n', ''))
  })

  it('WF.APPLY_PATCH.8 needs.add turns a scalar into a list, appends to flow and block lists, and skips a duplicate', () => {
    expect(apply({ kind: 'needs.add', jobId: 'test', ref: 'lint' })).toBe(CI)
    expect(apply({ kind: 'needs.add', jobId: 'build', ref: 'test' })).toBe(replaced(CI, 'needs: lint   #', 'needs: [lint, test]   #'))
    const source = CI.replace('needs: lint   #', 'needs: [ lint ]   #')
    expect(applyPatches(source, [{ kind: 'needs.add', jobId: 'build', ref: 'test' }])).toBe(replaced(source, '[ lint ]', '[ lint, test ]'))
    const added = applyPatches(replaced(CI, '      - build\n', ''), [{ kind: 'needs.add', jobId: 'test', ref: 'build' }])
    expect(added).toBe(CI)
  })

  it('WF.APPLY_PATCH.8 needs.add adds needs: [ref] to a job without needs', () => {
    expect(apply({ kind: 'needs.add', jobId: 'lint', ref: 'build' })).toBe(
      replaced(CI, '      - run: npm run lint\n', '      - run: npm run lint\n    needs: [build]\n'),
    )
  })

  it('WF.APPLY_PATCH.8 needs.remove removes an item, and needs: with its last one', () => {
    expect(apply({ kind: 'needs.remove', jobId: 'test', ref: 'build' })).toBe(replaced(CI, '      - build\n', ''))
    expect(apply({ kind: 'needs.remove', jobId: 'build', ref: 'lint' })).toBe(replaced(CI, '    needs: lint   # scalar needs\n', ''))
    const once = apply({ kind: 'needs.remove', jobId: 'test', ref: 'build' })
    expect(applyPatches(once, [{ kind: 'needs.remove', jobId: 'test', ref: 'lint' }])).toBe(replaced(CI, '    needs:\n      - lint\n      - build\n', ''))
  })

  it('WF.APPLY_PATCH.9 trigger.setFilters replaces a filter list keeping its style, adds one, and deletes one when empty', () => {
    expect(apply({ kind: 'trigger.setFilters', event: 'push', filter: 'branches', value: ['main', 'release/*'] })).toBe(
      replaced(CI, '[ main ]', '[ main, release/* ]'),
    )
    expect(apply({ kind: 'trigger.setFilters', event: 'push', filter: 'paths', value: ['lib/**'] })).toBe(
      replaced(CI, "      - 'src/**'\n      - \"docs/**\"\n", "      - 'lib/**'\n"),
    )
    expect(apply({ kind: 'trigger.setFilters', event: 'push', filter: 'tags', value: ['v*'] })).toBe(
      replaced(CI, '      - "docs/**"\n', '      - "docs/**"\n    tags: [v*]\n'),
    )
    expect(apply({ kind: 'trigger.setFilters', event: 'push', filter: 'branches', value: [] })).toBe(
      replaced(CI, '    branches: [ main ]   # padded flow sequence\n', ''),
    )
    expect(apply({ kind: 'trigger.setFilters', event: 'pull_request', filter: 'types', value: ['opened'] })).toBe(
      replaced(CI, '  pull_request:\n', '  pull_request:\n    types: [opened]\n'),
    )
  })

  it('WF.APPLY_PATCH.9 trigger.setFilters rewrites on: push and on: [a, b] as the equivalent mapping', () => {
    const scalar = 'on: push\njobs:\n  a:\n    runs-on: x\n'
    expect(applyPatches(scalar, [{ kind: 'trigger.setFilters', event: 'push', filter: 'branches', value: ['main'] }])).toBe(
      'on:\n  push:\n    branches: [main]\njobs:\n  a:\n    runs-on: x\n',
    )
    const list = 'on: [push, pull_request]  # both\njobs: {}\n'
    expect(applyPatches(list, [{ kind: 'trigger.setFilters', event: 'pull_request', filter: 'types', value: ['opened'] }])).toBe(
      'on:  # both\n  push:\n  pull_request:\n    types: [opened]\njobs: {}\n',
    )
  })

  it('applies a list in order, each patch seeing the previous one', () => {
    const out = apply(
      { kind: 'workflow.set', path: 'env.EXTRA', value: 'x' },
      { kind: 'workflow.set', path: 'env.EXTRA', value: 'y' },
      { kind: 'needs.add', jobId: 'lint', ref: 'build' },
      { kind: 'needs.remove', jobId: 'lint', ref: 'build' },
    )
    expect(out).toBe(replaced(CI, '  FORCE_COLOR: 1\n', '  FORCE_COLOR: 1\n  EXTRA: y\n'))
  })
})

describe('workflow.apply_patch: what stays untouched (WF.APPLY_PATCH.1, WF.APPLY_PATCH.2)', () => {
  const everything: IRPatch[] = [
    { kind: 'workflow.set', path: 'name', value: 'Other' },
    { kind: 'job.set', jobId: 'build', path: 'timeout-minutes', value: 30 },
    { kind: 'step.set', jobId: 'test', stepIndex: 0, path: 'name', value: 'Test' },
    { kind: 'with.set', jobId: 'build', stepIndex: 1, key: 'cache', value: 'yarn' },
    { kind: 'with.remove', jobId: 'build', stepIndex: 2, key: 'verbose' },
    { kind: 'needs.add', jobId: 'lint', ref: 'build' },
    { kind: 'needs.remove', jobId: 'test', ref: 'lint' },
    { kind: 'trigger.setFilters', event: 'push', filter: 'branches', value: ['dev'] },
  ]

  it('WF.APPLY_PATCH.2 every comment line, blank line and anchor/alias survives a patch of every kind', () => {
    const out = applyPatches(CI, everything)
    const lines = new Set(out.split('\n'))
    for (const line of CI.split('\n')) if (/^\s*#/.test(line) || line.trim() === '') expect(lines.has(line), line).toBe(true)
    expect(out).toContain('env: &defaults\n')
    expect(out).toContain('    env: *defaults\n')
    expect(out).toContain("NODE_VERSION: '20'   # quoted on purpose")
    expect(out).toContain('      - run: >\n          npm test\n          -- --coverage\n')
    expect(out.split('\n').filter((line) => line.trim() === '').length).toBe(CI.split('\n').filter((line) => line.trim() === '').length)
  })

  it('WF.APPLY_PATCH.1 key order is kept and the semantic result is the intended one', () => {
    const out = applyPatches(CI, everything)
    const result = js(out) as Record<string, Record<string, Record<string, unknown>>>
    expect(Object.keys(result)).toEqual(['name', 'on', 'env', 'jobs'])
    expect(Object.keys(result.jobs!)).toEqual(['lint', 'build', 'test'])
    expect(result.jobs!.build!['timeout-minutes']).toBe(30)
    expect(result.jobs!.lint!.needs).toEqual(['build'])
    expect(result.jobs!.test!.needs).toEqual(['build'])
    expect(result.on!.push!.branches).toEqual(['dev'])
  })

  it('on: stays a string key (YAML 1.2), never the boolean true', () => {
    const out = apply({ kind: 'trigger.setFilters', event: 'push', filter: 'branches', value: ['x'] })
    expect(Object.keys(js(out) as object)).toContain('on')
    expect(out).toMatch(/^on:\n/m)
  })

  it('setting a value it already has returns the source itself', () => {
    const same: IRPatch[] = [
      { kind: 'workflow.set', path: 'name', value: 'CI' },
      { kind: 'workflow.set', path: 'env.NODE_VERSION', value: '20' },
      { kind: 'job.set', jobId: 'build', path: 'strategy.matrix.os', value: ['ubuntu-latest', 'macos-latest'] },
      { kind: 'with.set', jobId: 'build', stepIndex: 1, key: 'cache', value: 'npm' },
      { kind: 'needs.add', jobId: 'build', ref: 'lint' },
      { kind: 'trigger.setFilters', event: 'push', filter: 'branches', value: ['main'] },
      { kind: 'trigger.setFilters', event: 'push', filter: 'tags', value: [] },
    ]
    expect(applyPatches(CI, same)).toBe(CI)
    expect(applyPatches(CI, [])).toBe(CI)
  })

  it('a CRLF file stays CRLF, with new lines in CRLF too', () => {
    const crlf = CI.replace(/\n/g, '\r\n')
    const out = applyPatches(crlf, [
      { kind: 'workflow.set', path: 'env.CI', value: 'yes' },
      { kind: 'with.set', jobId: 'build', stepIndex: 1, key: 'note', value: 'a\nb' },
      { kind: 'needs.remove', jobId: 'test', ref: 'build' },
    ])
    expect(out.replace(/\r\n/g, '')).not.toContain('\n')
    const result = js(out) as { env: Record<string, unknown>; jobs: { build: { steps: { with: Record<string, unknown> }[] } } }
    expect(result.env.CI).toBe('yes')
    expect(result.jobs.build.steps[1]!.with.note).toBe('a\nb')
  })
})

describe('workflow.apply_patch: refusals name the patch and the missing thing (WF.APPLY_PATCH.10)', () => {
  it.each<[string, IRPatch, RegExp]>([
    ['unknown job', { kind: 'job.set', jobId: 'deploy', path: 'x', value: 1 }, /^patches\[0\]: job "deploy" does not exist; jobs are lint, build, test$/],
    ['step out of range', { kind: 'step.set', jobId: 'build', stepIndex: 5, path: 'name', value: 'x' }, /job "build" has 3 steps; stepIndex 5 does not exist/],
    ['job without steps', { kind: 'with.set', jobId: 'lint', stepIndex: 3, key: 'a', value: 1 }, /job "lint" has 2 steps; stepIndex 3 does not exist/],
    ['with.remove of a missing key', { kind: 'with.remove', jobId: 'build', stepIndex: 1, key: 'token' }, /step 1 of job "build" has no with.token; with: keys are node-version, cache/],
    ['with.remove without with:', { kind: 'with.remove', jobId: 'build', stepIndex: 0, key: 'x' }, /step 0 of job "build" has no with: block/],
    ['needs.remove of an absent ref', { kind: 'needs.remove', jobId: 'test', ref: 'deploy' }, /job "test" does not need "deploy"; it needs lint, build/],
    ['needs.remove without needs', { kind: 'needs.remove', jobId: 'lint', ref: 'build' }, /job "lint" has no needs:/],
    ['needs.add of an unknown job', { kind: 'needs.add', jobId: 'test', ref: 'deploy' }, /job "deploy" does not exist, so job "test" cannot need it/],
    ['needs.add of itself', { kind: 'needs.add', jobId: 'test', ref: 'test' }, /job "test" cannot need itself/],
    ['unknown trigger', { kind: 'trigger.setFilters', event: 'release', filter: 'types', value: ['published'] }, /trigger "release" does not exist; triggers are push, pull_request, workflow_dispatch/],
    ['job.set through a missing map', { kind: 'job.set', jobId: 'lint', path: 'strategy.matrix.os', value: ['x'] }, /job "lint" has no strategy/],
    ['step.set through a scalar', { kind: 'step.set', jobId: 'build', stepIndex: 0, path: 'uses.x', value: 1 }, /uses is a scalar, not a mapping/],
    ['edit through an alias', { kind: 'job.set', jobId: 'build', path: 'env.X', value: 1 }, /env is an alias \(\*defaults\)/],
    ['sequence index out of range', { kind: 'job.set', jobId: 'build', path: 'strategy.matrix.os.7', value: 'x' }, /strategy.matrix.os has 2 items; index 7 does not exist/],
  ])('%s', (_, patch, message) => {
    expect(refusal(CI, [{ kind: 'workflow.set', path: 'name', value: 'first' }, patch])).toMatch(/^patches\[1\]: /)
    expect(refusal(CI, [patch])).toMatch(message)
  })

  it('the index in the message is the failing patch', () => {
    expect(refusal(CI, [{ kind: 'workflow.set', path: 'name', value: 'x' }, { kind: 'needs.remove', jobId: 'lint', ref: 'x' }])).toMatch(/^patches\[1\]: /)
  })

  it('a source that is not valid YAML is refused cleanly', () => {
    expect(refusal('on: [push\njobs:\n', [{ kind: 'workflow.set', path: 'name', value: 'x' }])).toMatch(/^Patch application failed: the workflow is not valid YAML: /)
    expect(refusal('- a\n- b\n', [{ kind: 'workflow.set', path: 'name', value: 'x' }])).toMatch(/top level is not a mapping/)
  })

  it('an edit that would break an alias is refused, not applied', () => {
    const source = 'on: push\njobs:\n  a:\n    runs-on: x\n  b:\n    needs: &deps [a]\n  c:\n    needs: *deps\n'
    expect(refusal(source, [{ kind: 'needs.remove', jobId: 'b', ref: 'a' }])).toMatch(/^patches\[0\]: Patch application failed: the edit would leave invalid YAML/)
  })
})
