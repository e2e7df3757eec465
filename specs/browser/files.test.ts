import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { consoleEditor, consoleRig, type ConsoleRig, eventually, openTab, screenshot } from '../support/browser.js'
import type { Session } from '../support/mcpHarness.js'

interface StateTab {
  readonly id: string
  readonly title: string
  readonly filePath: string | null
  readonly dirty: boolean
  readonly active: boolean
}

/**
 * The console as the person's editor (issue 12 item 2): the file tree of the workspace, live; open, create, rename;
 * typing, Ctrl+S and the file on disk; closing with unsaved changes; a new document saved as a file. Everything the
 * person does here is a core command in the person's name, checked through the assistant's `session.get_state`.
 */
describe('console file tree and file actions (Chromium)', () => {
  let folder: string
  let mcp: Session
  let page: Page
  let rig: ConsoleRig

  beforeAll(async () => {
    rig = await consoleRig('quire-browser-files-')
    ;({ folder, mcp, page } = rig)
  })

  afterAll(() => rig?.close())

  const tabs = async () => ((await mcp.call('session', { action: 'get_state' })).structured as { windows: { tabs: StateTab[] }[] }).windows[0]!.tabs
  const tree = () =>
    page.locator('.files .tree-row').evaluateAll((rows) =>
      rows.map((row) => `${row.querySelector('.tree-name')?.textContent ?? ''}${row.querySelector('.tree-kind') ? `[${row.querySelector('.tree-kind')?.textContent}]` : ''}`),
    )
  const row = (path: string) => page.locator(`.files .tree-row[data-path="${path}"]`)
  const answer = async (choice: string, text?: string) => {
    const dialog = page.locator('.dialog')
    await dialog.waitFor()
    if (text !== undefined) await dialog.locator('.dialog-input').fill(text)
    await dialog.locator(`[data-choice="${choice}"]`).click()
    await dialog.waitFor({ state: 'detached' })
  }
  const exists = (path: string) => stat(path).then(() => true, () => false)

  it('shows the workspace\'s folders and files with kind badges, and what another program adds or removes, live', async () => {
    await writeFile(join(folder, 'notes.md'), '# Notes\n\nFirst line.\n')
    await mkdir(join(folder, '.github', 'workflows'), { recursive: true })
    await writeFile(join(folder, '.github', 'workflows', 'ci.yml'), 'on: push\njobs: {}\n')
    await mkdir(join(folder, 'drafts'))
    await writeFile(join(folder, 'drafts', 'idea.md'), 'An idea.\n')
    const name = folder.slice(folder.lastIndexOf('/') + 1)
    await eventually(tree, (shown) => JSON.stringify(shown) === JSON.stringify([name, '.github', 'drafts', 'notes.md[md]']))
    await row(join(folder, 'drafts')).locator('.tree-item').click()
    await row(join(folder, '.github')).locator('.tree-item').click()
    await row(join(folder, '.github', 'workflows')).locator('.tree-item').click()
    await eventually(tree, (shown) => shown.includes('ci.yml[workflow]') && shown.includes('idea.md[md]'))

    // Another program adds a file and removes one: the tree follows without a click.
    await writeFile(join(folder, 'drafts', 'added.yaml'), 'key: value\n')
    await rm(join(folder, 'drafts', 'idea.md'))
    await eventually(tree, (shown) => shown.includes('added.yaml[yaml]') && !shown.includes('idea.md[md]'))
  })

  it('opens a file from the tree, Ctrl+S writes what the person typed to disk', async () => {
    const path = join(folder, 'notes.md')
    await row(path).locator('.tree-item').click()
    const opened = await eventually(tabs, (now) => now.some((tab) => tab.filePath === path && tab.active))
    const tabId = opened.find((tab) => tab.filePath === path)!.id
    await openTab(page, tabId, 'source')
    await eventually(() => consoleEditor(page), (editor) => editor?.text === '# Notes\n\nFirst line.\n')
    await page.locator('.cm-content').click()
    await page.keyboard.press('Control+End')
    await page.keyboard.type('Typed here.\n')
    await eventually(tabs, (now) => now.find((tab) => tab.id === tabId)?.dirty === true)
    await expect(readFile(path, 'utf8')).resolves.toBe('# Notes\n\nFirst line.\n')
    await page.keyboard.press('Control+s')
    await eventually(() => readFile(path, 'utf8'), (text) => text === '# Notes\n\nFirst line.\nTyped here.\n')
    await eventually(tabs, (now) => now.find((tab) => tab.id === tabId)?.dirty === false)
    // Saved straight after typing: the save waits for the keystrokes still on their way to the daemon.
    await page.keyboard.type('At once.')
    await page.keyboard.press('Control+s')
    await eventually(() => readFile(path, 'utf8'), (text) => text === '# Notes\n\nFirst line.\nTyped here.\nAt once.')
    await page.keyboard.press('Enter')
    await page.keyboard.press('Control+s')
    await eventually(() => readFile(path, 'utf8'), (text) => text === '# Notes\n\nFirst line.\nTyped here.\nAt once.\n')
    await eventually(() => row(path).getAttribute('class'), (name) => name?.includes('active') === true)
    await screenshot(page, 'files-tree')
  })

  it('creates a file (opened in a tab) and a folder, and renames an open file: its tab follows', async () => {
    await row(join(folder, 'drafts')).locator('.tree-item').click() // the folder to create in
    await page.locator('.files-new-file').click()
    await answer('create', 'fresh.md')
    const fresh = join(folder, 'drafts', 'fresh.md')
    await eventually(() => exists(fresh), (present) => present)
    await eventually(tabs, (now) => now.some((tab) => tab.filePath === fresh && tab.active))
    await eventually(tree, (shown) => shown.includes('fresh.md[md]'))

    await page.locator('.files-new-folder').click()
    await answer('create', 'sub')
    await eventually(() => stat(join(folder, 'drafts', 'sub')).then((s) => s.isDirectory(), () => false), (made) => made)

    // Refused, not replaced: a name that is taken.
    await row(fresh).locator('.tree-rename').click()
    await answer('rename', 'added.yaml')
    await eventually(() => page.locator('.files-error').textContent(), (text) => text?.includes('already exists') === true)
    await expect(readFile(join(folder, 'drafts', 'added.yaml'), 'utf8')).resolves.toBe('key: value\n')

    await row(fresh).locator('.tree-rename').click()
    await answer('rename', 'renamed.md')
    const renamed = join(folder, 'drafts', 'renamed.md')
    await eventually(() => exists(renamed), (present) => present)
    expect(await exists(fresh)).toBe(false)
    await eventually(tabs, (now) => now.some((tab) => tab.filePath === renamed && tab.title === 'renamed') && !now.some((tab) => tab.filePath === fresh))
    await eventually(tree, (shown) => shown.includes('renamed.md[md]') && !shown.includes('fresh.md[md]'))
    await screenshot(page, 'files-renamed')
  })

  it('closing a tab with unsaved changes asks (DIRTY): cancel keeps it, discard closes it and leaves the file as it was', async () => {
    const path = join(folder, 'notes.md')
    const tabId = (await tabs()).find((tab) => tab.filePath === path)!.id
    await openTab(page, tabId, 'source')
    await page.locator('.cm-content').click()
    await page.keyboard.press('Control+End')
    await page.keyboard.type('Not to keep.')
    await eventually(tabs, (now) => now.find((tab) => tab.id === tabId)?.dirty === true)
    await page.locator(`.tab[data-tab-id="${tabId}"] .tab-close`).click()
    await page.locator('.dialog').waitFor()
    await expect(page.locator('.dialog-title').textContent()).resolves.toBe('Unsaved changes')
    await screenshot(page, 'files-close-dirty')
    await answer('cancel')
    expect((await tabs()).some((tab) => tab.id === tabId)).toBe(true)

    await page.locator(`.tab[data-tab-id="${tabId}"] .tab-close`).click()
    await answer('discard')
    await eventually(tabs, (now) => !now.some((tab) => tab.id === tabId))
    await expect(readFile(path, 'utf8')).resolves.toBe('# Notes\n\nFirst line.\nTyped here.\nAt once.\n')
    await eventually(() => page.locator(`.tab[data-tab-id="${tabId}"]`).count(), (count) => count === 0)
  })

  it('closing a tab whose file another program changed under unsaved changes asks (DIVERGENT), and keeps the file', async () => {
    const path = join(folder, 'drafts', 'renamed.md')
    const tabId = (await tabs()).find((tab) => tab.filePath === path)!.id
    await openTab(page, tabId, 'source')
    await page.locator('.cm-content').click()
    await page.keyboard.type('Unsaved words.')
    await eventually(tabs, (now) => now.find((tab) => tab.id === tabId)?.dirty === true)
    await writeFile(path, 'Written by another program.\n')
    // The divergence banner says the disk changed: the core has marked the document diverged.
    await page.locator('.divergence-banner .divergence').first().waitFor()
    await page.locator(`.tab[data-tab-id="${tabId}"] .tab-close`).click()
    await page.locator('.dialog').waitFor()
    await expect(page.locator('.dialog-title').textContent()).resolves.toBe('Changed on disk')
    await screenshot(page, 'files-close-divergent')
    await answer('discard')
    await eventually(tabs, (now) => !now.some((tab) => tab.id === tabId))
    await expect(readFile(path, 'utf8')).resolves.toBe('Written by another program.\n')
  })

  it('a new untitled document, saved with Ctrl+S, asks where and writes a new file (no approval: it is the person\'s)', async () => {
    const before = new Set((await tabs()).map((tab) => tab.id))
    await page.locator('.file-new').click()
    const created = await eventually(tabs, (now) => now.some((tab) => !before.has(tab.id) && tab.active && tab.filePath === null))
    const tabId = created.find((tab) => !before.has(tab.id))!.id
    await openTab(page, tabId, 'source')
    await page.locator('.cm-content').click()
    await page.keyboard.type('# Brand new\n')
    await eventually(tabs, (now) => now.find((tab) => tab.id === tabId)?.dirty === true)
    await page.keyboard.press('Control+s')
    const target = join(folder, 'brand-new.md')
    await page.locator('.dialog').waitFor()
    await expect(page.locator('.dialog-input').inputValue()).resolves.toBe(join(folder, 'Untitled.md'))
    await answer('save', target)
    await eventually(() => readFile(target, 'utf8').catch(() => null), (text) => text === '# Brand new\n')
    await eventually(tabs, (now) => now.find((tab) => tab.id === tabId)?.filePath === target)
    const approvals = await (await fetch(`${rig.daemon.url}/console/api/panels/approvals`, { headers: { authorization: `Bearer ${rig.daemon.token}` } })).json() as { pending: unknown[]; recent: unknown[] }
    expect([...approvals.pending, ...approvals.recent]).toEqual([])
  })
})
