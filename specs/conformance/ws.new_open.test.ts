/**
 * workspace.new and workspace.open (TOOLS.md §3.1–3.2) and the tool-wide rules WS.GEN.1–2, over stdio and HTTP.
 */
import { symlink } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  TRANSPORTS, open, bytes, envelope, folder, getState, newTab, ok, plain, read, removeAll, rig, tabsOf, windowOf, world, write,
  type Rig, type Transport,
} from '../support/conformance.js'

describe.each<Transport>(TRANSPORTS)('workspace.new / workspace.open over %s', (transport) => {
  let r: Rig
  let w: string
  let v: string
  let outside: string

  beforeAll(async () => {
    outside = await folder('out', { 'secret.md': 'outside the scope\n' })
    w = await folder('wsopen', { 'a.md': '# A\n\nalpha\n', 'notes/b.md': 'beta\n', 'c.md': 'gamma\n', 'sub/dir/.keep': '' })
    await symlink(`${outside}/secret.md`, `${w}/escape.md`)
    v = await folder('wsopen2', { 'v.md': 'vee\n' })
    // V opens last, so it is the workspace main shows.
    r = await rig(transport, { workspaces: [w, v] })
  })
  afterAll(async () => {
    await r?.close()
    await removeAll(w, v, outside)
  })

  it('WS.NEW.1 new creates an untitled tab and returns exactly {tabId} naming it', async () => {
    const before = await tabsOf(r.session)
    const result = ok(await r.session.call('workspace', { action: 'new' }))
    expect(Object.keys(result)).toEqual(['tabId'])
    expect(result.tabId).toBeTypeOf('string')
    const after = await tabsOf(r.session)
    expect(after.length).toBe(before.length + 1)
    const created = after.find((entry) => entry.id === result.tabId)
    expect(created).toMatchObject({ filePath: null, dirty: false })
    expect((await read(r.session, result.tabId)).content).toBe('')
  })

  it('WS.NEW.2 the kind defaults to markdown and otherwise equals the kind asked for', async () => {
    const plainTab = await newTab(r.session)
    const markdown = await newTab(r.session, 'markdown')
    const yaml = await newTab(r.session, 'yaml-workflow')
    const kinds = Object.fromEntries((await tabsOf(r.session)).map((entry) => [entry.id, entry.kind]))
    expect([kinds[plainTab], kinds[markdown], kinds[yaml]]).toEqual(['markdown', 'markdown', 'yaml-workflow'])
    expect((await read(r.session, yaml)).kind).toBe('yaml-workflow')
    expect((await read(r.session, plainTab)).kind).toBe('markdown')
  })

  it('WS.NEW.2 a kind that is neither markdown nor yaml-workflow is an argument error and creates no tab', async () => {
    const before = await getState(r.session)
    plain(await r.session.call('workspace', { action: 'new', kind: 'python' }))
    expect(await getState(r.session)).toEqual(before)
  })

  it('WS.NEW.3 the tab is created in the window named by windowLabel, or in the focused (most recently used) window when omitted', async () => {
    const named = ok(await r.session.call('workspace', { action: 'new', windowLabel: 'main' })).tabId
    const omitted = await newTab(r.session)
    const main = await windowOf(r.session, 'main')
    expect(main.tabs.map((entry) => entry.id)).toEqual(expect.arrayContaining([named, omitted]))
    // The new tab is what the window now shows.
    expect(main.tabs.find((entry) => entry.active)?.id).toBe(omitted)
  })

  it('WS.NEW.3 an unknown windowLabel is refused and creates no tab anywhere', async () => {
    const before = await getState(r.session)
    const result = await r.session.call('workspace', { action: 'new', windowLabel: 'no-such-window' })
    expect(result.isError).toBe(true)
    expect(await getState(r.session)).toEqual(before)
  })

  it('WS.OPEN.1 open puts the file in a background tab and returns exactly {tabId, workspaceInstanceId, activationChanged, workspaceSwitched}', async () => {
    const result = ok(await r.session.call('workspace', { action: 'open', filePath: `${w}/a.md` }))
    expect(Object.keys(result).sort()).toEqual(['activationChanged', 'tabId', 'workspaceInstanceId', 'workspaceSwitched'])
    expect(result.tabId).toBeTypeOf('string')
    expect(result.activationChanged).toBe(false)
    expect(result.workspaceSwitched).toBe(false)
    expect(result.workspaceInstanceId).toBeTypeOf('string')
    const entry = (await tabsOf(r.session)).find((candidate) => candidate.id === result.tabId)
    expect(entry).toMatchObject({ filePath: `${w}/a.md`, active: false, dirty: false, kind: 'markdown' })
    const document = await read(r.session, result.tabId)
    expect(document.content).toBe('# A\n\nalpha\n')
    expect(document.filePath).toBe(`${w}/a.md`)
  })

  it('WS.OPEN.2 opening never changes the visible tab or the active workspace, even for a file of a workspace the window does not show', async () => {
    const current = await newTab(r.session)
    const before = await windowOf(r.session)
    expect(before.tabs.find((entry) => entry.active)?.id).toBe(current)
    const result = ok(await r.session.call('workspace', { action: 'open', filePath: `${w}/notes/b.md` }))
    expect(result.workspaceSwitched).toBe(false)
    expect(result.activationChanged).toBe(false)
    const after = await windowOf(r.session)
    expect(after.activeWorkspaceInstanceId).toBe(before.activeWorkspaceInstanceId)
    expect(after.tabs.find((entry) => entry.active)?.id).toBe(current)
    // The tab belongs to W, which main does not show.
    expect(result.workspaceInstanceId).not.toBe(before.activeWorkspaceInstanceId)
    expect(after.tabs.find((entry) => entry.id === result.tabId)).toMatchObject({ active: false, visible: false })
  })

  it.each([
    ['a missing file', (w: string) => `${w}/missing.md`],
    ['a directory', (w: string) => `${w}/sub/dir`],
    ['a relative path', () => 'a.md'],
    ['a file outside every workspace and document folder', () => '/etc/hostname'],
    ['a symlink in the workspace that points outside it', (w: string) => `${w}/escape.md`],
    ['a path that climbs out with ..', (w: string) => `${w}/../${w.split('/').pop()}-x/a.md`],
  ])('WS.OPEN.3 WS.GEN.2 %s is refused with INVALID_PATH and changes nothing', async (_label, pathOf) => {
    const before = await world(r.session, w, outside)
    envelope(await r.session.call('workspace', { action: 'open', filePath: pathOf(w) }), 'INVALID_PATH')
    expect(await world(r.session, w, outside)).toEqual(before)
  })

  it('WS.GEN.2 save_as is confined to the path scope: a target outside it is INVALID_PATH and nothing is created', async () => {
    const tabId = await open(r.session, `${w}/c.md`)
    const before = await world(r.session, w, outside)
    envelope(await r.session.call('workspace', { action: 'save_as', tabId, filePath: `${outside}/copy.md` }), 'INVALID_PATH')
    envelope(await r.session.call('workspace', { action: 'save_as', tabId, filePath: `${w}/escape.md` }), 'INVALID_PATH')
    expect(await bytes(`${outside}/copy.md`)).toBeNull()
    expect(await world(r.session, w, outside)).toEqual(before)
  })

  it('WS.GEN.2 open_workspace is not subject to the path scope: a folder outside it asks for approval instead of INVALID_PATH', async () => {
    const result = ok(await r.session.call('workspace', { action: 'open_workspace', folderPath: outside }))
    expect(result.needsApproval).toBe(true)
  })

  it('WS.GEN.1 no workspace action changes the text of a document', async () => {
    const fileTab = await open(r.session, `${w}/a.md`)
    const draft = await newTab(r.session)
    await write(r.session, draft, 'draft text\n')
    const unsaved = await open(r.session, `${w}/notes/b.md`)
    await write(r.session, unsaved, 'beta, unsaved\n', { save: false })
    const texts = async () => {
      const out: Record<string, unknown> = {}
      for (const tabId of [fileTab, draft, unsaved]) {
        const { content, revision } = await read(r.session, tabId)
        out[tabId] = { content, revision }
      }
      return out
    }
    const before = await texts()
    const steps: Array<Record<string, unknown>> = [
      { action: 'new' },
      { action: 'open', filePath: `${w}/a.md` },
      { action: 'switch_tab', tabId: fileTab },
      { action: 'switch_tab', tabId: unsaved },
      { action: 'focus_window', windowLabel: 'main' },
      { action: 'save', tabId: fileTab },
      { action: 'close', tabId: unsaved },
      { action: 'save_as', tabId: fileTab, filePath: `${w}/a-copy.md` },
    ]
    for (const step of steps) {
      await r.session.call('workspace', step)
      expect(await texts(), JSON.stringify(step)).toEqual(before)
    }
    expect(await bytes(`${w}/a.md`)).toBe('# A\n\nalpha\n')
  })
})

