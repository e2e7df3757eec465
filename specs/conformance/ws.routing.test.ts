/**
 * Request routing (TOOLS.md §1: GEN.5–GEN.7) and workspace.focus_window (WS.FOCUS_WINDOW.1), over stdio and HTTP.
 *
 * Headless Quire starts with the one document window `main`; with only `main`, every request is routed there. To
 * make routing observable, the data directory is prepared with a second document window (as one opened from the
 * command line would be; headless Quire has no command that opens one yet) before the client connects.
 *
 * Reading of GEN.5/GEN.6 (the Chinese original: "VMark 会把请求路由到拥有相关工作区的那个窗口 … 既没有 tabId 也没有工作区
 * 路径的请求，会发往你最后使用的那个文档窗口"): a request that carries a path inside an open workspace goes to the
 * window owning that workspace; only a request with neither a tabId nor a workspace path goes to the most recently
 * used window.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { USER } from '../../core/events/actor.js'
import { openWorkspaceAsPerson } from '../../core/workspace/commands.js'
import {
  TRANSPORTS, bytes, folder, getState, ok, openSecondWindow, prepareHome, read, removeAll, rig, windowOf, write,
  type Rig, type Transport,
} from '../support/conformance.js'

describe.each<Transport>(TRANSPORTS)('routing over %s (main and a second window)', (transport) => {
  let r: Rig
  let w: string
  let inMain: string
  let inSecond: string

  beforeAll(async () => {
    w = await folder('route', { 'a.md': 'alpha\n', 'b.md': 'beta\n', 'c.md': 'gamma\n' })
    const home = await prepareHome(async (services) => {
      await openWorkspaceAsPerson(services.engine.store, services.engine.views.workspace, w, USER)
      await openSecondWindow(services, 'second')
    })
    r = await rig(transport, { home })
  })
  afterAll(async () => {
    await r?.close()
    await removeAll(w)
  })

  const labelOf = async (tabId: string) =>
    (await getState(r.session)).windows.find((window) => window.tabs.some((entry) => entry.id === tabId))?.label

  it('GEN.6 WS.NEW.3 a request with no tabId and no path goes to the most recently used window, not automatically to main', async () => {
    inSecond = ok(await r.session.call('workspace', { action: 'new', windowLabel: 'second' })).tabId
    const next = ok(await r.session.call('workspace', { action: 'new' })).tabId
    expect(await labelOf(inSecond)).toBe('second')
    expect(await labelOf(next)).toBe('second')
    inMain = ok(await r.session.call('workspace', { action: 'new', windowLabel: 'main' })).tabId
    const after = ok(await r.session.call('workspace', { action: 'new' })).tabId
    expect(await labelOf(after)).toBe('main')
    // Leave each window showing its named tab.
    ok(await r.session.call('workspace', { action: 'switch_tab', tabId: inSecond }))
    ok(await r.session.call('workspace', { action: 'switch_tab', tabId: inMain }))
    await write(r.session, inSecond, 'in second\n')
    await write(r.session, inMain, 'in main\n')
  })

  it('GEN.6 GEN.7 WS.FOCUS_WINDOW.1 focus_window makes that window the one requests without a tabId go to: read and write then target its focused tab', async () => {
    expect((await read(r.session)).content).toBe('in main\n')
    const focused = await r.session.call('workspace', { action: 'focus_window', windowLabel: 'second' })
    expect(focused.isError, focused.text).toBe(false)
    expect((await read(r.session)).content).toBe('in second\n')
    ok(await r.session.call('document', { action: 'write', content: 'second, rewritten\n' }))
    expect((await read(r.session, inSecond)).content).toBe('second, rewritten\n')
    expect((await read(r.session, inMain)).content).toBe('in main\n')
    ok(await r.session.call('workspace', { action: 'focus_window', windowLabel: 'main' }))
    expect((await read(r.session)).content).toBe('in main\n')
  })

  it('WS.FOCUS_WINDOW.1 an unknown window is refused and routing stays where it was', async () => {
    const before = await getState(r.session)
    const result = await r.session.call('workspace', { action: 'focus_window', windowLabel: 'no-such-window' })
    expect(result.isError).toBe(true)
    expect(await getState(r.session)).toEqual(before)
    expect((await read(r.session)).content).toBe('in main\n')
  })

  it('GEN.7 without tabId, read, write and save act on the focused tab of the routed window and on no other', async () => {
    const b = ok(await r.session.call('workspace', { action: 'open', filePath: `${w}/b.md`, windowLabel: 'main' })).tabId
    const c = ok(await r.session.call('workspace', { action: 'open', filePath: `${w}/c.md`, windowLabel: 'main' })).tabId
    ok(await r.session.call('workspace', { action: 'switch_tab', tabId: c }))
    expect((await read(r.session)).filePath).toBe(`${w}/c.md`)
    ok(await r.session.call('document', { action: 'write', content: 'gamma, edited\n', save: false }))
    expect((await read(r.session, c)).content).toBe('gamma, edited\n')
    expect((await read(r.session, b)).content).toBe('beta\n')
    ok(await r.session.call('workspace', { action: 'save' }))
    expect(await bytes(`${w}/c.md`)).toBe('gamma, edited\n')
    expect(await bytes(`${w}/b.md`)).toBe('beta\n')
  })

  it('GEN.5 a request carrying a path inside a workspace goes to the window that owns that workspace, even when another window was used last', async () => {
    ok(await r.session.call('workspace', { action: 'focus_window', windowLabel: 'second' }))
    const main = await windowOf(r.session, 'main')
    expect(main.activeWorkspaceInstanceId).toBeTypeOf('string')
    const opened = ok(await r.session.call('workspace', { action: 'open', filePath: `${w}/a.md` }))
    expect(opened.workspaceInstanceId).toBe(main.activeWorkspaceInstanceId)
    expect(await labelOf(opened.tabId)).toBe('main')
  })
})
