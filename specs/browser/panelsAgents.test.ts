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
})
