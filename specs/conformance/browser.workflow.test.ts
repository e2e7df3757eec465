/**
 * Browser workflow runs as an MCP client meets them (TOOLS.md §8.2, §8.3, §9.5, APPR.6–7): `browser.workflow_run`,
 * `browser_read.workflow_status` and `browser.workflow_cancel` against real Chromium on the fixture site's
 * workflow.html, whose own handlers write down in #log what reached them (a typed title, a publish, an archive).
 * The main connection holds an "Allow on this site" act grant, given once in beforeAll; the approval rules use a
 * second connection that holds none, and the person decides through the real CLI. Every wait is a status poll with a
 * deadline, never a sleep asserted on.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { FixtureSite } from '../browser-engine/support/fixtureSite.js'
import { approvals, cli, decide, TRANSPORTS, type ApprovalLine, type Rig, type Session, type ToolResult, type Transport } from '../support/conformance.js'
import { useBrowserRig } from '../support/browserRig.js'

type Args = Record<string, unknown>
interface StepResult { index: number; status: string; attempts: number; reasonCode?: string; reason?: string; data?: Record<string, unknown> }
interface Status {
  runId: string
  status: string
  completedSteps: number
  skippedSteps: number
  stepCount: number
  firstStep: string | null
  pausedAt?: string
  pendingApproval?: { approvalId: string; step: number; operation: string; url: string; target?: { role: string; name: string } }
  reasonCode?: string
  reason?: string
  resumedFrom?: string
  stepResults: StepResult[]
  url?: string
}

function expectToken(result: ToolResult, token: string): Record<string, unknown> {
  expect(result.isError, result.text).toBe(true)
  expect(result.text.startsWith(`${token}: `), result.text).toBe(true)
  return (result.structured as { data: Record<string, unknown> }).data
}

function success(result: ToolResult): Record<string, unknown> {
  expect(result.isError, result.text).toBe(false)
  return result.structured as Record<string, unknown>
}

const POST = (extra = '') => `---
site: fixture
inputs: [title]
---
1. action: type {title} into "Title" (textbox)
2. action: click "Publish" (button)
${extra}`

const DEADLINE_MS = 30_000

describe.each<Transport>(TRANSPORTS)('browser workflow runs over %s', (transport) => {
  let r: Rig
  let site: FixtureSite
  const call = (tool: string, args: Args, session: Session = r.session) => session.call(tool, args)
  const open = async (session: Session = r.session): Promise<string> =>
    (success(await call('browser', { action: 'open', url: site.url('/workflow.html') }, session)) as { tabId: string }).tabId
  const logOf = async (tabId: string, session: Session = r.session): Promise<string[]> => {
    const queried = success(await call('browser_read', { action: 'query', tabId, selector: '#log' }, session)) as { elements: { text: string }[] }
    return queried.elements[0]!.text.split(' ').filter(Boolean)
  }
  const run = async (args: Args, session: Session = r.session) => success(await call('browser', { action: 'workflow_run', ...args }, session)) as { runId: string; steps: number; firstStep: string | null }
  const status = async (runId: string, session: Session = r.session) => success(await call('browser_read', { action: 'workflow_status', runId }, session)) as unknown as Status
  /** Polls workflow_status until `done` holds (or the deadline passes, which fails the test with the last status). */
  const until = async (runId: string, done: (s: Status) => boolean, session: Session = r.session): Promise<Status> => {
    const deadline = Date.now() + DEADLINE_MS
    for (;;) {
      const seen = await status(runId, session)
      if (done(seen)) return seen
      if (Date.now() > deadline) throw new Error(`run ${runId} never got there: ${JSON.stringify(seen)}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  const ended = (runId: string, session: Session = r.session) => until(runId, (s) => s.status !== 'running', session)
  /** The person's new pending request of `kind` (none before `since`). */
  const pendingRequest = async (since: Set<string>, kind = 'browser_act'): Promise<ApprovalLine> => {
    const deadline = Date.now() + DEADLINE_MS
    for (;;) {
      const found = (await approvals(r.home)).find((entry) => entry.kind === kind && entry.status === 'pending' && !since.has(entry.id))
      if (found) return found
      if (Date.now() > deadline) throw new Error('no request reached the person')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  const known = async () => new Set((await approvals(r.home)).map((entry) => entry.id))

  useBrowserRig(transport, (made) => {
    r = made.rig
    site = made.site
  })
  beforeAll(async () => {
    // The person allows act-class operations on the fixture site for the main connection, once for the file.
    const tabId = await open()
    const before = await known()
    const answer = call('browser', { action: 'act', tabId, operation: 'click', role: 'button', name: 'Archive' })
    await decide(r.home, 'approve', (await pendingRequest(before)).id, 'site')
    expect((await answer).isError).toBe(false)
    await call('browser', { action: 'close', tabId })
  })

  it('BR.WORKFLOW_RUN.1 / BR.WORKFLOW_RUN.2 / BR.WORKFLOW_RUN.5 / BRR.WORKFLOW_STATUS.1–3 the call answers at once; the steps run in the daemon with the inputs in', async () => {
    const tabId = await open()
    const started = await run({ tabId, source: POST('3. extract: the post page'), inputs: { title: 'Hello "world"' } })
    expect(started).toEqual({ runId: expect.stringMatching(/^wfrun-/), steps: 3, firstStep: 'step-1' })
    const done = await ended(started.runId)
    expect(done).toMatchObject({ runId: started.runId, status: 'completed', completedSteps: 3, skippedSteps: 0, stepCount: 3, firstStep: 'step-1', url: site.url('/workflow.html') })
    expect(done.stepResults.map(({ index, status, attempts }) => ({ index, status, attempts }))).toEqual([
      { index: 1, status: 'success', attempts: 1 },
      { index: 2, status: 'success', attempts: 1 },
      { index: 3, status: 'success', attempts: 1 },
    ])
    expect(done.stepResults[2]!.data).toMatchObject({ title: 'Workflow post', markdown: expect.stringContaining('New post') })
    expect(done).not.toHaveProperty('pendingApproval')
    expect(await logOf(tabId)).toEqual(['typed:Hello', '"world"', 'publish:Hello', '"world"'])
  })

  it('BR.WORKFLOW_RUN.3 / BR.WORKFLOW_RUN.4 / BR.WORKFLOW_RUN.10 / BR.WORKFLOW_RUN.11 missing or undeclared inputs, 26 steps and 64 KiB + 1 are refused before anything runs', async () => {
    const tabId = await open()
    const missing = expectToken(await call('browser', { action: 'workflow_run', tabId, source: POST() }), 'INVALID_ARGUMENT')
    expect(missing).toEqual({ errors: [{ code: 'missing-input', name: 'title' }] })
    const extra = expectToken(await call('browser', { action: 'workflow_run', tabId, source: POST(), inputs: { title: 'x', body: 'y' } }), 'INVALID_ARGUMENT')
    expect(extra).toEqual({ errors: [{ code: 'undeclared-input', name: 'body' }] })
    const steps = (n: number) => `---\nsite: fixture\n---\n${Array.from({ length: n }, (_, i) => `${i + 1}. extract: page ${i + 1}`).join('\n')}\n`
    expect(expectToken(await call('browser', { action: 'workflow_run', tabId, source: steps(26) }), 'INVALID_ARGUMENT')).toMatchObject({ code: 'too-many-steps', limit: 25 })
    const big = `---\nsite: fixture\n---\n1. extract: ${'x'.repeat(64 * 1024)}\n`
    expect(expectToken(await call('browser', { action: 'workflow_run', tabId, source: big }), 'INVALID_ARGUMENT')).toMatchObject({ code: 'source-too-large', limit: 65_536 })
    // 25 steps run.
    const most = await run({ tabId, source: steps(25) })
    expect((await ended(most.runId)).status).toBe('completed')
    expect(await logOf(tabId)).toEqual([])
    expectToken(await call('browser', { action: 'workflow_run', tabId: 'tab-nope', source: steps(1) }), 'TAB_NOT_FOUND')
    // BR.WORKFLOW_RUN.1: the person's own tab is never the assistant's to run a workflow on.
    const human = (await person(r.home, '/browser/tabs', { url: site.url('/workflow.html') })) as { tab: { tabId: string } }
    expectToken(await call('browser', { action: 'workflow_run', tabId: human.tab.tabId, source: steps(1) }), 'TAB_NOT_AI_OWNED')
    await person(r.home, `/browser/tabs/${human.tab.tabId}/close`, {}).catch(() => undefined)
  })

  it('BR.WORKFLOW_RUN.6 / BR.WORKFLOW_RUN.7 / BRR.WORKFLOW_STATUS.5 a confirm step pauses the run; resuming inherits the finished steps, takes the paused one as done and resubmits nothing', async () => {
    const tabId = await open()
    const source = `---
site: fixture
inputs: [title]
---
1. action: type {title} into "Title" (textbox)
2. confirm: the person checks the title
3. action: click "Publish" (button)
`
    const first = await run({ tabId, source, inputs: { title: 'Draft' } })
    const paused = await ended(first.runId)
    expect(paused).toMatchObject({ status: 'paused', pausedAt: 'step-2', reasonCode: 'needs-human', completedSteps: 1 })
    expect(paused.stepResults.map((step) => step.status)).toEqual(['success', 'paused', 'pending'])
    expect(await logOf(tabId)).toEqual(['typed:Draft'])

    const resumed = await run({ tabId, source, inputs: { title: 'Draft' }, resumeRunId: first.runId })
    expect(resumed).toMatchObject({ steps: 3, firstStep: 'step-3' })
    const done = await ended(resumed.runId)
    expect(done).toMatchObject({ status: 'completed', resumedFrom: first.runId, completedSteps: 1, skippedSteps: 2 })
    expect(done.stepResults.map(({ status, reasonCode }) => ({ status, reasonCode }))).toEqual([
      { status: 'skipped', reasonCode: 'inherited' },
      { status: 'skipped', reasonCode: 'done-by-person' },
      { status: 'success', reasonCode: undefined },
    ])
    expect(await status(first.runId)).toMatchObject({ status: 'superseded' })
    expect(await logOf(tabId)).toEqual(['typed:Draft', 'publish:Draft'])
    // A run that is no longer paused cannot be resumed again.
    expectToken(await call('browser', { action: 'workflow_run', tabId, source, inputs: { title: 'Draft' }, resumeRunId: first.runId }), 'INVALID_ARGUMENT')
    expectToken(await call('browser', { action: 'workflow_run', tabId, source, inputs: { title: 'Draft' }, resumeRunId: 'wfrun-none' }), 'RUN_NOT_FOUND')
  })

  it('BR.WORKFLOW_RUN.8 / BR.WORKFLOW_RUN.9 a re-run with the same source and inputs skips the writes that succeeded; allowRepeat or other inputs run in full', async () => {
    const tabId = await open()
    const source = POST('3. extract: the post page')
    const first = await run({ tabId, source, inputs: { title: 'Once' } })
    expect((await ended(first.runId)).status).toBe('completed')
    // Another layout of the same workflow is the same workflow.
    const again = await run({ tabId, source: source.replace('1. action', '- action').replace('2. action', '  2. action'), inputs: { title: 'Once' } })
    expect(again.firstStep).toBe('step-3')
    const skipped = await ended(again.runId)
    expect(skipped).toMatchObject({ status: 'completed', completedSteps: 1, skippedSteps: 2 })
    expect(skipped.stepResults.map((step) => [step.status, step.reasonCode, step.attempts])).toEqual([
      ['skipped', 'already-done', 0], ['skipped', 'already-done', 0], ['success', undefined, 1],
    ])
    expect(await logOf(tabId)).toEqual(['typed:Once', 'publish:Once'])

    const repeated = await ended((await run({ tabId, source, inputs: { title: 'Once' }, allowRepeat: true })).runId)
    expect(repeated).toMatchObject({ status: 'completed', completedSteps: 3, skippedSteps: 0 })
    const other = await ended((await run({ tabId, source, inputs: { title: 'Twice' } })).runId)
    expect(other).toMatchObject({ status: 'completed', completedSteps: 3, skippedSteps: 0 })
    expect(await logOf(tabId)).toEqual(['typed:Once', 'publish:Once', 'typed:Once', 'publish:Once', 'typed:Twice', 'publish:Twice'])
  })

  it('BR.WORKFLOW_RUN.5 / BR.WORKFLOW_RUN.15 / BRR.WORKFLOW_STATUS.4 / APPR.6 without a grant each step waits for its own approval, reported as pendingApproval', async () => {
    const other = await r.another()
    const tabId = await open(other)
    const before = await known()
    const started = await run({ tabId, source: POST(), inputs: { title: 'Asked' } }, other)
    const typeRequest = await pendingRequest(before)
    expect(typeRequest.subject).toBe(`type textbox "Title" with text "Asked" on ${site.origin}`)
    const waiting = await until(started.runId, (s) => s.pendingApproval !== undefined, other)
    expect(waiting).toMatchObject({
      status: 'running',
      pendingApproval: { approvalId: typeRequest.id, step: 1, operation: 'type', url: site.origin, target: { role: 'textbox', name: 'Title' } },
    })
    // Polling changes nothing (BRR.WORKFLOW_STATUS.6).
    expect(await status(started.runId, other)).toEqual(waiting)
    expect(await logOf(tabId, other)).toEqual([])

    await decide(r.home, 'approve', typeRequest.id)
    const clickRequest = await pendingRequest(new Set([...before, typeRequest.id]))
    expect(clickRequest.subject).toBe(`click button "Publish" on ${site.origin}`)
    const second = await until(started.runId, (s) => s.pendingApproval?.approvalId === clickRequest.id, other)
    expect(second.stepResults[0]).toMatchObject({ status: 'success' })
    expect(await logOf(tabId, other)).toEqual(['typed:Asked'])
    await decide(r.home, 'approve', clickRequest.id)
    expect(await ended(started.runId, other)).toMatchObject({ status: 'completed', completedSteps: 2 })
    expect(await logOf(tabId, other)).toEqual(['typed:Asked', 'publish:Asked'])
    await other.close()
  })

  it('BR.WORKFLOW_RUN.5 a step the person denies fails the run with reasonCode denied, and nothing reaches the page', async () => {
    const other = await r.another()
    const tabId = await open(other)
    const before = await known()
    const started = await run({ tabId, source: '---\nsite: fixture\n---\n1. action: click "Archive" (button)\n' }, other)
    await decide(r.home, 'deny', (await pendingRequest(before)).id)
    const done = await ended(started.runId, other)
    expect(done).toMatchObject({ status: 'failed', reasonCode: 'denied' })
    expect(done.stepResults[0]).toMatchObject({ status: 'failed', reasonCode: 'denied', attempts: 1 })
    expect(await logOf(tabId, other)).toEqual([])
    await other.close()
  })

  it('BR.WORKFLOW_RUN.6 a prose action pauses for manual handling; a step without a role takes the one role its name has on the page', async () => {
    const tabId = await open()
    const prose = await run({ tabId, source: '---\nsite: fixture\n---\n1. action: archive the old posts\n2. action: click "Archive"\n' })
    expect(await ended(prose.runId)).toMatchObject({ status: 'paused', pausedAt: 'step-1', reasonCode: 'needs-human' })
    const resumed = await run({ tabId, source: '---\nsite: fixture\n---\n1. action: archive the old posts\n2. action: click "Archive"\n', resumeRunId: prose.runId })
    expect(await ended(resumed.runId)).toMatchObject({ status: 'completed', completedSteps: 1, skippedSteps: 1 })
    expect(await logOf(tabId)).toEqual(['archive'])
    const missing = await run({ tabId, source: '---\nsite: fixture\n---\n1. action: click "Nowhere"\n' })
    expect(await ended(missing.runId)).toMatchObject({ status: 'failed', reasonCode: 'hidden' })
  })

  it('a password typed by a run reaches the page, never the log or an answer', async () => {
    const tabId = await open()
    const secret = 'pw-Zq81-never-logged'
    const source = '---\nsite: fixture\ninputs: [password]\n---\n1. action: type {password} into "Password" (textbox)\n'
    const started = await run({ tabId, source, inputs: { password: secret } })
    const done = await ended(started.runId)
    expect(done.status, JSON.stringify(done)).toBe('completed')
    expect(await logOf(tabId)).toEqual(['password'])
    expect(JSON.stringify(done)).not.toContain(secret)
    const log = await cli(r.home, 'log', '--json')
    expect(log.code, log.stderr).toBe(0)
    expect(log.stdout).toContain(started.runId)
    expect(log.stdout).not.toContain(secret)
  })

  it('BR.WORKFLOW_RUN.13 / BR.WORKFLOW_CANCEL.1–5 / APPR.7 one run per tab; cancel is never gated, withdraws the prompt and leaves an ended run as it is', async () => {
    const other = await r.another()
    const tabId = await open(other)
    const before = await known()
    const started = await run({ tabId, source: POST(), inputs: { title: 'Never' } }, other)
    const request = await pendingRequest(before)
    await until(started.runId, (s) => s.pendingApproval !== undefined, other)
    const busy = expectToken(await call('browser', { action: 'workflow_run', tabId, source: POST(), inputs: { title: 'Again' } }, other), 'RUN_ACTIVE')
    expect(busy).toEqual({ runId: started.runId })

    const cancelled = success(await call('browser', { action: 'workflow_cancel', runId: started.runId }, other))
    expect(cancelled).toEqual({ runId: started.runId, status: 'cancelled', outcome: 'cancelled' })
    const after = await status(started.runId, other)
    expect(after).toMatchObject({ status: 'cancelled', reasonCode: 'cancelled' })
    expect(after).not.toHaveProperty('pendingApproval')
    const withdrawn = async () => (await approvals(r.home)).find((entry) => entry.id === request.id)?.status
    const deadline = Date.now() + DEADLINE_MS
    while ((await withdrawn()) === 'pending' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(await withdrawn()).toBe('denied')
    expect(await logOf(tabId, other)).toEqual([])
    // No new request was raised by cancelling.
    expect((await approvals(r.home)).filter((entry) => entry.status === 'pending' && !before.has(entry.id))).toEqual([])

    expect(success(await call('browser', { action: 'workflow_cancel', runId: started.runId }, other))).toEqual({ runId: started.runId, status: 'cancelled', outcome: 'already-terminal' })
    expectToken(await call('browser', { action: 'workflow_cancel', runId: 'wfrun-unknown' }, other), 'RUN_NOT_FOUND')
    // Another connection's run is not its to see or stop.
    expectToken(await call('browser', { action: 'workflow_cancel', runId: started.runId }), 'RUN_NOT_FOUND')
    expectToken(await call('browser_read', { action: 'workflow_status', runId: started.runId }), 'RUN_NOT_FOUND')
    // The tab is free again.
    const next = await run({ tabId, source: '---\nsite: fixture\n---\n1. extract: page\n' }, other)
    expect((await ended(next.runId, other)).status).toBe('completed')
    await other.close()
  })

  it('BR.WORKFLOW_RUN.14 the person giving the tab any input in the console stops the run at once, while it waits on a prompt too', async () => {
    const other = await r.another()
    const tabId = await open(other)
    const before = await known()
    const started = await run({ tabId, source: POST(), inputs: { title: 'Mine' } }, other)
    const request = await pendingRequest(before)
    await until(started.runId, (s) => s.pendingApproval !== undefined, other)
    await personInput(r.home, tabId, { kind: 'mouse', action: 'move', x: 5, y: 5 })
    const stopped = await until(started.runId, (s) => s.status !== 'running', other)
    expect(stopped).toMatchObject({ status: 'cancelled', reasonCode: 'lease-lost' })
    expect(stopped.stepResults[0]).toMatchObject({ status: 'failed', reasonCode: 'lease-lost' })
    const deadline = Date.now() + DEADLINE_MS
    while ((await approvals(r.home)).find((entry) => entry.id === request.id)?.status === 'pending' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
    expect((await approvals(r.home)).find((entry) => entry.id === request.id)?.status).toBe('denied')
    expect(await logOf(tabId, other)).toEqual([])
    await other.close()
  })

  it('a run waiting on the person when the daemon stops is reported failed after the restart, never lost', async () => {
    const other = await r.another()
    const tabId = await open(other)
    const before = await known()
    const started = await run({ tabId, source: POST(), inputs: { title: 'Interrupted' } }, other)
    await pendingRequest(before)
    await until(started.runId, (s) => s.pendingApproval !== undefined, other)
    await r.restart()
    const log = await cli(r.home, 'log', '--json')
    expect(log.code, log.stderr).toBe(0)
    const runEvents = log.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> }).filter((event) => event.data?.runId === started.runId)
    expect(runEvents.map((event) => event.type).slice(0, 3)).toEqual(['browser.run.started', 'browser.run.step_started', 'browser.run.approval_pending'])
    expect(runEvents.at(-1)!.type).toBe('browser.run.ended')
    // Its connection's tabs close as the connection ends (tab-closed), unless the process went first: then the
    // restarted daemon ends it as it loads the stream (daemon-restarted). Either way it ended failed, with a reason.
    expect(runEvents.at(-1)!.data).toMatchObject({ status: 'failed', reasonCode: expect.stringMatching(/^(tab-closed|daemon-restarted)$/) })
    // The inputs' names are kept, never their values.
    expect(runEvents[0]!.data).toMatchObject({ inputNames: ['title'] })
    expect(JSON.stringify(runEvents)).not.toContain('Interrupted')
  })
})

/** A call to the console's Browser API as the person (the port file's token is theirs). */
async function person(home: string, path: string, body: unknown): Promise<unknown> {
  const [port, token] = (await readFile(join(home, 'port'), 'utf8')).trim().split(':') as [string, string]
  const response = await fetch(`http://127.0.0.1:${port}/console/api${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  expect(response.status, await response.clone().text()).toBeLessThan(300)
  return response.json()
}

/** The person's input on a tab's live view. */
async function personInput(home: string, tabId: string, input: Record<string, unknown>): Promise<void> {
  await person(home, `/browser/tabs/${tabId}/input`, { input })
}
