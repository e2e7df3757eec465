/**
 * session.get_state (TOOLS.md §2.1): SES.GET_STATE.1–14, over stdio and Streamable HTTP.
 *
 * Headless Quire has one document window, `main`, and no editor attached, so no window holds OS focus. A second
 * window (as one opened from the command line) and the workspace rail switched off are states only a person
 * produces; the second describe block prepares them in the data directory before the client connects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { USER } from '../../core/events/actor.js'
import { openWorkspaceAsPerson } from '../../core/workspace/commands.js'
import {
  TRANSPORTS, folder, getState, logHead, newTab, ok, openSecondWindow, prepareHome, read, removeAll, rig, write,
  type Rig, type Transport,
} from '../support/conformance.js'

const TAB_KEYS = ['active', 'dirty', 'filePath', 'id', 'kind', 'revision', 'title', 'visible']
const WINDOW_KEYS = ['activeWorkspaceInstanceId', 'focused', 'label', 'tabs']

describe.each<Transport>(TRANSPORTS)('session.get_state over %s (rail on, main only)', (transport) => {
  let r: Rig
  let w1: string
  let w2: string
  const tab: Record<string, string> = {}
  const instance: Record<string, string> = {}

  beforeAll(async () => {
    w1 = await folder('ses1', { 'a.md': '# A\n' })
    w2 = await folder('ses2', { 'b.md': '# B\n', '.github/workflows/ci.yml': '# the pipeline\nname: CI\non: push\n' })
    // W2 is opened last, so it is what `main` shows.
    r = await rig(transport, { workspaces: [w1, w2] })
    const s = r.session
    const a = ok(await s.call('workspace', { action: 'open', filePath: `${w1}/a.md` }))
    const b = ok(await s.call('workspace', { action: 'open', filePath: `${w2}/b.md` }))
    tab.a = a.tabId
    tab.b = b.tabId
    instance.w1 = a.workspaceInstanceId
    instance.w2 = b.workspaceInstanceId
    tab.ci = ok(await s.call('workspace', { action: 'open', filePath: `${w2}/.github/workflows/ci.yml` })).tabId
    tab.untitled = await newTab(s, 'yaml-workflow')
  })
  afterAll(async () => {
    await r?.close()
    await removeAll(w1, w2)
  })

  it('SES.GET_STATE.1 the action declares no parameter besides the action selector', async () => {
    const { tools } = await r.session.client.listTools()
    const session = tools.find((tool) => tool.name === 'session')!
    expect(Object.keys(session.inputSchema.properties ?? {})).toEqual(['action'])
    expect((session.inputSchema.properties as Record<string, { enum?: string[] }>).action!.enum).toEqual(['get_state'])
  })

  it('SES.GET_STATE.2 SES.GET_STATE.4 returns exactly {windows, capabilities}; each window has label, focused, activeWorkspaceInstanceId and tabs', async () => {
    const state = await getState(r.session)
    expect(Object.keys(state).sort()).toEqual(['capabilities', 'windows'])
    expect(state.windows.length).toBeGreaterThan(0)
    for (const window of state.windows) {
      expect(Object.keys(window).sort()).toEqual(WINDOW_KEYS)
      expect(window.label).toBeTypeOf('string')
      expect(window.focused).toBeTypeOf('boolean')
      expect(Array.isArray(window.tabs)).toBe(true)
      expect(window.activeWorkspaceInstanceId === null || typeof window.activeWorkspaceInstanceId === 'string').toBe(true)
    }
  })

  it('SES.GET_STATE.3 headless, the document window main is listed, with every tab the client opened', async () => {
    const state = await getState(r.session)
    expect(state.windows.map((window) => window.label)).toEqual(['main'])
    expect(state.windows[0]!.tabs.map((entry) => entry.id).sort()).toEqual(Object.values(tab).sort())
  })

  it('SES.GET_STATE.5 SES.GET_STATE.6 each tab has id, filePath, title, dirty, revision, kind, active, visible, with true values; kind is markdown or yaml-workflow', async () => {
    const tabs = (await getState(r.session)).windows.flatMap((window) => window.tabs)
    for (const entry of tabs) {
      expect(Object.keys(entry).sort()).toEqual(TAB_KEYS)
      expect(['markdown', 'yaml-workflow']).toContain(entry.kind)
      expect(entry.revision).toBe((await read(r.session, entry.id)).revision)
      expect(entry.dirty).toBeTypeOf('boolean')
      expect(entry.title).toBeTypeOf('string')
    }
    const byId = new Map(tabs.map((entry) => [entry.id, entry]))
    expect(byId.get(tab.a!)).toMatchObject({ filePath: `${w1}/a.md`, title: 'a', kind: 'markdown', dirty: false })
    expect(byId.get(tab.ci!)).toMatchObject({ filePath: `${w2}/.github/workflows/ci.yml`, kind: 'yaml-workflow' })
    expect(byId.get(tab.untitled!)).toMatchObject({ filePath: null, kind: 'yaml-workflow' })
  })

  it('SES.GET_STATE.5 dirty and revision follow the document: an unsaved write makes the tab dirty with the new revision', async () => {
    const written = await write(r.session, tab.b!, '# B, edited\n', { save: false })
    const entry = (await getState(r.session)).windows[0]!.tabs.find((candidate) => candidate.id === tab.b)!
    expect(entry.dirty).toBe(true)
    expect(entry.revision).toBe(written.revision)
  })

  it('SES.GET_STATE.7 capabilities are {version, supportedKinds: [markdown, yaml-workflow], mcpProtocol: "0.2.0"}', async () => {
    const { capabilities } = await getState(r.session)
    expect(Object.keys(capabilities).sort()).toEqual(['mcpProtocol', 'supportedKinds', 'version'])
    expect(capabilities.supportedKinds).toEqual(['markdown', 'yaml-workflow'])
    expect(capabilities.mcpProtocol).toBe('0.2.0')
    expect(capabilities.version).toBeTypeOf('string')
    expect(capabilities.version).toBe(r.session.client.getServerVersion()?.version)
  })

  it('SES.GET_STATE.8 exactly the current tab of the window is active (new activates; open does not)', async () => {
    const tabs = (await getState(r.session)).windows[0]!.tabs
    expect(tabs.filter((entry) => entry.active).map((entry) => entry.id)).toEqual([tab.untitled])
  })

  it('SES.GET_STATE.9 SES.GET_STATE.10 visible is false for tabs of the workspace instance main does not show; activeWorkspaceInstanceId names the shown one', async () => {
    expect(instance.w1).toBeTypeOf('string')
    expect(instance.w2).toBeTypeOf('string')
    expect(instance.w1).not.toBe(instance.w2)
    let main = (await getState(r.session)).windows[0]!
    const visible = () => Object.fromEntries(main.tabs.map((entry) => [entry.id, entry.visible]))
    expect(main.activeWorkspaceInstanceId).toBe(instance.w2)
    expect(visible()).toMatchObject({ [tab.a!]: false, [tab.b!]: true, [tab.ci!]: true })

    ok(await r.session.call('workspace', { action: 'switch_tab', tabId: tab.a }))
    main = (await getState(r.session)).windows[0]!
    expect(main.activeWorkspaceInstanceId).toBe(instance.w1)
    expect(visible()).toMatchObject({ [tab.a!]: true, [tab.b!]: false, [tab.ci!]: false, [tab.untitled!]: false })
    // SES.GET_STATE.8 again: the switch moved `active` to exactly that tab.
    expect(main.tabs.filter((entry) => entry.active).map((entry) => entry.id)).toEqual([tab.a])
  })

  it('SES.GET_STATE.12 SES.GET_STATE.13 with no editor holding OS focus, every window reports focused: false, even the one that answered and one asked to focus', async () => {
    expect((await getState(r.session)).windows.every((window) => window.focused === false)).toBe(true)
    ok(await r.session.call('workspace', { action: 'focus_window', windowLabel: 'main' }))
    expect((await getState(r.session)).windows.every((window) => window.focused === false)).toBe(true)
  })

  it('SES.GET_STATE.14 get_state changes nothing: no event is appended and repeated calls answer the same', async () => {
    const head = await logHead(r.home)
    const first = await getState(r.session)
    const second = await getState(r.session)
    const third = await getState(r.session)
    expect(second).toEqual(first)
    expect(third).toEqual(first)
    expect(await logHead(r.home)).toBe(head)
  })
})

describe.each<Transport>(TRANSPORTS)('session.get_state over %s (rail off, two windows)', (transport) => {
  let r: Rig
  let w1: string
  let w2: string

  beforeAll(async () => {
    w1 = await folder('ses3', { 'a.md': '# A\n' })
    w2 = await folder('ses4', { 'b.md': '# B\n' })
    const home = await prepareHome(async (services) => {
      await services.settings.set('workspaceRail', false, USER)
      await openWorkspaceAsPerson(services.engine.store, services.engine.views.workspace, w1, USER)
      await openWorkspaceAsPerson(services.engine.store, services.engine.views.workspace, w2, USER)
      await openSecondWindow(services, 'second')
    })
    r = await rig(transport, { home })
  })
  afterAll(async () => {
    await r?.close()
    await removeAll(w1, w2)
  })

  it('SES.GET_STATE.3 every document window is listed: main and a second window', async () => {
    const state = await getState(r.session)
    expect(state.windows.map((window) => window.label).sort()).toEqual(['main', 'second'])
  })

  it('SES.GET_STATE.10 SES.GET_STATE.11 with the workspace rail off, activeWorkspaceInstanceId is null and every tab is visible', async () => {
    const a = ok(await r.session.call('workspace', { action: 'open', filePath: `${w1}/a.md`, windowLabel: 'main' }))
    const b = ok(await r.session.call('workspace', { action: 'open', filePath: `${w2}/b.md`, windowLabel: 'main' }))
    await newTab(r.session)
    const state = await getState(r.session)
    for (const window of state.windows) expect(window.activeWorkspaceInstanceId).toBeNull()
    const tabs = state.windows.flatMap((window) => window.tabs)
    expect(tabs.map((entry) => entry.id)).toEqual(expect.arrayContaining([a.tabId, b.tabId]))
    expect(tabs.length).toBe(3)
    expect(tabs.every((entry) => entry.visible)).toBe(true)
  })
})
