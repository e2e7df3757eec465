/**
 * Random tool calls against the three registered tools (session, workspace, document): random and wrong actions,
 * wrong types, missing and extra fields, huge strings (≥ 1 MiB), lone surrogates, and hostile paths (relative, `..`,
 * outside, prefix sibling, NUL, symlinks to outside, very long). Invariants (GEN.9, ERR.1–4, SCOPE.1–2, §13):
 *
 * - the server never crashes and always answers; it still answers session.get_state afterwards;
 * - no `INTERNAL` envelope (nothing here is an unexpected failure), and every error is either an envelope with a
 *   code documented in TOOLS.md §13 or a plain-string argument error;
 * - no file outside the workspace is touched (a sentinel folder and a prefix sibling beside it are snapshotted
 *   before and after), and nothing from outside is ever read into an answer.
 *
 * Runs in-process (fast, the real file system, the disk watcher on) and, smaller, over stdio.
 */
import { mkdir, readdir, rm, symlink, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DOCUMENTED_ENVELOPE_CODES, launchFaulty, ok, real, snapshot } from '../support/faultSession.js'
import { launchStdio, tempDir, type Session, type ToolResult } from '../support/mcpHarness.js'
import { fuzzParameters } from '../support/fuzz.js'

const MARK = 'SENTINEL-9f2c: this file is outside the workspace'
const MIB = 1024 * 1024
const HUGE = ['x'.repeat(MIB), `${'y'.repeat(MIB)}\uD800`, '😀'.repeat(MIB / 2), `${'line\r\n'.repeat(MIB / 6)}`]

interface Fixture {
  readonly T: string
  readonly ws: string
  readonly sentinel: string
  readonly evil: string
}

async function buildFixture(): Promise<Fixture> {
  const T = await real(await tempDir('quire-fuzz-'))
  const ws = join(T, 'ws')
  const sentinel = join(T, 'sentinel')
  const evil = join(T, 'ws_evil')
  await mkdir(join(ws, 'sub'), { recursive: true })
  await mkdir(join(ws, '.github', 'workflows'), { recursive: true })
  await mkdir(join(sentinel, 'deep'), { recursive: true })
  await mkdir(evil)
  await writeFile(join(ws, 'a.md'), '# a\n')
  await writeFile(join(ws, 'sub', 'b.md'), 'b\n')
  await writeFile(join(ws, '.github', 'workflows', 'ci.yml'), 'name: ci\non: [push]\n')
  await writeFile(join(sentinel, 'secret.md'), `${MARK}\n`)
  await writeFile(join(sentinel, 'deep', 'x.md'), `${MARK}\n`)
  await writeFile(join(evil, 'a.md'), `${MARK}\n`)
  await symlink(join(sentinel, 'secret.md'), join(ws, 'link-out'))
  await symlink(sentinel, join(ws, 'dirlink'))
  await symlink('../sentinel', join(ws, 'rel'))
  await symlink(join(sentinel, 'nope.md'), join(ws, 'dangling'))
  return { T, ws, sentinel, evil }
}

/** What is outside the workspace, to compare before and after. */
async function outside(fixture: Fixture): Promise<unknown> {
  return {
    top: (await readdir(fixture.T)).sort(),
    sentinel: await snapshot(fixture.sentinel),
    evil: await snapshot(fixture.evil),
  }
}

