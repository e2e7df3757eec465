import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { consoleRig, eventually, screenshot, type ConsoleRig } from '../support/browser.js'
import { cli, envelope, ok } from '../support/conformance.js'

/**
 * The settings panel: what the person sets there is what `quire settings` and `GET /admin/settings` report, and it
 * governs the assistants (WS.SAVE_AS.3–5: with auto-approve on, a save_as to a new file needs no approval).
 */
describe('console settings panel (Chromium)', () => {
  let rig: ConsoleRig

  beforeAll(async () => {
    rig = await consoleRig('quire-panels-settings-')
  })
  afterAll(async () => {
    await rig?.close()
  })

  const adminSettings = async () => {
    const response = await fetch(`${rig.daemon.url}/admin/settings`, { headers: { authorization: `Bearer ${rig.daemon.token}` } })
    return ((await response.json()) as { settings: Record<string, boolean | string | number> }).settings
  }

  it('lists every setting, grouped and labelled, with the spec\'s name for auto-approve', async () => {
    const { page } = rig
    await page.locator('.panel-open[data-panel="settings"]').click()
    await page.locator('.settings-panel input[data-setting="autoApproveSaves"]').waitFor()
    expect(await page.locator('label[for="setting-autoApproveSaves"]').textContent()).toBe('Auto-approve saves to new locations and genie results')
    const shown = await page.locator('.settings-panel [data-setting]').evaluateAll((controls) => controls.map((control) => control.getAttribute('data-setting')))
    expect(shown.sort()).toEqual(Object.keys(await adminSettings()).sort())
    const groups = await page.locator('.settings-panel legend').allTextContents()
    expect(groups).toContain('Integrations (assistants)')
    expect(groups.filter((title) => title.startsWith('CJK formatting')).length).toBeGreaterThanOrEqual(4)
    expect(groups).not.toContain('Other')
    const quoteStyles = await page.locator('select[data-setting="cjkFormatting.quoteStyle"] option').evaluateAll((options) => options.map((option) => option.getAttribute('value')))
    expect(quoteStyles).toEqual(['curly', 'corner', 'guillemets'])
    await screenshot(page, 'panel-settings')
  })

  it('a toggle and a choice in the panel are what `quire settings` reports, and auto-approve lets save_as to a new file through', async () => {
    const { page, mcp, folder } = rig
    await writeFile(join(folder, 'draft.md'), '# Draft\n')
    const tabId = ok(await mcp.call('workspace', { action: 'open', filePath: join(folder, 'draft.md') })).tabId as string
    // Off (the default): a save to a new file waits for the person.
    envelope(await mcp.call('workspace', { action: 'save_as', tabId, filePath: join(folder, 'first-copy.md') }), 'APPROVAL_REQUIRED')

    await page.locator('input[data-setting="autoApproveSaves"]').check()
    await page.locator('select[data-setting="cjkFormatting.quoteStyle"]').selectOption('corner')
    await page.locator('select[data-setting="cjkFormatting.consecutivePunctuationLimit"]').selectOption('2')
    await eventually(adminSettings, (settings) => settings.autoApproveSaves === true && settings['cjkFormatting.quoteStyle'] === 'corner' && settings['cjkFormatting.consecutivePunctuationLimit'] === 2)
    const listed = await cli(rig.daemon.home, 'settings')
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).toMatch(/^autoApproveSaves\s+true$/m)
    expect(listed.stdout).toMatch(/^cjkFormatting\.quoteStyle\s+"corner"$/m)

    ok(await mcp.call('workspace', { action: 'save_as', tabId, filePath: join(folder, 'second-copy.md') }))

    // And off again from the panel: the next new location needs approval once more.
    await page.locator('input[data-setting="autoApproveSaves"]').uncheck()
    await eventually(adminSettings, (settings) => settings.autoApproveSaves === false)
    const refused = envelope(await mcp.call('workspace', { action: 'save_as', tabId, filePath: join(folder, 'third-copy.md') }), 'APPROVAL_REQUIRED')

    // That request is the person's to decide in the approvals panel, named as a save to a new file.
    await page.locator('.panel-open[data-panel="approvals"]').click()
    const item = page.locator(`.approval[data-approval-id="${refused.approvalId as string}"]`)
    await item.waitFor()
    expect(await item.getAttribute('data-status')).toBe('pending')
    expect(await item.locator('.approval-what').textContent()).toBe('Save a document to this new file')
    expect(await item.locator('.approval-subject').textContent()).toBe(refused.filePath)
    await item.locator('button.approve').click()
    await eventually(() => item.getAttribute('data-status'), (status) => status === 'approved')
    ok(await mcp.call('workspace', { action: 'save_as', tabId, filePath: join(folder, 'third-copy.md') }))
  })
})
