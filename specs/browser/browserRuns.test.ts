import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openQuire, type Quire } from '../../adapters/host/quire.js'
import { startHttpServer, type HttpServer } from '../../adapters/http/daemon.js'
import { serveFixtureSite, type FixtureSite } from '../browser-engine/support/fixtureSite.js'
import { eventually, launchChromium } from '../support/browser.js'
import { connectInProcess, REPO_ROOT, tempDir } from '../support/mcpHarness.js'

interface Status {
  runId: string
  status: string
  reasonCode?: string
  reason?: string
  pendingApproval?: { approvalId: string; step: number }
  stepResults: { index: number; status: string }[]
}

/**
 * The console's view of workflow runs (issue 15 item 7): beside the live view of an assistant's tab, the run's steps
 * as they go, the step waiting for the person's approval highlighted with the button to the Approvals panel, and a
 * Cancel that ends the run. The assistant is a real MCP client (in process) driving browser.workflow_run against
 * real Chromium on the fixture site's workflow.html, whose handlers write down in #log what reached them; what the
 * console shows is checked against browser_read.workflow_status. With QUIRE_SCREENSHOTS=1 it writes
 * docs/screenshots/browser-workflow-run.png.
 */
describe('console Browser view: workflow runs (Chromium)', () => {
  let home: string
  let quire: Quire
  let server: HttpServer
  let site: FixtureSite
  let browser: Browser
  let page: Page
  let claude: { client: Client; server: { close(): Promise<void> } }
  let tabId: string

  async function call(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const result = await claude.client.callTool({ name: tool, arguments: args })
    const first = (result.content as { type: string; text?: string }[])[0]
    if (result.isError === true) throw new Error(`${tool} ${String(args.action)}: ${first?.text ?? ''}`)
    return result.structuredContent as Record<string, unknown>
  }
  const status = async (runId: string) => (await call('browser_read', { action: 'workflow_status', runId })) as unknown as Status
  const until = (runId: string, done: (seen: Status) => boolean) => eventually(() => status(runId), done, 30_000)
  const pageLog = async () => ((await call('browser_read', { action: 'query', tabId, selector: '#log' })) as { elements: { text: string }[] }).elements[0]!.text.split(' ').filter(Boolean)
  const runCard = (runId: string) => page.locator(`.browser-run[data-run-id="${runId}"]`)
  const stepsShown = (runId: string) =>
    runCard(runId).locator('.browser-run-step').evaluateAll((items) => items.map((item) => `${item.getAttribute('data-index')}:${item.getAttribute('data-status')}`))

  beforeAll(async () => {
    home = await tempDir('quire-browser-runs-')
    quire = await openQuire(home, { watchDisk: false })
    server = await startHttpServer(quire.services)
    site = await serveFixtureSite()
    claude = await connectInProcess(quire.services, 'mcp-claude-1', 'claude')
    tabId = ((await call('browser', { action: 'open', url: site.url('/workflow.html') })) as { tabId: string }).tabId
    browser = await launchChromium()
    page = await (await browser.newContext({ viewport: { width: 1280, height: 820 } })).newPage()
    await page.goto(`${server.url}/?token=${server.token}`)
    await page.locator('.tabstrip').waitFor()
    await page.locator('.browser-open').click()
    await page.locator(`.browser-tab[data-tab-id="${tabId}"]`).click()
  })
  afterAll(async () => {
    await browser?.close()
    await claude?.client.close()
    await claude?.server.close()
    await server?.close()
    await quire?.close()
    await site?.close()
    await rm(home, { recursive: true, force: true })
  })

  it('a run in progress shows each step\'s status, the step waiting for approval highlighted; approved in the Approvals panel, the run goes on to the end', async () => {
    // The navigation needs no approval in the Sandbox posture; the click does, and waits for the person.
    const source = `---\nsite: fixture\n---\n1. action: navigate to ${site.url('/workflow.html')}\n2. action: click "Publish" (button)\n3. extract: the post page\n`
    const { runId } = (await call('browser', { action: 'workflow_run', tabId, source })) as { runId: string }
    const waiting = await until(runId, (seen) => seen.pendingApproval !== undefined)
    expect(waiting.pendingApproval).toMatchObject({ step: 2 })

    const card = runCard(runId)
    await card.waitFor()
    await eventually(() => stepsShown(runId), (steps) => steps.join() === '1:done,2:waiting,3:pending')
    expect(await card.getAttribute('data-status')).toBe('running')
    expect(await card.locator('.browser-run-status').textContent()).toBe('Running')
    const highlighted = card.locator('.browser-run-step.awaiting-approval')
    expect(await highlighted.count()).toBe(1)
    expect(await highlighted.getAttribute('data-index')).toBe('2')
    expect(await highlighted.getAttribute('data-approval-id')).toBe(waiting.pendingApproval!.approvalId)
    expect(await highlighted.locator('.browser-run-approval-subject').textContent()).toBe(`click button "Publish" on ${site.origin}`)
    expect(await card.locator('.browser-run-cancel').isEnabled()).toBe(true)
    // The strip marks the tab a run is under way on.
    expect(await page.locator(`.browser-tab[data-tab-id="${tabId}"] .browser-tab-run`).count()).toBe(1)
    if (process.env.QUIRE_SCREENSHOTS === '1') await shoot(page, 'browser-workflow-run')

    // The highlighted step's button opens the Approvals panel at the same request; allowed there, the run goes on.
    await highlighted.locator('.browser-approval-open').click()
    await page.locator(`.approval[data-approval-id="${waiting.pendingApproval!.approvalId}"] button.approve`).first().click()
    const done = await until(runId, (seen) => seen.status !== 'running')
    expect(done).toMatchObject({ status: 'completed' })
    await page.locator('.drawer-close').click()
    await eventually(() => stepsShown(runId), (steps) => steps.join() === '1:done,2:done,3:done')
    expect(await card.locator('.browser-run-status').textContent()).toBe('Completed')
    expect(await card.locator('.browser-run-cancel').count()).toBe(0)
    await eventually(() => page.locator(`.browser-tab[data-tab-id="${tabId}"] .browser-tab-run`).count(), (count) => count === 0)
    expect(await pageLog()).toEqual(['publish:'])
  })

  it('BR.WORKFLOW_CANCEL.1 / BR.WORKFLOW_CANCEL.2 / BR.WORKFLOW_CANCEL.3 Cancel in the console ends a run waiting on approval: cancelled through workflow_status, its prompt withdrawn, the step never done', async () => {
    const source = '---\nsite: fixture\n---\n1. action: click "Archive" (button)\n2. extract: the page\n'
    const { runId } = (await call('browser', { action: 'workflow_run', tabId, source })) as { runId: string }
    const waiting = await until(runId, (seen) => seen.pendingApproval !== undefined)
    const card = runCard(runId)
    await eventually(() => stepsShown(runId), (steps) => steps.join() === '1:waiting,2:pending')
    // The newest run is shown in full; the one before it is folded beneath.
    expect(await page.locator('.browser-runs > .browser-run').getAttribute('data-run-id')).toBe(runId)
    expect(await page.locator('.browser-runs-earlier .browser-run').count()).toBe(1)

    const approvalsBefore = (await quire.services.approvals.list()).length
    await card.locator('.browser-run-cancel').click()
    const ended = await until(runId, (seen) => seen.status !== 'running')
    expect(ended).toMatchObject({ status: 'cancelled', reasonCode: 'cancelled', reason: 'cancelled by the person in the console' })
    expect(ended).not.toHaveProperty('pendingApproval')
    // The prompt the run waited on is withdrawn as the runner lets go of the run (just after the cancel is
    // recorded), and stopping asked the person nothing (never gated).
    await eventually(async () => quire.services.approvals.find(waiting.pendingApproval!.approvalId)?.status, (status) => status !== 'pending')
    expect((await quire.services.approvals.list()).length).toBe(approvalsBefore)

    await eventually(() => card.getAttribute('data-status'), (shown) => shown === 'cancelled')
    expect(await card.locator('.browser-run-status').textContent()).toBe('Cancelled')
    expect(await card.locator('.browser-run-reason').textContent()).toBe('cancelled by the person in the console')
    expect(await card.locator('.browser-run-reason').getAttribute('data-reason-code')).toBe('cancelled')
    expect(await card.locator('.browser-run-cancel').count()).toBe(0)
    // The step cut off by the cancel is failed with the run's reason; the one after it never started.
    expect(await stepsShown(runId)).toEqual(['1:failed', '2:pending'])
    expect(await card.locator('.browser-run-step.awaiting-approval').count()).toBe(0)
    expect(await pageLog()).toEqual(['publish:'])
  })

  it('a run paused at a step for the assistant shows it waiting, and Cancel ends the paused run too', async () => {
    const source = '---\nsite: fixture\n---\n1. extract: the page\n2. goal: check the post reads well\n3. action: click "Publish" (button)\n'
    const { runId } = (await call('browser', { action: 'workflow_run', tabId, source })) as { runId: string }
    await until(runId, (seen) => seen.status === 'paused')
    const card = runCard(runId)
    await eventually(() => stepsShown(runId), (steps) => steps.join() === '1:done,2:waiting,3:pending')
    expect(await card.getAttribute('data-status')).toBe('paused')
    expect(await card.locator('.browser-run-step[data-index="2"] .browser-run-step-status').textContent()).toBe('waiting for the assistant or you')
    expect(await card.locator('.browser-run-reason').getAttribute('data-reason-code')).toBe('needs-human')
    // A pause is not an approval: nothing is highlighted for the person to decide.
    expect(await card.locator('.browser-run-step.awaiting-approval').count()).toBe(0)
    await card.locator('.browser-run-cancel').click()
    expect(await until(runId, (seen) => seen.status !== 'paused')).toMatchObject({ status: 'cancelled', reasonCode: 'cancelled' })
    await eventually(() => card.getAttribute('data-status'), (shown) => shown === 'cancelled')
  })

  it('BR.WORKFLOW_CANCEL.4 / BR.WORKFLOW_CANCEL.5 the runs API: an ended run stays as it ended, an unknown one is RUN_NOT_FOUND, and only the person may call it', async () => {
    const asPerson = { authorization: `Bearer ${server.token}` }
    const listed = (await (await fetch(`${server.url}/console/api/browser/runs`, { headers: asPerson })).json()) as { runs: { runId: string; status: string; steps: unknown[] }[] }
    expect(listed.runs.map((run) => run.status)).toEqual(['cancelled', 'cancelled', 'completed'])
    const [newest] = listed.runs
    const again = await fetch(`${server.url}/console/api/browser/runs/${newest!.runId}/cancel`, { method: 'POST', headers: asPerson })
    expect(await again.json()).toEqual({ runId: newest!.runId, status: 'cancelled', outcome: 'already-terminal' })
    const unknown = await fetch(`${server.url}/console/api/browser/runs/wfrun-nothing/cancel`, { method: 'POST', headers: asPerson })
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({ error: 'RUN_NOT_FOUND' })
    expect((await fetch(`${server.url}/console/api/browser/runs`)).status).toBe(401)
    expect((await fetch(`${server.url}/console/api/browser/runs/${newest!.runId}/cancel`, { method: 'POST' })).status).toBe(401)
  })
})

