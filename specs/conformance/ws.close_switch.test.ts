/**
 * workspace.close and workspace.switch_tab (TOOLS.md §3.6–3.7): WS.CLOSE.1–5, WS.SWITCH_TAB.1–4, over stdio and HTTP.
 *
 * Pinning is the person's act (no MCP action, no CLI command yet), so the data directory is prepared with a pinned
 * clean tab and a pinned tab with unsaved changes before the client connects. Divergence is produced live: another
 * program rewrites a file under a tab with unsaved changes, the disk watcher notices, and the person keeps the tab's
 * version (`quire divergence keep`, through the owning process).
 *
 * Not tested: WS.CLOSE.6 (undelivered keystrokes: no editor is attached headless) and WS.CLOSE.7 (Quire has no
 * browser tabs yet, so there is no browser tab id to pass). WS.SWITCH_TAB.3 can only be checked as "activated tells
 * the truth": headless, nothing can stop an activation from taking effect.
 */
import { writeFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { USER } from '../../core/events/actor.js'
import { openWorkspaceAsPerson } from '../../core/workspace/commands.js'
import {
  PERSON, TRANSPORTS, bytes, keepTabVersion, open, envelope, folder, getState, newTab, ok, prepareHome, read, removeAll, rig, tabsOf, windowOf, world, write,
  type Rig, type Transport,
} from '../support/conformance.js'


describe.each<Transport>(TRANSPORTS)('workspace.close / switch_tab over %s', (transport) => {
  let r: Rig
  let w1: string
  let w2: string
  const prepared: Record<string, string> = {}
  let divergent = ''

  beforeAll(async () => {
    w1 = await folder('close1', {
      'a.md': 'alpha\n', 'x.md': 'ex\n', 'p.md': 'pinned\n', 'pd.md': 'pinned dirty\n', 'd.md': 'diverging\n', 'y.md': 'why\n',
    })
    w2 = await folder('close2', { 'b.md': 'beta\n', 'c.md': 'gamma\n' })
    const home = await prepareHome(async (services) => {
      const { engine, files, workspace } = services
      await openWorkspaceAsPerson(engine.store, engine.views.workspace, w1, USER)
      prepared.p = (await files.open(`${w1}/p.md`, undefined, PERSON)).tabId
      await workspace.pin(prepared.p, true, USER)
      prepared.pd = (await files.open(`${w1}/pd.md`, undefined, PERSON)).tabId
      await files.write(prepared.pd, 'pinned, with unsaved changes\n', undefined, false, PERSON)
      await workspace.pin(prepared.pd, true, USER)
      // W2 opens last: main shows it.
      await openWorkspaceAsPerson(engine.store, engine.views.workspace, w2, USER)
    })
    r = await rig(transport, { home })
  })
  afterAll(async () => {
    await r?.close()
    await removeAll(w1, w2)
  })

  const close = (tabId: string, force?: boolean) => r.session.call('workspace', { action: 'close', tabId, ...(force === undefined ? {} : { force }) })
  const ids = async () => (await tabsOf(r.session)).map((entry) => entry.id)

  it('WS.CLOSE.1 a clean tab closes: exactly {closed: true}, the tab is gone, its file and the other tabs untouched', async () => {
    const tabId = await open(r.session, `${w1}/x.md`)
    const others = (await ids()).filter((id) => id !== tabId)
    const result = ok(await close(tabId))
    expect(result).toEqual({ closed: true })
    expect(await ids()).toEqual(others)
    expect(await bytes(`${w1}/x.md`)).toBe('ex\n')
  })

  it('WS.CLOSE.2 a tab with unsaved changes is not closed without force: exactly {closed: false, reason: "DIRTY"}, nothing changes', async () => {
    const tabId = await open(r.session, `${w1}/a.md`)
    await write(r.session, tabId, 'alpha, unsaved\n', { save: false })
    const untitled = await newTab(r.session)
    await write(r.session, untitled, 'an unsaved draft\n')
    const before = await world(r.session, w1, w2)
    expect(ok(await close(tabId))).toEqual({ closed: false, reason: 'DIRTY' })
    expect(ok(await close(untitled, false))).toEqual({ closed: false, reason: 'DIRTY' })
    expect(await world(r.session, w1, w2)).toEqual(before)
  })

  it('WS.CLOSE.3 a tab whose file diverged on disk while the person kept the tab\'s version is not closed without force: {closed: false, reason: "DIVERGENT"}', async () => {
    divergent = await open(r.session, `${w1}/d.md`)
    await write(r.session, divergent, 'the tab version\n', { save: false })
    await writeFile(`${w1}/d.md`, 'the disk version\n')
    await keepTabVersion(r.home, `${w1}/d.md`)
    const before = await world(r.session, w1, w2)
    expect(ok(await close(divergent))).toEqual({ closed: false, reason: 'DIVERGENT' })
    expect(await world(r.session, w1, w2)).toEqual(before)
    expect((await read(r.session, divergent)).content).toBe('the tab version\n')
    expect(await bytes(`${w1}/d.md`)).toBe('the disk version\n')
  })

  it('WS.CLOSE.4 a pinned tab is never closed, with or without force, clean or dirty: {closed: false, reason: "PINNED"}', async () => {
    const before = await world(r.session, w1, w2)
    expect(ok(await close(prepared.p!))).toEqual({ closed: false, reason: 'PINNED' })
    expect(ok(await close(prepared.p!, true))).toEqual({ closed: false, reason: 'PINNED' })
    expect(ok(await close(prepared.pd!))).toEqual({ closed: false, reason: 'PINNED' })
    expect(ok(await close(prepared.pd!, true))).toEqual({ closed: false, reason: 'PINNED' })
    expect(await world(r.session, w1, w2)).toEqual(before)
  })

  it('WS.CLOSE.5 with force: true a dirty or divergent tab is closed, and its unsaved text is not written anywhere', async () => {
    const dirty = (await tabsOf(r.session)).find((entry) => entry.filePath === `${w1}/a.md`)!
    expect(dirty.dirty).toBe(true)
    expect(ok(await close(dirty.id, true))).toEqual({ closed: true })
    expect(ok(await close(divergent, true))).toEqual({ closed: true })
    const left = await ids()
    expect(left).not.toContain(dirty.id)
    expect(left).not.toContain(divergent)
    expect(await bytes(`${w1}/a.md`)).toBe('alpha\n')
    expect(await bytes(`${w1}/d.md`)).toBe('the disk version\n')
  })

  it('WS.SWITCH_TAB.1 switch_tab activates the tab and makes it visible, returning exactly {activated, workspaceSwitched, workspaceInstanceId, activeTabId}', async () => {
    const b = ok(await r.session.call('workspace', { action: 'open', filePath: `${w2}/b.md` }))
    const result = ok(await r.session.call('workspace', { action: 'switch_tab', tabId: b.tabId }))
    expect(Object.keys(result).sort()).toEqual(['activated', 'activeTabId', 'workspaceInstanceId', 'workspaceSwitched'])
    expect(result).toEqual({ activated: true, workspaceSwitched: false, workspaceInstanceId: b.workspaceInstanceId, activeTabId: b.tabId })
    const main = await windowOf(r.session)
    expect(main.tabs.find((entry) => entry.id === b.tabId)).toMatchObject({ active: true, visible: true })
    expect(main.tabs.filter((entry) => entry.active)).toHaveLength(1)
  })

  it('WS.SWITCH_TAB.4 with the rail on, switching to a tab of the workspace not shown switches the workspace and says so; within one workspace it does not', async () => {
    const y = ok(await r.session.call('workspace', { action: 'open', filePath: `${w1}/y.md` }))
    const c = ok(await r.session.call('workspace', { action: 'open', filePath: `${w2}/c.md` }))
    const b = (await tabsOf(r.session)).find((entry) => entry.filePath === `${w2}/b.md`)!
    ok(await r.session.call('workspace', { action: 'switch_tab', tabId: b.id }))
    const within = ok(await r.session.call('workspace', { action: 'switch_tab', tabId: c.tabId }))
    expect(within).toMatchObject({ activated: true, workspaceSwitched: false, workspaceInstanceId: c.workspaceInstanceId })
    const across = ok(await r.session.call('workspace', { action: 'switch_tab', tabId: y.tabId }))
    expect(across).toMatchObject({ activated: true, workspaceSwitched: true, workspaceInstanceId: y.workspaceInstanceId, activeTabId: y.tabId })
    expect((await windowOf(r.session)).activeWorkspaceInstanceId).toBe(y.workspaceInstanceId)
    const back = ok(await r.session.call('workspace', { action: 'switch_tab', tabId: c.tabId }))
    expect(back).toMatchObject({ workspaceSwitched: true, workspaceInstanceId: c.workspaceInstanceId })
  })

  it('WS.SWITCH_TAB.2 WS.SWITCH_TAB.3 the answer is what the stores hold afterwards (activated tells the truth), also for the tab already in front', async () => {
    for (const entry of await tabsOf(r.session)) {
      const result = ok(await r.session.call('workspace', { action: 'switch_tab', tabId: entry.id }))
      const main = await windowOf(r.session)
      const active = main.tabs.find((candidate) => candidate.active)
      expect(result.activeTabId).toBe(active?.id)
      expect(result.workspaceInstanceId).toBe(main.activeWorkspaceInstanceId)
      expect(result.activated).toBe(active?.id === entry.id && active.visible)
      expect(result.activated).toBe(true)
    }
    const current = (await windowOf(r.session)).tabs.find((entry) => entry.active)!
    expect(ok(await r.session.call('workspace', { action: 'switch_tab', tabId: current.id }))).toMatchObject({ activated: true, workspaceSwitched: false })
  })

  it('WS.SWITCH_TAB.1 an unknown tab is refused with INVALID_TAB and nothing changes', async () => {
    const before = await getState(r.session)
    envelope(await r.session.call('workspace', { action: 'switch_tab', tabId: 'tab-does-not-exist' }), 'INVALID_TAB')
    envelope(await close('tab-does-not-exist', true), 'INVALID_TAB')
    expect(await getState(r.session)).toEqual(before)
  })
})