function pathArb(fixture: Fixture): fc.Arbitrary<string> {
  const { T, ws, sentinel } = fixture
  const known = fc.constantFrom(
    join(ws, 'a.md'), join(ws, 'sub', 'b.md'), join(ws, 'new.md'), join(ws, 'sub', 'new.md'), join(ws, '.github', 'workflows', 'ci.yml'),
    join(ws, '.github', 'workflows', 'new.yml'), ws, join(ws, 'sub'),
    join(sentinel, 'secret.md'), join(sentinel, 'new.md'), sentinel, join(T, 'ws_evil', 'a.md'), join(T, 'ws_evil', 'new.md'),
    join(ws, 'link-out'), join(ws, 'dirlink', 'secret.md'), join(ws, 'dirlink', 'new.md'), join(ws, 'rel', 'deep', 'x.md'),
    join(ws, 'dangling'), `${ws}/../sentinel/secret.md`, `${ws}/sub/../../sentinel/new.md`, `${ws}/../new.md`, `${ws}_evil/a.md`,
    'a.md', './a.md', '../sentinel/secret.md', relative(process.cwd(), join(sentinel, 'secret.md')), relative(process.cwd(), join(sentinel, 'new.md')),
    `${ws}/a.md\0`, `${ws}/new.md\0/../../sentinel/new.md`, '\0', '', ' ', '/', '~', '~/a.md', `file://${join(ws, 'a.md')}`,
    `${ws}/${'n'.repeat(300)}.md`, `${ws}/${'d/'.repeat(3000)}x.md`, `/${'x'.repeat(5000)}`, '/dev/zero', '/proc/self/environ', '/etc/passwd',
    `${ws}/${'a'.repeat(MIB)}`, `${ws}/${'../'.repeat(MIB / 3)}etc/passwd`,
  )
  const segment = fc.constantFrom('..', '.', '', 'sub', 'dirlink', 'rel', 'link-out', 'a.md', 'new.md', 'x.md', '\0', '%2e%2e', '\\..', 'ws_evil')
  const built = fc.array(segment, { maxLength: 6 }).map((parts) => [ws, ...parts].join('/'))
  const inside = fc.constantFrom(
    join(ws, 'a.md'), join(ws, 'sub', 'b.md'), join(ws, '.github', 'workflows', 'ci.yml'), join(ws, 'sub', 'c.md'), join(ws, 'n1.md'),
    join(ws, 'n2.md'), join(ws, '.github', 'workflows', 'n.yml'), `${ws}/sub/../a.md`, `${ws}//sub///b.md`,
  )
  return fc.oneof(
    { weight: 5, arbitrary: inside },
    { weight: 5, arbitrary: known },
    { weight: 3, arbitrary: built },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  )
}

const loneSurrogate = fc.constantFrom('\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uD83D')
const textArb = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 200 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
  { weight: 2, arbitrary: fc.string({ unit: fc.oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), loneSurrogate), maxLength: 60 }) },
  { weight: 1, arbitrary: fc.constantFrom('', '\r\n', '# t\r\n\r\nx\r', 'name: x # c\non: [push]\n') },
  { weight: 1, arbitrary: fc.constantFrom(...HUGE) },
)
const wrongType = fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 3 }), fc.object({ maxDepth: 1 }))
const hugeOrString = fc.oneof({ weight: 8, arbitrary: fc.string({ maxLength: 30 }) }, { weight: 1, arbitrary: fc.constantFrom('x'.repeat(MIB), '\uD800'.repeat(1000)) })

const ACTIONS: Record<string, readonly string[]> = {
  session: ['get_state'],
  workspace: ['new', 'open', 'open_workspace', 'save', 'save_as', 'close', 'switch_tab', 'focus_window'],
  document: ['read', 'write'],
}

/** A tab reference resolved at call time against the tabs seen so far. */
interface TabRef {
  readonly tab: number
}

interface Call {
  readonly tool: 'session' | 'workspace' | 'document'
  readonly args: Record<string, unknown>
}

