import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { consoleRig, eventually, screenshot, type ConsoleRig } from '../support/browser.js'
import { ok } from '../support/conformance.js'

/**
 * The agents panel: adding an agent shows its token once (what `quire agent add` prints), and that token opens an
 * MCP session over Streamable HTTP under the agent's name; revoking it shuts the client out.
 */
describe('console agents panel (Chromium)', () => {
  let rig: ConsoleRig

  beforeAll(async () => {
    rig = await consoleRig('quire-panels-agents-')
  })
  afterAll(async () => {
    await rig?.close()
  })

  it('adds an agent, shows its token once, and the token authenticates an MCP session; revoke refuses it', async () => {
    const { page, daemon } = rig
    await page.locator('.panel-open[data-panel="agents"]').click()
    await page.locator('.agents-panel .panel-empty').waitFor()
    await page.locator('#agent-name').fill('claude')
    await page.locator('.agent-add button[type="submit"]').click()
    const shown = page.locator('.agent-token-box[data-agent="claude"] .agent-token')
    await shown.waitFor()
    const token = (await shown.textContent())!
    expect(token).toMatch(/^qa_[A-Za-z0-9_-]+$/)
    expect(await page.locator('.agent-token-box button.copy').count()).toBe(1)
    await page.locator('.agent[data-agent="claude"]').waitFor()
    await screenshot(page, 'panel-agents')

    const session = await daemon.connect(token)
    try {
      ok(await session.call('session', { action: 'get_state' }))
    } finally {
      await session.close()
    }

    // Shown once: once the drawer closes, the token is nowhere on the page.
    await page.locator('.panel-open[data-panel="agents"]').click()
    await page.locator('.panel-open[data-panel="agents"]').click()
    await page.locator('.agent[data-agent="claude"]').waitFor()
    expect(await page.content()).not.toContain(token)

    // A duplicate name is refused, with the reason in the panel.
    await page.locator('#agent-name').fill('claude')
    await page.locator('.agent-add button[type="submit"]').click()
    await page.locator('.agents-panel .panel-error').waitFor()

    page.once('dialog', (dialog) => void dialog.accept())
    await page.locator('.agent[data-agent="claude"] button.revoke').click()
    await eventually(() => page.locator('.agent[data-agent="claude"]').getAttribute('class'), (names) => names?.includes('revoked') === true)
    await expect(daemon.connect(token)).rejects.toThrow()
  })

  it("lists each agent's live MCP sessions, and the person ends one with its End button (issue 24, item 4)", async () => {
    const { page, daemon } = rig
    const added = await fetch(`${daemon.url}/console/api/panels/agents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'codex' }),
    })
    const { token } = (await added.json()) as { token: string }
    const kept = await daemon.connect(token)
    const ended = await daemon.connect(token)
    try {
      ok(await kept.call('session', { action: 'get_state' }))
      ok(await ended.call('session', { action: 'get_state' }))
      // Opened afresh, so the panel reads the sessions open now.
      if (!(await page.locator('.agents-panel').isVisible())) await page.locator('.panel-open[data-panel="agents"]').click()
      const sessions = page.locator('.agent[data-agent="codex"] .agent-session')
      await eventually(() => sessions.count(), (count) => count === 2)
      expect(await page.locator('.agent[data-agent="codex"] .agent-sessions-count').textContent()).toBe('2 open MCP sessions')
      expect(await sessions.first().textContent()).toContain('quire-conformance 1.0.0')
      await screenshot(page, 'panel-agents-sessions')

      // The newest is listed last; the person ends it.
      const id = (await sessions.nth(1).getAttribute('data-session'))!
      expect(id).toMatch(/^mcp-[0-9a-f]{8}$/)
      await page.locator(`.agent-session[data-session="${id}"] button.end-session`).click()
      await eventually(() => sessions.count(), (count) => count === 1)
      expect(await page.locator('.agent[data-agent="codex"] .agent-sessions-count').textContent()).toBe('1 open MCP session')
      await expect(ended.call('session', { action: 'get_state' })).rejects.toThrow()
      ok(await kept.call('session', { action: 'get_state' }))
      // A session its client ends (HTTP DELETE) leaves the list while the panel is open.
      await (kept.client.transport as StreamableHTTPClientTransport).terminateSession()
      await eventually(() => sessions.count(), (count) => count === 0)
    } finally {
      await kept.close()
      await ended.close()
    }
  })
})
