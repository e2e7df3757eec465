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

/** What the person types into the recorded page: the recording must never hold it. */
const TYPED = 'Typed title 5c1e'

interface Box { x: number; y: number; width: number; height: number }

/**
 * The console's Record button and live capture (issue 15 item 7): an assistant (a real MCP client, in process) asks
 * to record its tab with browser.workflow_record; the Record button of that tab in the Browser view allows it; while
 * it records, the person's clicks and typing on the live view (real mouse and keys on the console page, in real
 * Chromium) show up beside it as the steps captured so far, never the typed value; Stop recording ends the capture
 * and the assistant's stop still gets the workflow. With QUIRE_SCREENSHOTS=1 it writes
 * docs/screenshots/browser-recording.png.
 */
describe('console Browser view: recording a workflow (Chromium)', () => {
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
  const record = (recordOp: 'start' | 'stop') => call('browser', { action: 'workflow_record', recordOp, tabId, ...(recordOp === 'start' ? { site: 'fixture-post' } : {}) })
  const boxOf = async (selector: string): Promise<Box> =>
    ((await call('browser_read', { action: 'query', tabId, selector, fields: { box: true } })) as { elements: { box: Box }[] }).elements[0]!.box
  /** Clicks the live view where the middle of the page's element is shown (the view scales the frames to fit). */
  async function clickOnLiveView(selector: string): Promise<void> {
    const box = await boxOf(selector)
    const live = (await page.locator('.browser-live').boundingBox())!
    const scale = live.width / 1280
    await page.mouse.click(live.x + (box.x + box.width / 2) * scale, live.y + (box.y + box.height / 2) * scale)
  }
  const recordButton = () => page.locator('.browser-record')
  const capturedSteps = () => page.locator('.browser-recording-step').allTextContents()

  beforeAll(async () => {
    home = await tempDir('quire-browser-recording-')
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
    await eventually(() => page.locator('.browser-live').getAttribute('data-frames-of'), (of) => of === tabId)
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

  it('with nothing asked, Record is there but has nothing to allow', async () => {
    await eventually(() => recordButton().getAttribute('data-state'), (state) => state === 'idle')
    expect(await recordButton().isDisabled()).toBe(true)
    expect(await recordButton().getAttribute('title')).toContain('browser.workflow_record')
    expect(await page.locator('.browser-recording').isHidden()).toBe(true)
  })

  it('BR.WORKFLOW_RECORD.3 / BR.WORKFLOW_RECORD.7 Record allows the assistant\'s request; the person\'s clicks and typing on the live view show up as captured steps, never the typed value; Stop recording ends it and the assistant gets the workflow', async () => {
    const asked = await record('start')
    expect(asked).toMatchObject({ needsApproval: true })
    await eventually(() => recordButton().getAttribute('data-state'), (state) => state === 'asked')
    expect(await recordButton().getAttribute('title')).toContain(`record what you do on tab ${tabId} (${site.origin}) as the workflow "fixture-post"`)
    await recordButton().click()
    await eventually(async () => quire.services.approvals.find(asked.approvalId as string)?.status, (status) => status === 'approved')
    // The assistant's retry starts it (the approval is used up: the next recording asks again).
    expect(await record('start')).toMatchObject({ recording: true, tabId, site: 'fixture-post' })

    await eventually(() => recordButton().getAttribute('data-state'), (state) => state === 'recording')
    expect(await recordButton().textContent()).toBe('■ Stop recording')
    expect(await page.locator(`.browser-tab[data-tab-id="${tabId}"] .browser-tab-rec`).count()).toBe(1)
    const panel = page.locator('.browser-recording')
    await panel.waitFor()
    expect(await panel.textContent()).toContain('Nothing captured yet')

    // The person's own hands on the live view: into the Title field, a title typed, then Publish.
    await clickOnLiveView('#title')
    await page.keyboard.type(TYPED)
    await clickOnLiveView('#publish')
    await eventually(capturedSteps, (steps) => steps.some((step) => step.includes('click "Publish" (button)')))
    const steps = await capturedSteps()
    expect(steps).toContain('action: type {title} into "Title" (textbox)')
    expect(Number(await panel.locator('.browser-recording-count').getAttribute('data-events'))).toBeGreaterThanOrEqual(2)
    expect(await panel.textContent()).not.toContain(TYPED)
    // The page did get it: the person typed for real.
    const logged = ((await call('browser_read', { action: 'query', tabId, selector: '#log' })) as { elements: { text: string }[] }).elements[0]!.text
    expect(logged).toContain(`publish:${TYPED}`)
    if (process.env.QUIRE_SCREENSHOTS === '1') await shoot(page, 'browser-recording')

    await recordButton().click()
    await eventually(() => recordButton().getAttribute('data-state'), (state) => state === 'idle')
    expect(await panel.isHidden()).toBe(true)
    expect(await page.locator(`.browser-tab[data-tab-id="${tabId}"] .browser-tab-rec`).count()).toBe(0)
    expect(quire.services.workflowRecorder.list()).toEqual([])
    // Stopped by the person, the workflow is still the assistant's to take, once.
    const stopped = await record('stop')
    expect(stopped.inputs).toEqual(['title'])
    expect(stopped.source).toContain('action: type {title} into "Title" (textbox)')
    expect(stopped.source).toContain('action: click "Publish" (button)')
    expect(JSON.stringify(stopped)).not.toContain(TYPED)
  })

  it('the recordings API is the person\'s: refused without the console cookie or the port file\'s token; stopping a tab that records nothing is RECORDING_NOT_FOUND', async () => {
    expect((await fetch(`${server.url}/console/api/browser/recordings`)).status).toBe(401)
    expect((await fetch(`${server.url}/console/api/browser/tabs/${tabId}/recording/stop`, { method: 'POST' })).status).toBe(401)
    const asPerson = { authorization: `Bearer ${server.token}` }
    expect(await (await fetch(`${server.url}/console/api/browser/recordings`, { headers: asPerson })).json()).toEqual({ recordings: [] })
    const none = await fetch(`${server.url}/console/api/browser/tabs/${tabId}/recording/stop`, { method: 'POST', headers: asPerson })
    expect(none.status).toBe(404)
    expect(await none.json()).toMatchObject({ error: 'RECORDING_NOT_FOUND' })
  })
})

async function shoot(page: Page, name: string): Promise<void> {
  const folder = join(REPO_ROOT, 'docs', 'screenshots')
  await mkdir(folder, { recursive: true })
  await page.screenshot({ path: join(folder, `${name}.png`) })
}