function callArb(fixture: Fixture): fc.Arbitrary<Call> {
  const path = pathArb(fixture)
  const tabRef = fc.nat({ max: 50 }).map((tab): TabRef => ({ tab }))
  const tabId = fc.oneof({ weight: 6, arbitrary: tabRef }, { weight: 1, arbitrary: hugeOrString }, { weight: 1, arbitrary: wrongType })
  const maybe = <T>(arb: fc.Arbitrary<T>, right: number) => fc.oneof({ weight: right, arbitrary: arb }, { weight: 1, arbitrary: wrongType })
  const fields = fc.record(
    {
      tabId,
      content: maybe(textArb, 8),
      expected_revision: maybe(fc.oneof(fc.constantFrom('rev-0', 'rev-1', 'rev-zzzz', 'rev-', 'nonsense'), hugeOrString), 4),
      save: maybe(fc.boolean(), 6),
      kind: maybe(fc.constantFrom('markdown', 'yaml-workflow', 'html', ''), 4),
      windowLabel: maybe(fc.constantFrom('main', 'other', '', ' '), 3),
      filePath: maybe(path, 8),
      folderPath: maybe(path, 6),
      force: maybe(fc.boolean(), 4),
    },
    { requiredKeys: [] },
  )
  const extra = fc.dictionary(fc.string({ maxLength: 12 }), fc.oneof(fc.string({ maxLength: 12 }), wrongType), { maxKeys: 2 })
  const tool = fc.constantFrom('session', 'workspace', 'document') as fc.Arbitrary<Call['tool']>
  // Chaos: any action (or none, or a wrong one), any fields with any types, extra fields.
  const chaos = tool.chain((name) => {
    const action = fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom(...ACTIONS[name]!) },
      { weight: 1, arbitrary: fc.constantFrom(...Object.values(ACTIONS).flat()) },
      { weight: 1, arbitrary: hugeOrString },
      { weight: 1, arbitrary: wrongType },
    )
    return fc
      .record({ action: fc.option(action, { freq: 12, nil: undefined }), fields, extra: fc.option(extra, { freq: 4, nil: undefined }) })
      .map(({ action, fields, extra }) => {
        const args: Record<string, unknown> = { ...(extra ?? {}), ...fields }
        if (action !== undefined) args.action = action
        return { tool: name, args }
      })
  })
  // Well-formed: a real action with the fields it takes, of the right types, holding hostile values.
  const goodTab = fc.oneof({ weight: 8, arbitrary: tabRef }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }) })
  const text = textArb
  const valid = (tool: Call['tool'], action: string, record: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Call> =>
    record.map((fields) => ({ tool, args: { action, ...fields } }))
  const well = fc.oneof(
    { weight: 2, arbitrary: valid('session', 'get_state', fc.constant({})) },
    { weight: 2, arbitrary: valid('workspace', 'new', fc.record({ kind: fc.constantFrom('markdown', 'yaml-workflow'), windowLabel: fc.constantFrom('main', 'nope') }, { requiredKeys: [] })) },
    { weight: 6, arbitrary: valid('workspace', 'open', fc.record({ filePath: path, windowLabel: fc.constantFrom('main', 'nope') }, { requiredKeys: ['filePath'] })) },
    { weight: 2, arbitrary: valid('workspace', 'open_workspace', fc.record({ folderPath: path })) },
    { weight: 3, arbitrary: valid('workspace', 'save', fc.record({ tabId: goodTab }, { requiredKeys: [] })) },
    { weight: 5, arbitrary: valid('workspace', 'save_as', fc.record({ tabId: goodTab, filePath: path }, { requiredKeys: ['filePath'] })) },
    { weight: 1, arbitrary: valid('workspace', 'close', fc.record({ tabId: goodTab, force: fc.boolean() }, { requiredKeys: ['tabId'] })) },
    { weight: 1, arbitrary: valid('workspace', 'switch_tab', fc.record({ tabId: goodTab })) },
    { weight: 1, arbitrary: valid('workspace', 'focus_window', fc.record({ windowLabel: fc.constantFrom('main', 'nope', 'x'.repeat(1000)) })) },
    { weight: 3, arbitrary: valid('document', 'read', fc.record({ tabId: goodTab }, { requiredKeys: [] })) },
    {
      weight: 8,
      arbitrary: valid('document', 'write', fc.record(
        {
          tabId: goodTab,
          content: text,
          expected_revision: fc.option(fc.constantFrom('rev-0', 'rev-1', 'rev-zzzz', 'nonsense', ''), { freq: 5, nil: undefined }),
          save: fc.boolean(),
        },
        { requiredKeys: ['content', 'tabId'] },
      )),
    },
  )
  return fc.oneof({ weight: 4, arbitrary: well }, { weight: 1, arbitrary: chaos })
}

/** Checks one answer against the invariants; returns a description of what is wrong, or undefined. */
function violation(result: ToolResult): string | undefined {
  if (result.text.includes(MARK)) return `an answer carried the contents of a file outside the workspace: ${result.text.slice(0, 200)}`
  if (!result.isError) {
    if (result.structured === undefined) return `success without structuredContent: ${result.text.slice(0, 200)}`
    return undefined
  }
  const code = result.structured?.error
  if (code === undefined) {
    // A plain string: must not be a JSON envelope in disguise.
    try {
      const parsed = JSON.parse(result.text) as unknown
      if (typeof parsed === 'object' && parsed !== null && 'error' in parsed) return `envelope text without structuredContent: ${result.text.slice(0, 200)}`
    } catch {
      // Plain text, as it should be.
    }
    return undefined
  }
  if (code === 'INTERNAL') return `INTERNAL envelope: ${result.text.slice(0, 400)}`
  if (typeof code !== 'string' || !DOCUMENTED_ENVELOPE_CODES.has(code)) return `undocumented error code ${String(code)}: ${result.text.slice(0, 300)}`
  return undefined
}