describe('console runs list across a daemon restart', () => {
  it('runs of an earlier daemon (ended as interrupted) are not listed: tab ids start again, so they would show on a new tab', async () => {
    const home = await tempDir('quire-browser-runs-restart-')
    const site = await serveFixtureSite()
    try {
      const first = await openQuire(home, { watchDisk: false })
      const asker = { connection: 'mcp-claude-1', principal: 'claude', actor: { kind: 'mcp', principal: 'claude', connection: 'mcp-claude-1' } } as const
      const { tabId } = await first.services.browser.open('claude', site.url('/workflow.html'))
      // A goal step pauses the run at once: it is left paused when the daemon goes.
      const { runId } = await first.services.workflowRunner.start({ principal: 'claude', asker, tabId, source: '---\nsite: fixture\n---\n1. goal: write the post\n' })
      await eventually(async () => first.services.workflowRuns.state.runs.get(runId)?.status, (status) => status === 'paused')
      await first.close()

      const second = await openQuire(home, { watchDisk: false })
      const server = await startHttpServer(second.services)
      try {
        expect(second.services.workflowRuns.state.runs.get(runId)).toMatchObject({ status: 'failed', tabId })
        const asPerson = { authorization: `Bearer ${server.token}` }
        expect(await (await fetch(`${server.url}/console/api/browser/runs`, { headers: asPerson })).json()).toEqual({ runs: [] })
        const cancel = await fetch(`${server.url}/console/api/browser/runs/${runId}/cancel`, { method: 'POST', headers: asPerson })
        expect(cancel.status).toBe(404)
        expect(await cancel.json()).toMatchObject({ error: 'RUN_NOT_FOUND' })
      } finally {
        await server.close()
        await second.close()
      }
    } finally {
      await site.close()
      await rm(home, { recursive: true, force: true })
    }
  })
})

async function shoot(page: Page, name: string): Promise<void> {
  const folder = join(REPO_ROOT, 'docs', 'screenshots')
  await mkdir(folder, { recursive: true })
  await page.screenshot({ path: join(folder, `${name}.png`) })
}
