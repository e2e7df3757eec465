import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { USER } from '../../core/events/actor.js'
import { openWorkspaceAsPerson, type Caller } from '../../core/workspace/commands.js'
import { openQuire, type Quire } from '../../adapters/host/quire.js'
import type { Services } from '../../adapters/host/services.js'

const PERSON: Caller = { actor: USER, connection: 'person', principal: null }

/** The person's file tree (core/files/tree.ts) on the real file system: list, create, rename, all inside the scope. */
describe('file tree commands', () => {
  let base: string
  let workspace: string
  let outside: string
  let quire: Quire
  let services: Services

  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'quire-tree-')))
    workspace = join(base, 'ws')
    outside = join(base, 'outside')
    await mkdir(join(workspace, 'notes'), { recursive: true })
    await mkdir(outside)
    await writeFile(join(workspace, 'readme.md'), '# Readme\n')
    await writeFile(join(workspace, 'notes', 'a.md'), 'A\n')
    await mkdir(join(workspace, '.github', 'workflows'), { recursive: true })
    await writeFile(join(workspace, '.github', 'workflows', 'ci.yml'), 'on: push\njobs: {}\n')
    await writeFile(join(outside, 'secret.md'), 'secret\n')
    await symlink(outside, join(workspace, 'link-out'))
    // Quire's data directory inside the workspace (`--workspace ~`): never listed, never moved.
    quire = await openQuire(join(workspace, 'quire-home'), { watchDisk: false })
    services = quire.services
    await openWorkspaceAsPerson(services.engine.store, services.engine.views.workspace, workspace, USER)
  })

  afterEach(async () => {
    await quire.close()
    await rm(base, { recursive: true, force: true })
  })

  it('lists a folder: folders first, kind badges, open tabs; no link leading outside, no Quire data', async () => {
    const listing = await services.tree.list(workspace)
    expect(listing.entries.map((entry) => [entry.name, entry.type, entry.kind])).toEqual([
      ['.github', 'directory', null],
      ['notes', 'directory', null],
      ['readme.md', 'file', 'markdown'],
    ])
    const workflows = await services.tree.list(join(workspace, '.github', 'workflows'))
    expect(workflows.entries.map((entry) => entry.kind)).toEqual(['workflow'])
    await expect(services.tree.list(outside)).rejects.toMatchObject({ code: 'INVALID_PATH' })
    await expect(services.tree.list(join(workspace, 'quire-home'))).rejects.toMatchObject({ code: 'INVALID_PATH' })
    const opened = await services.files.open(join(workspace, 'readme.md'), undefined, PERSON)
    const after = await services.tree.list(workspace)
    expect(after.entries.find((entry) => entry.name === 'readme.md')?.tabIds).toEqual([opened.tabId])
  })

  it('creates a file (opened in a tab) and a folder, never over anything, never outside', async () => {
    const created = await services.tree.createFile(join(workspace, 'notes', 'new.md'), undefined, PERSON)
    expect(await readFile(join(workspace, 'notes', 'new.md'), 'utf8')).toBe('')
    expect(services.engine.views.workspace.state.tabs.get(created.tabId)?.path).toBe(join(workspace, 'notes', 'new.md'))
    await expect(services.tree.createFile(join(workspace, 'readme.md'), undefined, PERSON)).rejects.toMatchObject({ code: 'ALREADY_EXISTS' })
    expect(await readFile(join(workspace, 'readme.md'), 'utf8')).toBe('# Readme\n')
    await expect(services.tree.createFile(join(outside, 'x.md'), undefined, PERSON)).rejects.toMatchObject({ code: 'INVALID_PATH' })
    await expect(services.tree.createFile(join(workspace, 'link-out', 'x.md'), undefined, PERSON)).rejects.toMatchObject({ code: 'INVALID_PATH' })

    await services.tree.createFolder(join(workspace, 'drafts'))
    expect((await services.tree.list(workspace)).entries.map((entry) => entry.name)).toContain('drafts')
    await expect(services.tree.createFolder(join(workspace, 'drafts'))).rejects.toMatchObject({ code: 'ALREADY_EXISTS' })
    await expect(services.tree.createFolder(join(outside, 'drafts'))).rejects.toMatchObject({ code: 'INVALID_PATH' })
  })

  it('renames an open file: the document follows (tab path, dirty kept, saved to the new file), nothing replaced', async () => {
    const from = join(workspace, 'readme.md')
    const to = join(workspace, 'renamed.md')
    const { tabId } = await services.files.open(from, undefined, PERSON)
    const docId = services.engine.views.workspace.state.tabs.get(tabId)!.docId
    await services.documents.write({ docId, content: '# Readme\n\nUnsaved.\n', actor: USER })
    const outcome = await services.tree.rename(from, to, PERSON)
    expect(outcome.retargeted).toEqual([{ docId, path: to }])
    expect(await readFile(to, 'utf8')).toBe('# Readme\n')
    await expect(readFile(from, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' })
    expect(services.engine.views.workspace.state.tabs.get(tabId)?.path).toBe(to)
    const document = await services.engine.documents.get(docId)
    expect(document?.dirty).toBe(true)
    expect(document?.meta?.path).toBe(to)
    await services.files.save(tabId, PERSON)
    expect(await readFile(to, 'utf8')).toBe('# Readme\n\nUnsaved.\n')

    await writeFile(join(workspace, 'taken.md'), 'taken\n')
    await expect(services.tree.rename(to, join(workspace, 'taken.md'), PERSON)).rejects.toMatchObject({ code: 'ALREADY_EXISTS' })
    expect(await readFile(join(workspace, 'taken.md'), 'utf8')).toBe('taken\n')
    await expect(services.tree.rename(to, join(outside, 'x.md'), PERSON)).rejects.toMatchObject({ code: 'INVALID_PATH' })
  })

  it('renames a folder with its open documents; never a workspace folder, nor one holding Quire\'s data', async () => {
    const { tabId } = await services.files.open(join(workspace, 'notes', 'a.md'), undefined, PERSON)
    await services.tree.rename(join(workspace, 'notes'), join(workspace, 'journal'), PERSON)
    expect(services.engine.views.workspace.state.tabs.get(tabId)?.path).toBe(join(workspace, 'journal', 'a.md'))
    expect(await readFile(join(workspace, 'journal', 'a.md'), 'utf8')).toBe('A\n')
    await mkdir(join(workspace, 'other'))
    await expect(services.tree.rename(join(workspace, 'other'), join(workspace, 'journal'), PERSON)).rejects.toMatchObject({ code: 'ALREADY_EXISTS' })
    await expect(services.tree.rename(join(workspace, 'journal'), join(workspace, 'journal', 'inner'), PERSON)).rejects.toMatchObject({ code: 'INVALID_PATH' })
    await expect(services.tree.rename(workspace, join(base, 'ws2'), PERSON)).rejects.toMatchObject({ code: 'INVALID_PATH' })
    await expect(services.tree.rename(join(workspace, 'quire-home'), join(workspace, 'moved-home'), PERSON)).rejects.toMatchObject({ code: 'INVALID_PATH' })
  })

  it('the person\'s save_as needs no approval (approvals answer assistants)', async () => {
    const { tabId } = await services.workspace.newTab('markdown', undefined, PERSON)
    const docId = services.engine.views.workspace.state.tabs.get(tabId)!.docId
    await services.documents.write({ docId, content: 'Fresh.\n', actor: USER })
    await services.files.saveAs(tabId, join(workspace, 'fresh.md'), PERSON)
    expect(await readFile(join(workspace, 'fresh.md'), 'utf8')).toBe('Fresh.\n')
    expect(services.approvals.list()).toEqual([])
  })
})
