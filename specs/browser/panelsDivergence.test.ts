import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { consoleRig, eventually, screenshot, type ConsoleRig } from '../support/browser.js'
import { ok, read } from '../support/conformance.js'

/**
 * The divergence banner: a file changed on disk while its tab has unsaved changes; the console offers Keep / Reload
 * (what `quire divergence keep|reload` decides), and the choice is what the assistant then reads.
 */
describe('console divergence banner (Chromium)', () => {
  let rig: ConsoleRig

  beforeAll(async () => {
    rig = await consoleRig('quire-panels-divergence-')
  })
  afterAll(async () => {
    await rig?.close()
  })

  /** A tab with unsaved changes whose file is then rewritten by another program. */
  const diverge = async (name: string) => {
    const { mcp, folder } = rig
    const path = join(folder, name)
    await writeFile(path, '# Original\n')
    const tabId = ok(await mcp.call('workspace', { action: 'open', filePath: path })).tabId as string
    ok(await mcp.call('document', { action: 'write', tabId, content: '# Unsaved edit\n', save: false }))
    await writeFile(path, '# Changed on disk\n')
    return { path, tabId }
  }

  it('offers Keep / Reload for a file changed on disk under unsaved changes; Reload makes read return the file', async () => {
    const { page, mcp } = rig
    const { path, tabId } = await diverge('notes.md')
    const row = page.locator('.divergence-banner .divergence')
    // The disk watcher notices within a few seconds.
    await row.waitFor({ timeout: 10_000 })
    expect(await row.textContent()).toContain(path)
    expect(await row.locator('button').allTextContents()).toEqual(['Keep my version', 'Reload from disk'])
    await eventually(() => page.locator(`.tab[data-tab-id="${tabId}"]`).getAttribute('class'), (names) => names?.includes('diverged') === true)
    await screenshot(page, 'panel-divergence')

    await row.locator('button[data-choice="reload"]').click()
    await eventually(() => read(mcp, tabId), (doc) => doc.content === '# Changed on disk\n')
    await page.locator('.divergence-banner').waitFor({ state: 'hidden' })
  })

  it('Keep leaves the tab\'s text and takes the banner away', async () => {
    const { page, mcp } = rig
    const { tabId } = await diverge('kept.md')
    const row = page.locator('.divergence-banner .divergence')
    await row.waitFor({ timeout: 10_000 })
    await row.locator('button[data-choice="keep"]').click()
    await page.locator('.divergence-banner').waitFor({ state: 'hidden' })
    const doc = await read(mcp, tabId)
    expect(doc.content).toBe('# Unsaved edit\n')
    expect(doc.dirty).toBe(true)
  })
})
