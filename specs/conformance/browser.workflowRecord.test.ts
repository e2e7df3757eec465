/**
 * `browser.workflow_record` as an MCP client meets it (TOOLS.md §8.4, §9.5, APPR.4), against real Chromium on the
 * fixture site's login-and-post chore (record/login.html → compose.html → posted.html, forms sent with GET so the
 * pages' addresses carry what was typed). The person's part is done the way the console's live view does it: mouse,
 * key and text input posted to /console/api/browser/tabs/:tabId/input (personSide.ts), never the assistant's act.
 * The person decides approvals through the real CLI. Every wait is a poll with a deadline, never a sleep asserted on.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { parseWorkflow } from '../../core/browser/workflow/parse.js'
import type { FixtureSite } from '../browser-engine/support/fixtureSite.js'
import { approvals, cli, decide, TRANSPORTS, type ApprovalLine, type Rig, type Session, type ToolResult, type Transport } from '../support/conformance.js'
import { useBrowserRig } from '../support/browserRig.js'

type Args = Record<string, unknown>
interface Box { x: number; y: number; width: number; height: number }
interface Stopped { source: string; inputs: string[]; eventCount: number; recordingId: string; dropped?: Record<string, number> }

const DEADLINE_MS = 30_000

// What the person types while recording: none of it may reach the source, an answer or the log.
const RECORDED = {
  email: 'alice.recorded@example.com',
  password: 'pw-Recorded-5521-secret',
  code: '880417',
  title: 'Title-Typed-While-Recording',
  body: 'Body-Typed-While-Recording',
}
// What the person types at replay, at the confirm steps.
const REPLAYED_SECRETS = { password: 'pw-Replay-9043-secret', code: '312907' }

function expectToken(result: ToolResult, token: string): Record<string, unknown> {
  expect(result.isError, result.text).toBe(true)
  expect(result.text.startsWith(`${token}: `), result.text).toBe(true)
  return (result.structured as { data: Record<string, unknown> }).data
}

function success(result: ToolResult): Record<string, unknown> {
  expect(result.isError, result.text).toBe(false)
  return result.structured as Record<string, unknown>
}

async function poll<T>(what: string, look: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS
  for (;;) {
    const found = await look()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error(`${what} never happened`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe.each<Transport>(TRANSPORTS)('browser workflow recording over %s', (transport) => {
  let r: Rig
  let site: FixtureSite
  /** The chore as recorded, and the inputs it was replayed with (the chore's test sets it for the one after it). */
  let recorded: { source: string; inputs: Record<string, string> } | undefined
  /** Every answer the assistant got, to search for the typed values. */
  const answers: string[] = []
  const call = async (tool: string, args: Args, session: Session = r.session): Promise<ToolResult> => {
    const result = await session.call(tool, args)
    answers.push(result.text, JSON.stringify(result.structured ?? null))
    return result
  }
  const open = async (path: string, session: Session = r.session): Promise<string> =>
    (success(await call('browser', { action: 'open', url: site.url(path) }, session)) as { tabId: string }).tabId
  const known = async () => new Set((await approvals(r.home)).map((entry) => entry.id))
  const pendingRequest = (since: Set<string>, kind: string): Promise<ApprovalLine> =>
    poll(`a ${kind} request`, async () => (await approvals(r.home)).find((entry) => entry.kind === kind && entry.status === 'pending' && !since.has(entry.id)))
  const record = (tabId: string, extra: Args = {}, session: Session = r.session) => call('browser', { action: 'workflow_record', recordOp: 'start', tabId, ...extra }, session)
  /** `start`, with the person allowing it once as soon as it is asked. */
  const startAllowed = async (tabId: string, extra: Args = {}, session: Session = r.session): Promise<Record<string, unknown>> => {
    const before = await known()
    const answer = record(tabId, extra, session)
    await decide(r.home, 'approve', (await pendingRequest(before, 'browser_record')).id)
    return success(await answer)
  }
  const stop = async (tabId?: string, session: Session = r.session): Promise<Stopped> =>
    success(await call('browser', { action: 'workflow_record', recordOp: 'stop', ...(tabId !== undefined ? { tabId } : {}) }, session)) as unknown as Stopped
  const boxOf = async (tabId: string, selector: string): Promise<Box> => {
    const queried = success(await call('browser_read', { action: 'query', tabId, selector, fields: { box: true } })) as { elements: { box: Box }[] }
    expect(queried.elements.length, selector).toBeGreaterThan(0)
    return queried.elements[0]!.box
  }
  const waitForText = (tabId: string, text: string) =>
    poll(`"${text}" on ${tabId}`, async () => {
      const found = success(await call('browser_read', { action: 'wait_for', tabId, text, timeoutMs: 2_000 })) as { matched: boolean }
      return found.matched ? true : undefined
    })
  const pageText = async (tabId: string, selector: string): Promise<string> =>
    (success(await call('browser_read', { action: 'query', tabId, selector })) as { elements: { text: string }[] }).elements[0]!.text

  // The person's hands, through the console's live view.
  const person = async (tabId: string, input: Args): Promise<void> => personInput(r.home, tabId, input)
  const click = async (tabId: string, selector: string): Promise<void> => {
    const box = await boxOf(tabId, selector)
    const at = { x: box.x + Math.min(box.width / 2, 10), y: box.y + box.height / 2 }
    await person(tabId, { kind: 'mouse', action: 'down', ...at, button: 'left', clickCount: 1 })
    await person(tabId, { kind: 'mouse', action: 'up', ...at, button: 'left', clickCount: 1 })
  }
  const typeInto = async (tabId: string, selector: string, text: string): Promise<void> => {
    await click(tabId, selector)
    await person(tabId, { kind: 'text', text })
  }
  const press = (tabId: string, key: string) => Promise.all([]).then(async () => {
    await person(tabId, { kind: 'key', action: 'down', key, code: key })
    await person(tabId, { kind: 'key', action: 'up', key, code: key })
  })

  useBrowserRig(transport, (made) => {
    r = made.rig
    site = made.site
  })
  beforeAll(async () => {
    // The person allows act-class operations on the fixture site for the main connection, for the replays.
    const tabId = await open('/record/login.html')
    const before = await known()
    const answer = call('browser', { action: 'act', tabId, operation: 'click', role: 'checkbox', name: 'Remember me' })
    await decide(r.home, 'approve', (await pendingRequest(before, 'browser_act')).id, 'site')
    expect((await answer).isError).toBe(false)
    await call('browser', { action: 'close', tabId })
  })

  it('BR.WORKFLOW_RECORD.2 / BR.WORKFLOW_RECORD.3 / APPR.4 start answers needsApproval until the person allows it, and every recording asks again', async () => {
    const tabId = await open('/record/login.html')
    const before = await known()
    const first = record(tabId, { site: 'fixture-blog' })
    const request = await pendingRequest(before, 'browser_record')
    expect(request.subject).toBe(`record what you do on tab ${tabId} (${site.origin}) as the workflow "fixture-blog": which elements you click and which fields you edit, never what you type`)
    await decide(r.home, 'deny', request.id)
    const denied = success(await first)
    expect(denied).toMatchObject({ needsApproval: true, approvalId: request.id, tabId, approvalStatus: 'denied' })
    // Denied stays denied: the next call asks the person anew, and still answers needsApproval.
    const again = success(await record(tabId, { site: 'fixture-blog' }))
    expect(again).toMatchObject({ needsApproval: true, tabId, approvalStatus: 'pending' })
    expect(again.approvalId).not.toBe(request.id)
    // The record permission is never standing: "Allow on this site" is not on offer.
    const site_ = await cli(r.home, 'approvals', 'approve', again.approvalId as string, '--scope', 'site')
    expect(site_.code).not.toBe(0)
    await decide(r.home, 'approve', again.approvalId as string)
    expect(success(await record(tabId, { site: 'fixture-blog' }))).toMatchObject({ recording: true, tabId, site: 'fixture-blog', recordingId: expect.stringMatching(/^rec-/) })
    // One recording per tab; refused before the person is asked anything.
    const asked = await known()
    expectToken(await record(tabId), 'RECORDING_ACTIVE')
    expect((await approvals(r.home)).filter((entry) => !asked.has(entry.id))).toEqual([])
    await stop(tabId)
    // Used up by the start it allowed: the next recording of the same tab asks again (BR.WORKFLOW_RECORD.2).
    const next = await known()
    const third = record(tabId, { site: 'fixture-blog' })
    const nextRequest = await pendingRequest(next, 'browser_record')
    await decide(r.home, 'approve', nextRequest.id)
    expect(success(await third)).toMatchObject({ recording: true })
    const nothing = await stop(tabId)
    expect(nothing).toMatchObject({ eventCount: 0, inputs: [] })
    expect(nothing.source).toBe(`---\nsite: fixture-blog\n---\n1. action: navigate to ${site.url('/record/login.html')}\n`)
    expectToken(await call('browser', { action: 'workflow_record', recordOp: 'stop', tabId }), 'RECORDING_NOT_FOUND')
  })

  it('BR.WORKFLOW_RECORD.1 / BR.WORKFLOW_RECORD.4–12 the person\'s login-and-post chore becomes a workflow of locators, inputs and confirm steps; no typed value anywhere', async () => {
    const tabId = await open('/record/login.html?next=%2Fsecret-next-token')
    const started = await startAllowed(tabId)
    expect(started).toMatchObject({ recording: true, tabId, site: 'recording' })

    await click(tabId, 'label:has(input[name=remember])')
    await typeInto(tabId, 'input[name=email]', RECORDED.email)
    await typeInto(tabId, 'input[name=password]', RECORDED.password)
    await typeInto(tabId, 'input[name=code]', RECORDED.code)
    // Enter in the last field sends the form: taken as the click on its button.
    await press(tabId, 'Enter')
    await waitForText(tabId, 'Signed in as')
    await typeInto(tabId, '#title', RECORDED.title)
    await typeInto(tabId, '#body', RECORDED.body)
    await click(tabId, 'button[type=submit]')
    await waitForText(tabId, 'posted')

    const stopped = await stop(tabId)
    expect(stopped.source).toBe(`---
site: recording
inputs: [email, title, body]
---
1. action: navigate to ${site.url('/record/login.html')}
2. action: click "Remember me" (checkbox)
3. action: type {email} into "Email" (textbox)
4. confirm: type the password into "Password" (textbox) yourself, then resume
5. confirm: type the one-time code into "One-time code" (textbox) yourself, then resume
6. action: click "Log in" (button)
7. action: type {title} into "Title" (textbox)
8. action: type {body} into "Body" (textbox)
9. action: click "Publish" (button)
`)
    expect(stopped).toMatchObject({ inputs: ['email', 'title', 'body'], eventCount: 8 })
    expect(stopped).not.toHaveProperty('dropped')
    const parsed = parseWorkflow(stopped.source)
    expect(parsed.ok && parsed.warnings).toEqual([])

    // BR.WORKFLOW_RECORD.7: nothing typed, nor the query of any address, is in an answer or the log.
    const log = await cli(r.home, 'log', '--json')
    expect(log.code, log.stderr).toBe(0)
    for (const value of [...Object.values(RECORDED), 'secret-next-token']) {
      expect(stopped.source).not.toContain(value)
      expect(answers.join('\n')).not.toContain(value)
      expect(log.stdout).not.toContain(value)
    }
    const events = log.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> })
      .filter((event) => event.type.startsWith('browser.record.') && event.data.recordingId === started.recordingId)
    expect(events.map((event) => event.type)).toEqual(['browser.record.started', 'browser.record.stopped'])
    expect(events[0]!.data).toMatchObject({ tabId, site: 'recording', origin: site.origin, approvalId: expect.stringMatching(/^ap-/) })
    expect(events[1]!.data).toEqual({
      recordingId: started.recordingId, reason: 'stopped', eventCount: 8, stepCount: 9, inputCount: 3, confirmCount: 2, pageCount: 3,
      dropped: { pageCap: 0, sessionCap: 0, unlocatable: 0 },
    })

    // BR.WORKFLOW_RECORD.5, .8, .9: workflow_run takes it with the inputs and pauses where the person's secrets go.
    const replayTab = await open('/')
    const inputs = { email: 'bob@example.com', title: 'Replayed post', body: 'A body of 24 characters' }
    const first = success(await call('browser', { action: 'workflow_run', tabId: replayTab, source: stopped.source, inputs })) as { runId: string }
    const atPassword = await ended(first.runId)
    expect(atPassword).toMatchObject({ status: 'paused', pausedAt: 'step-4', completedSteps: 3 })
    await typeInto(replayTab, 'input[name=password]', REPLAYED_SECRETS.password)
    const second = success(await call('browser', { action: 'workflow_run', tabId: replayTab, source: stopped.source, inputs, resumeRunId: first.runId })) as { runId: string }
    expect(await ended(second.runId)).toMatchObject({ status: 'paused', pausedAt: 'step-5' })
    await typeInto(replayTab, 'input[name=code]', REPLAYED_SECRETS.code)
    const third = success(await call('browser', { action: 'workflow_run', tabId: replayTab, source: stopped.source, inputs, resumeRunId: second.runId })) as { runId: string }
    recorded = { source: stopped.source, inputs }
    const done = await ended(third.runId)
    expect(done, JSON.stringify(done)).toMatchObject({ status: 'completed' })
    await waitForText(replayTab, 'posted')
    expect(await pageText(replayTab, '#result')).toBe('posted "Replayed post" by bob@example.com (23 characters)')

    const after = await cli(r.home, 'log', '--json')
    const stored = await filesUnder(r.home)
    for (const value of [...Object.values(RECORDED), ...Object.values(REPLAYED_SECRETS)]) {
      expect(answers.join('\n')).not.toContain(value)
      expect(after.stdout).not.toContain(value)
      // Nor anywhere in the data directory: the log's files, the browser's profiles, the saved sessions' store.
      for (const [path, bytes] of stored) expect(bytes.includes(value), `${value} in ${path}`).toBe(false)
    }
  })

  it('the recorded chore again: a repeat skips the writes it did, a run waiting on an approval is cancelled, a run is stopped by the person taking over the tab', async () => {
    expect(recorded, 'the chore is recorded and replayed by the test before this one').toBeDefined()
    const { source, inputs } = recorded!
    // BR.WORKFLOW_RUN.8: the same source and inputs on the same connection skip the writes that succeeded.
    const again = success(await call('browser', { action: 'workflow_run', tabId: await open('/'), source, inputs })) as { runId: string }
    const repeated = (await ended(again.runId)) as { skippedSteps: number; stepResults: { status: string; reasonCode?: string }[] }
    expect(repeated.skippedSteps, JSON.stringify(repeated)).toBeGreaterThan(0)
    for (const step of repeated.stepResults.filter((result) => result.status === 'skipped')) expect(step.reasonCode).toBe('already-done')

    // Another connection has no standing grant on the site: its first act waits for the person, and is cancelled.
    const other = await r.another()
    try {
      const waiting = async (tabId: string) => {
        const started = success(await call('browser', { action: 'workflow_run', tabId, source, inputs }, other)) as { runId: string }
        await poll(`run ${started.runId} to wait on an approval`, async () => {
          const seen = success(await call('browser_read', { action: 'workflow_status', runId: started.runId }, other)) as { pendingApproval?: unknown }
          return seen.pendingApproval === undefined ? undefined : true
        })
        return started.runId
      }
      const cancelledRun = await waiting(await open('/', other))
      expect(success(await call('browser', { action: 'workflow_cancel', runId: cancelledRun }, other))).toMatchObject({ status: 'cancelled', outcome: 'cancelled' })
      expect(success(await call('browser_read', { action: 'workflow_status', runId: cancelledRun }, other))).toMatchObject({ status: 'cancelled', reasonCode: 'cancelled' })

      // BR.WORKFLOW_RUN.14: the person's input to the tab in the console stops the run there and then.
      const takenTab = await open('/', other)
      const takenRun = await waiting(takenTab)
      await person(takenTab, { kind: 'mouse', action: 'move', x: 5, y: 5 })
      const taken = await poll(`run ${takenRun} to stop`, async () => {
        const seen = success(await call('browser_read', { action: 'workflow_status', runId: takenRun }, other)) as { status: string }
        return seen.status === 'running' ? undefined : seen
      })
      expect(taken).toMatchObject({ status: 'cancelled', reasonCode: 'lease-lost' })
    } finally {
      await other.close()
    }
  })

  it('BR.WORKFLOW_RECORD.13 at most 200 events per page; the count starts over on the next page', async () => {
    const tabId = await open('/many?n=3')
    await startAllowed(tabId, { site: 'caps' })
    const box = await boxOf(tabId, 'button')
    const at = { x: box.x + box.width / 2, y: box.y + box.height / 2 }
    for (let n = 0; n < 203; n++) {
      await person(tabId, { kind: 'mouse', action: 'down', ...at, button: 'left', clickCount: 1 })
      await person(tabId, { kind: 'mouse', action: 'up', ...at, button: 'left', clickCount: 1 })
    }
    // The assistant's navigation is no click of the person's: the recording says where the next page was.
    success(await call('browser', { action: 'navigate', tabId, url: site.url('/record/login.html') }))
    await click(tabId, 'label:has(input[name=remember])')
    const stopped = await stop(tabId)
    expect(stopped.eventCount).toBe(201)
    expect(stopped.dropped).toEqual({ pageCap: 3, sessionCap: 0, unlocatable: 0 })
    const lines = stopped.source.trim().split('\n')
    expect(lines.filter((line) => line.endsWith('action: click "Button 0" (button)'))).toHaveLength(200)
    expect(lines.slice(-2)).toEqual([`202. action: navigate to ${site.url('/record/login.html')}`, '203. action: click "Remember me" (checkbox)'])
    // Longer than a run takes (BR.WORKFLOW_RUN.10): a recording may be, and says so only when run.
    expect(parseWorkflow(stopped.source).ok).toBe(true)
  })

  it('BR.WORKFLOW_RECORD.1 only the assistant\'s own tabs are recorded; a tab closed mid-recording still hands over what was captured', async () => {
    const human = (await personPost(r.home, '/browser/tabs', { url: site.url('/record/login.html') })) as { tab: { tabId: string } }
    const asked = await known()
    expectToken(await record(human.tab.tabId), 'TAB_NOT_AI_OWNED')
    expect((await approvals(r.home)).filter((entry) => !asked.has(entry.id))).toEqual([])
    await personPost(r.home, `/browser/tabs/${human.tab.tabId}/close`, {}).catch(() => undefined)

    const tabId = await open('/record/login.html')
    await startAllowed(tabId)
    await typeInto(tabId, 'input[name=email]', RECORDED.email)
    success(await call('browser', { action: 'close', tabId }))
    const stopped = await stop(tabId)
    expect(stopped.source).toContain('2. action: type {email} into "Email" (textbox)')
    expect(stopped.eventCount).toBe(1)
    expectToken(await call('browser', { action: 'workflow_record', recordOp: 'stop', tabId }), 'RECORDING_NOT_FOUND')
  })

  const ended = (runId: string) =>
    poll(`run ${runId} to stop running`, async () => {
      const seen = success(await call('browser_read', { action: 'workflow_status', runId })) as { status: string }
      return seen.status === 'running' ? undefined : (seen as Record<string, unknown>)
    })
})

/** Every regular file under `root`, as latin1 text (so any byte sequence can be searched), by path. */
async function filesUnder(root: string): Promise<Map<string, string>> {
  const found = new Map<string, string>()
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    const bytes = await readFile(path).catch(() => undefined)
    if (bytes) found.set(path, bytes.toString('latin1'))
  }
  return found
}

async function portAndToken(home: string): Promise<[string, string]> {
  return (await readFile(join(home, 'port'), 'utf8')).trim().split(':') as [string, string]
}

/** A call to the console's Browser API as the person (the port file's token is theirs). */
async function personPost(home: string, path: string, body: unknown): Promise<unknown> {
  const [port, token] = await portAndToken(home)
  const response = await fetch(`http://127.0.0.1:${port}/console/api${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  expect(response.status, await response.clone().text()).toBeLessThan(300)
  return response.json()
}

/** The person's input on a tab's live view, as the console sends it. */
async function personInput(home: string, tabId: string, input: Record<string, unknown>): Promise<void> {
  await personPost(home, `/browser/tabs/${tabId}/input`, { input })
}
