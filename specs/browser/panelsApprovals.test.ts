import { realpath, rm } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { consoleRig, eventually, screenshot, type ConsoleRig } from '../support/browser.js'
import { envelope, folder, ok, windowOf } from '../support/conformance.js'
import type { Session } from '../support/mcpHarness.js'

/**
 * The approvals panel (APPR.1, WS.OPEN_WORKSPACE.4–9): an assistant's open_workspace request shows up in the console
 * with what it asks (the canonical folder), for which connection and principal, and its time left; the person's
 * click there is the decision the assistant's retry meets.
 */
describe('console approvals panel (Chromium)', () => {
  let rig: ConsoleRig
  let agent: Session
  let agentToken: string
  const folders: string[] = []

  beforeAll(async () => {
    rig = await consoleRig('quire-panels-approvals-')
    // An assistant with its own token, so its name is the request's principal.
    const added = await fetch(`${rig.daemon.url}/admin/agents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rig.daemon.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'claude' }),
    })
    agentToken = ((await added.json()) as { token: string }).token
    agent = await rig.daemon.connect(agentToken)
  })
  afterAll(async () => {
    await agent?.close()
    await rig?.close()
    for (const path of folders) await rm(path, { recursive: true, force: true })
  })

  /** The connection id the daemon bound a request to, from the person's admin list (what `quire approvals` prints). */
  const connectionOf = async (approvalId: string) => {
    const response = await fetch(`${rig.daemon.url}/admin/approvals`, { headers: { authorization: `Bearer ${rig.daemon.token}` } })
    const { approvals } = (await response.json()) as { approvals: Array<{ approvalId: string; connection: string }> }
    return approvals.find((approval) => approval.approvalId === approvalId)!.connection
  }

  it('shows an open_workspace request with its folder, connection and principal; Approve lets the retry open it', async () => {
    const target = await folder('quire-panels-approve-', { 'inside.md': 'inside\n' })
    folders.push(target)
    const asked = ok(await agent.call('workspace', { action: 'open_workspace', folderPath: target }))
    expect(asked.needsApproval).toBe(true)
    const { page } = rig

    const badge = page.locator('.panel-open[data-panel="approvals"] .panel-badge')
    await eventually(() => badge.textContent(), (text) => text === '1')
    await page.locator('.panel-open[data-panel="approvals"]').click()
    const item = page.locator(`.approval[data-approval-id="${asked.approvalId}"]`)
    await item.waitFor()
    expect(await item.locator('.approval-what').textContent()).toBe('Open this folder as a workspace')
    expect(await item.locator('.approval-subject').textContent()).toBe(await realpath(target))
    expect(await item.locator('.approval-principal').textContent()).toBe('claude')
    expect(await item.locator('.approval-connection').textContent()).toBe(await connectionOf(asked.approvalId))
    expect(await item.locator('.approval-expiry').textContent()).toMatch(/^expires in [45]:\d\d$/)
    await screenshot(page, 'panel-approvals')

    // The panel's API is the person's: an assistant's own token can neither list nor approve its request.
    const asAgent = { method: 'POST', headers: { authorization: `Bearer ${agentToken}` } }
    expect((await fetch(`${rig.daemon.url}/console/api/panels/approvals`, { headers: asAgent.headers })).status).toBe(401)
    expect((await fetch(`${rig.daemon.url}/console/api/panels/approvals/${asked.approvalId}/approve`, asAgent)).status).toBe(401)

    await item.locator('button.approve').click()
    await eventually(() => item.getAttribute('data-status'), (status) => status === 'approved')
    const opened = ok(await agent.call('workspace', { action: 'open_workspace', folderPath: target }))
    expect(opened.needsApproval).toBeUndefined()
    expect((await windowOf(agent)).activeWorkspaceInstanceId).toBe(opened.workspaceInstanceId)
    // Used: listed greyed out among the decided ones, and the badge is gone.
    await eventually(() => item.getAttribute('data-status'), (status) => status === 'consumed')
    expect(await page.locator('.approval-list.decided').locator(`[data-approval-id="${asked.approvalId}"]`).count()).toBe(1)
    expect(await badge.isHidden()).toBe(true)
  })

  it('Deny keeps an anonymous connection\'s request failing, and the panel says who asked', async () => {
    const target = await folder('quire-panels-deny-', { 'inside.md': 'inside\n' })
    folders.push(target)
    const shownBefore = (await windowOf(rig.mcp)).activeWorkspaceInstanceId
    const asked = ok(await rig.mcp.call('workspace', { action: 'open_workspace', folderPath: target }))
    expect(asked.needsApproval).toBe(true)
    const { page } = rig
    const item = page.locator(`.approval[data-approval-id="${asked.approvalId}"]`)
    await item.waitFor()
    expect(await item.locator('.approval-principal').textContent()).toBe('anonymous')
    expect(await item.locator('.approval-subject').textContent()).toBe(await realpath(target))

    await item.locator('button.deny').click()
    await eventually(() => item.getAttribute('data-status'), (status) => status === 'denied')
    expect(await item.locator('button').count()).toBe(0)
    envelope(await rig.mcp.call('workspace', { action: 'open_workspace', folderPath: target }), 'APPROVAL_REQUIRED')
    expect((await windowOf(rig.mcp)).activeWorkspaceInstanceId).toBe(shownBefore)
  })
})
