import { mkdir, readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CoherenceBreakdown, CoherenceGrants } from '../../adapters/http/consoleCoherenceApi.js'
import { consoleEditor, eventually, launchChromium, openConsole, screenshot } from '../support/browser.js'
import { folder, ok, removeAll } from '../support/conformance.js'
import { STORY_FILES, tellStaleStory } from '../support/coherenceStory.js'
import { launchDaemon, REPO_ROOT, type Daemon } from '../support/mcpHarness.js'

/**
 * The console's Coherence panel (issue 14 item 7): the person sees ch3.md and ch4.md gone stale after elena.md
 * changed, grants the assistant `claude` a delegation (7 days unless chosen otherwise, never forever) under which
 * claude accepts ch4.md over MCP (the grant's audit shows it), waives ch3.md's edge with a reason, revokes the grant,
 * and opens the stale document with Revise. With QUIRE_SCREENSHOTS=1 it writes
 * docs/screenshots/coherence-panel.png.
 */
describe('console Coherence panel (Chromium)', () => {
  let root: string
  let daemon: Daemon
  let browser: Browser
  let page: Page
  let token: string

  const admin = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${daemon.url}${path}`, { headers: { authorization: `Bearer ${daemon.token}` } })
    expect(response.status).toBe(200)
    return (await response.json()) as T
  }

  beforeAll(async () => {
    root = await folder('quire-coherence-panel-', STORY_FILES)
    daemon = await launchDaemon({ workspaces: [root] })
    token = (await tellStaleStory(daemon, root, ['ch3.md', 'ch4.md'])).token
    browser = await launchChromium()
    page = await openConsole(browser, daemon)
    await page.locator('.coherence-open').click()
    await page.locator('.coherence-view').waitFor()
  })
  afterAll(async () => {
    await browser?.close()
    await daemon?.stop()
    await removeAll(root)
  })

  it('shows the workspace, its status and the stale edges from elena.md to ch3.md and ch4.md', async () => {
    const rows = page.locator('.coherence-row[data-state="version-stale"]')
    await rows.first().waitFor()
    expect(await page.locator('.coherence-row').count()).toBe(2)
    expect(await rows.locator('.coherence-downstream').allTextContents()).toEqual(['ch3.md', 'ch4.md'])
    expect(await rows.locator('.coherence-upstream').allTextContents()).toEqual(['elena.md', 'elena.md'])
    expect(await rows.locator('.coherence-badge').allTextContents()).toEqual(['version-stale', 'version-stale'])
    expect(await page.locator('.coherence-workspace').inputValue()).toBe(root)
    expect(await page.locator('.coherence-status [data-status="open-items"]').textContent()).toBe('2 stale')
    expect(await page.locator('.coherence-tracking').isHidden()).toBe(true)
    expect(await page.locator('.editor-host').isHidden()).toBe(true)
  })

  it('grants claude a delegation: the agent picked from the live tokens, both scopes, 7 days by default', async () => {
    expect(await page.locator('.coherence-grant-agent').inputValue()).toBe('claude')
    expect(await page.locator('.coherence-grant-days').inputValue()).toBe('7')
    expect(await page.locator('.coherence-grant-days option').allTextContents()).toEqual(['7 days', '1 day', '30 days'])
    const before = Date.now()
    await page.locator('.coherence-grant-form button[type="submit"]').click()
    const granted = page.locator('.coherence-grant[data-standing="live"]')
    await granted.waitFor()
    expect(await granted.locator('.coherence-grant-delegate').textContent()).toBe('claude')
    expect(await granted.locator('.coherence-grant-may').textContent()).toBe('Accept newer, Waive')
    expect(await granted.locator('.coherence-grant-authorized').textContent()).toBe('0')
    const [grant] = (await admin<CoherenceGrants>('/admin/coherence/grants')).grants
    expect(grant).toMatchObject({ delegate: 'claude', scope: ['accept-newer', 'waive'], standing: 'live' })
    const lifetime = Date.parse(grant!.expires) - before
    expect(lifetime).toBeGreaterThan(7 * 86_400_000 - 60_000)
    expect(lifetime).toBeLessThanOrEqual(7 * 86_400_000 + 60_000)
  })

  it('claude accepts ch4.md under the grant over MCP: the row goes, the grant’s audit lists the resolution', async () => {
    const ch4 = (await admin<CoherenceBreakdown>('/admin/coherence/edges')).contexts[0]!.rows.find((row) => row.downstreamPath === 'ch4.md')!
    const mcp = await daemon.connect(token)
    try {
      ok(await mcp.call('coherence_resolve', { action: 'resolve', workspace_root: root, txf: ch4.txf, input: ch4.input, resolution: 'accept-newer' }))
    } finally {
      await mcp.close()
    }
    const audit = page.locator('.coherence-audit li')
    await audit.waitFor()
    expect(await audit.textContent()).toMatch(new RegExp(` · accepted newer by claude · edge ${ch4.txf.slice(0, 8)}#${ch4.input}$`))
    expect(await page.locator('.coherence-grant[data-standing="live"] .coherence-grant-authorized').textContent()).toBe('1')
    await eventually(() => page.locator('.coherence-row .coherence-downstream').allTextContents(), (paths) => paths.join() === 'ch3.md')
    if (process.env.QUIRE_SCREENSHOTS === '1') await shoot(page, 'coherence-panel')
    await screenshot(page, 'coherence-panel')
  })

  it('waives the stale edge only with a reason; the waiver is the person’s, in the ledger', async () => {
    const row = page.locator('.coherence-row[data-state="version-stale"]').filter({ hasText: 'ch3.md' })
    await row.locator('.coherence-waive').click()
    const reason = row.locator('.coherence-reason')
    await reason.waitFor()
    // No reason, no waiver: the form stays open.
    await row.locator('.coherence-waive-form button[type="submit"]').click()
    expect(await reason.isVisible()).toBe(true)
    await reason.fill('Chapter 3 is set before she learns to fear water')
    await row.locator('.coherence-waive-form button[type="submit"]').click()
    await page.locator('.coherence-row[data-state="waived"]').waitFor()
    const waived = page.locator('.coherence-row[data-state="waived"]')
    expect(await waived.locator('.coherence-waive').count()).toBe(0)
    expect(await waived.locator('.coherence-accept').count()).toBe(1)
    expect((await admin<CoherenceBreakdown>('/admin/coherence/edges')).contexts[0]!.rows.map((each) => each.state)).toEqual(['waived'])

    const ledger = join(root, '.vmark', 'ledger')
    const lines = (await Promise.all((await readdir(ledger)).map((name) => readFile(join(ledger, name), 'utf8')))).join('').split('\n').filter((line) => line !== '')
    const waivers = lines.map((line) => JSON.parse(line) as { kind: string; body: { reason?: string; actor: { type: string; id: string }; delegation?: string } }).filter((entry) => entry.kind === 'waiver')
    expect(waivers).toHaveLength(1)
    expect(waivers[0]!.body).toMatchObject({ reason: 'Chapter 3 is set before she learns to fear water', actor: { type: 'human' } })
    expect(waivers[0]!.body.delegation).toBeUndefined()
    // The person's own waiver needs no grant and is not in claude's audit.
    expect(await page.locator('.coherence-grant[data-standing="live"] .coherence-grant-authorized').textContent()).toBe('1')
  })

  it('revokes the grant: it stays listed as revoked, with no Revoke button', async () => {
    page.once('dialog', (dialog) => void dialog.accept())
    await page.locator('.coherence-grant[data-standing="live"] .coherence-revoke').click()
    const revoked = page.locator('.coherence-grant[data-standing="revoked"]')
    await revoked.waitFor()
    expect(await revoked.locator('.coherence-revoke').count()).toBe(0)
    expect(await revoked.locator('.coherence-grant-may').textContent()).toBe('—')
    expect((await admin<CoherenceGrants>('/admin/coherence/grants')).grants.map((each) => each.standing)).toEqual(['revoked'])
  })

  it('Revise opens the stale document in the editor', async () => {
    await page.locator('.coherence-row').filter({ hasText: 'ch3.md' }).locator('.coherence-revise').click()
    await eventually(() => consoleEditor(page), (editor) => editor?.text?.includes('Elena fights.') === true && editor.connection === 'synced')
    expect(await page.locator('.coherence-view').isHidden()).toBe(true)
    expect(await page.locator('.coherence-open').getAttribute('aria-pressed')).toBe('false')
    expect(await page.locator('.tab.active .tab-title').textContent()).toBe('ch3')
  })
})

async function shoot(page: Page, name: string): Promise<void> {
  const folderPath = join(REPO_ROOT, 'docs', 'screenshots')
  await mkdir(folderPath, { recursive: true })
  await page.screenshot({ path: join(folderPath, `${name}.png`) })
}