/** Runs random call sequences against `session`; the tab ids it learns stay across runs (the server's state does). */
async function fuzz(session: Session, fixture: Fixture, numRuns: number, maxLength: number): Promise<number> {
  const tabs: string[] = []
  let calls = 0
  const outcomes = new Map<string, number>()
  const resolve = (args: Record<string, unknown>): Record<string, unknown> => {
    const tabId = args.tabId as unknown
    if (typeof tabId === 'object' && tabId !== null && 'tab' in tabId) {
      const { tab } = tabId as TabRef
      const copy = { ...args }
      if (tabs.length === 0 || tab === 50) delete copy.tabId
      else copy.tabId = tabs[tab % tabs.length]
      return copy
    }
    return args
  }
  await fc.assert(
    fc.asyncProperty(fc.array(callArb(fixture), { minLength: 1, maxLength }), async (sequence) => {
      for (const call of sequence) {
        const args = resolve(call.args)
        let result: ToolResult
        try {
          result = await session.call(call.tool, args)
        } catch (error) {
          throw new Error(`${call.tool} ${show(args)} threw instead of answering: ${String(error)}`)
        }
        calls++
        const outcome = `${call.tool}.${String(args.action).slice(0, 20)} → ${result.isError ? (result.structured?.error ?? 'plain') : 'ok'}`
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1)
        const problem = violation(result)
        if (problem) throw new Error(`${call.tool} ${show(args)}: ${problem}`)
        const tabId = result.structured?.tabId
        if (!result.isError && typeof tabId === 'string' && !tabs.includes(tabId)) tabs.push(tabId)
      }
    }),
    fuzzParameters({ numRuns, endOnFailure: true }),
  )
  if (process.env.FUZZ_STATS) console.info([...outcomes].sort((a, b) => b[1] - a[1]).map(([key, n]) => `${n}\t${key}`).join('\n'))
  return calls
}

const show = (args: Record<string, unknown>): string =>
  JSON.stringify(args, (_key, value: unknown) => (typeof value === 'string' && value.length > 120 ? `<${value.length} chars: ${value.slice(0, 40)}…>` : value))

describe('fuzz: random tool calls in-process', () => {
  let fixture: Fixture
  beforeAll(async () => {
    fixture = await buildFixture()
  })
  afterAll(async () => {
    await rm(fixture.T, { recursive: true, force: true })
  })

  it('GEN.9 / ERR.1–4 / SCOPE.1–2 / §13: no crash, no INTERNAL, only documented codes or plain-string argument errors, nothing outside the workspace touched or read; session.get_state answers afterwards', async () => {
    const before = await outside(fixture)
    const session = await launchFaulty({ workspaces: [fixture.ws], autoApproveSaves: true, watchDisk: true })
    try {
      const calls = await fuzz(session, fixture, 200, 25)
      expect(calls).toBeGreaterThan(200)
      expect(await outside(fixture)).toEqual(before)
      const state = ok(await session.call('session', { action: 'get_state' }))
      expect(state.windows).toEqual(expect.arrayContaining([expect.objectContaining({ label: 'main' })]))
    } finally {
      await session.close()
    }
    expect(await outside(fixture)).toEqual(before)
  }, 90_000)
})

describe('fuzz: random tool calls over stdio', () => {
  let fixture: Fixture
  beforeAll(async () => {
    fixture = await buildFixture()
  })
  afterAll(async () => {
    await rm(fixture.T, { recursive: true, force: true })
  })

  it('GEN.9 / ERR.1–4 / SCOPE.1–2 / §13 over stdio (quire mcp): the same invariants, a smaller run', async () => {
    const before = await outside(fixture)
    const session = await launchStdio({ workspaces: [fixture.ws] })
    try {
      const calls = await fuzz(session, fixture, 40, 15)
      expect(calls).toBeGreaterThan(30)
      expect(await outside(fixture)).toEqual(before)
      ok(await session.call('session', { action: 'get_state' }))
    } finally {
      await session.close()
    }
  }, 90_000)
})
