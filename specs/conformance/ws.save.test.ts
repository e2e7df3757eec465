/**
 * workspace.save and workspace.save_as (TOOLS.md §3.4–3.5): WS.SAVE.1–2, WS.SAVE_AS.1–6, over stdio and HTTP, once
 * with the person's settings at their defaults and once with "Auto-approve saves to new locations" switched on (a
 * setting only the person changes: prepared in the data directory before the client connects). The supersession
 * case of SAVE.3 (a later save already wrote the file) cannot be provoked through the real save queue, whose tickets
 * follow call order, so it runs in process with the file system's queue reporting it.
 *
 * Reading: the "toast describing what was blocked" (WS.SAVE_AS.3) is, headless, the pending save_as request the
 * person sees in `quire approvals list`.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { USER } from '../../core/events/actor.js'
import type { FileSystemPort } from '../../core/files/port.js'
import { openWorkspaceAsPerson } from '../../core/workspace/commands.js'
import { createFileSystem } from '../../adapters/host/fileSystem.js'
import { launchInProcess } from '../support/mcpHarness.js'
import {
  TRANSPORTS, open, approvals, bytes, decide, envelope, folder, history, newTab, ok, prepareHome, read, removeAll, rig, tabsOf, world, write,
  type Rig, type Transport,
} from '../support/conformance.js'

const JOURNALED = ['yes', 'pending', 'no']


describe.each<Transport>(TRANSPORTS)('workspace.save / save_as over %s, default settings', (transport) => {
  let r: Rig
  let w: string

  beforeAll(async () => {
    w = await folder('save', { 'a.md': 'alpha\n', 'b.md': 'beta\n', 'c.md': 'gamma\n', 'existing.md': 'do not replace me\n', 'own.md': 'own\n' })
    r = await rig(transport, { workspaces: [w] })
  })
  afterAll(async () => {
    await r?.close()
    await removeAll(w)
  })

  it('WS.SAVE.1 save writes the tab to its own file and returns exactly {filePath, revision, journaled}', async () => {
    const tabId = await open(r.session, `${w}/a.md`)
    await write(r.session, tabId, 'alpha, edited\n', { save: false })
    expect(await bytes(`${w}/a.md`)).toBe('alpha\n')
    const saved = ok(await r.session.call('workspace', { action: 'save', tabId }))
    expect(Object.keys(saved).sort()).toEqual(['filePath', 'journaled', 'revision'])
    expect(saved.filePath).toBe(`${w}/a.md`)
    expect(saved.revision).toBe((await read(r.session, tabId)).revision)
    expect(JOURNALED).toContain(saved.journaled)
    expect(await bytes(`${w}/a.md`)).toBe('alpha, edited\n')
    expect((await tabsOf(r.session)).find((entry) => entry.id === tabId)!.dirty).toBe(false)
  })

  it('WS.SAVE.1 GEN.7 without tabId, save saves the focused tab and no other', async () => {
    const b = await open(r.session, `${w}/b.md`)
    const c = await open(r.session, `${w}/c.md`)
    await write(r.session, b, 'beta, edited\n', { save: false })
    await write(r.session, c, 'gamma, edited\n', { save: false })
    ok(await r.session.call('workspace', { action: 'switch_tab', tabId: c }))
    const saved = ok(await r.session.call('workspace', { action: 'save' }))
    expect(saved.filePath).toBe(`${w}/c.md`)
    expect(await bytes(`${w}/c.md`)).toBe('gamma, edited\n')
    expect(await bytes(`${w}/b.md`)).toBe('beta\n')
  })

  it('WS.SAVE.1 an untitled tab has no file to save to: save is refused and writes nothing', async () => {
    const tabId = await newTab(r.session)
    await write(r.session, tabId, 'nowhere to go\n')
    const before = await world(r.session, w)
    const result = await r.session.call('workspace', { action: 'save', tabId })
    expect(result.isError).toBe(true)
    expect(await world(r.session, w)).toEqual(before)
  })

  it('WS.SAVE.2 (SAVE.4, SAVE.6) each AI save is an (mcp) history snapshot of the saved revision, and the response carries journaled', async () => {
    const tabId = await open(r.session, `${w}/a.md`)
    await write(r.session, tabId, 'alpha, second edit\n', { save: false })
    const before = (await history(r.home, `${w}/a.md`)).filter((entry) => entry.reason === 'save' && entry.mcp)
    const saved = ok(await r.session.call('workspace', { action: 'save', tabId }))
    expect(JOURNALED).toContain(saved.journaled)
    const after = (await history(r.home, `${w}/a.md`)).filter((entry) => entry.reason === 'save' && entry.mcp)
    expect(after.length).toBe(before.length + 1)
    expect(after.at(-1)).toMatchObject({ revision: saved.revision, length: 'alpha, second edit\n'.length, path: `${w}/a.md` })
  })

  it('WS.SAVE_AS.2 WS.SAVE_AS.3 WS.SAVE_AS.4 with the setting at its default (off), save_as to a new path is refused with APPROVAL_REQUIRED, creates nothing, and the person sees what was blocked', async () => {
    const tabId = await open(r.session, `${w}/own.md`)
    const before = await world(r.session, w)
    envelope(await r.session.call('workspace', { action: 'save_as', tabId, filePath: `${w}/new.md` }), 'APPROVAL_REQUIRED')
    expect(await bytes(`${w}/new.md`)).toBeNull()
    expect(await world(r.session, w)).toEqual(before)
    const blocked = (await approvals(r.home)).filter((entry) => entry.kind === 'save_as' && entry.subject === `${w}/new.md`)
    expect(blocked.map((entry) => entry.status)).toEqual(['pending'])
  })

  it('WS.SAVE_AS.2 an untitled tab is no exception: its save_as to a new path is refused with APPROVAL_REQUIRED too', async () => {
    const tabId = await newTab(r.session)
    await write(r.session, tabId, 'draft\n')
    const before = await world(r.session, w)
    envelope(await r.session.call('workspace', { action: 'save_as', tabId, filePath: `${w}/draft.md` }), 'APPROVAL_REQUIRED')
    expect(await world(r.session, w)).toEqual(before)
  })

  it('WS.SAVE_AS.1 WS.SAVE_AS.3 once the person approves (quire approvals approve), the retry saves the tab there and returns exactly {revision, journaled}', async () => {
    const tabId = await open(r.session, `${w}/own.md`)
    await write(r.session, tabId, 'own, edited\n', { save: false })
    envelope(await r.session.call('workspace', { action: 'save_as', tabId, filePath: `${w}/approved.md` }), 'APPROVAL_REQUIRED')
    const request = (await approvals(r.home)).find((entry) => entry.kind === 'save_as' && entry.subject === `${w}/approved.md`)!
    await decide(r.home, 'approve', request.id)
    const saved = ok(await r.session.call('workspace', { action: 'save_as', tabId, filePath: `${w}/approved.md` }))
    expect(Object.keys(saved).sort()).toEqual(['journaled', 'revision'])
    expect(saved.revision).toBe((await read(r.session, tabId)).revision)
    expect(JOURNALED).toContain(saved.journaled)
    expect(await bytes(`${w}/approved.md`)).toBe('own, edited\n')
    expect(await bytes(`${w}/own.md`)).toBe('own\n')
  })

  it('WS.SAVE_AS.5 saving back to the tab\'s own current path is allowed with the setting off, and asks nobody', async () => {
    const tabId = await open(r.session, `${w}/b.md`)
    await write(r.session, tabId, 'beta, saved as itself\n', { save: false })
    const requests = (await approvals(r.home)).length
    const saved = ok(await r.session.call('workspace', { action: 'save_as', tabId, filePath: `${w}/b.md` }))
    expect(Object.keys(saved).sort()).toEqual(['journaled', 'revision'])
    expect(await bytes(`${w}/b.md`)).toBe('beta, saved as itself\n')
    expect((await approvals(r.home)).length).toBe(requests)
  })

  it('WS.SAVE_AS.6 save_as never replaces an existing file that is not the tab\'s own: APPROVAL_REQUIRED, its bytes kept', async () => {
    const tabId = await open(r.session, `${w}/c.md`)
    const before = await world(r.session, w)
    envelope(await r.session.call('workspace', { action: 'save_as', tabId, filePath: `${w}/existing.md` }), 'APPROVAL_REQUIRED')
    expect(await bytes(`${w}/existing.md`)).toBe('do not replace me\n')
    expect(await world(r.session, w)).toEqual(before)
  })
})

describe.each<Transport>(TRANSPORTS)('workspace.save_as over %s, auto-approve saves switched on by the person', (transport) => {
  let r: Rig
  let w: string

  beforeAll(async () => {
    w = await folder('saveas', { 'a.md': 'alpha\n', 'existing.md': 'do not replace me\n' })
    const home = await prepareHome((services) => services.settings.set('autoApproveSaves', true, USER))
    r = await rig(transport, { home, workspaces: [w] })
  })
  afterAll(async () => {
    await r?.close()
    await removeAll(w)
  })

  it('WS.SAVE_AS.1 WS.SAVE_AS.2 save_as writes a brand-new file holding the tab\'s text, leaves the old file alone, returns exactly {revision, journaled}', async () => {
    const tabId = await open(r.session, `${w}/a.md`)
    await write(r.session, tabId, 'alpha, edited\n', { save: false })
    const saved = ok(await r.session.call('workspace', { action: 'save_as', tabId, filePath: `${w}/copy.md` }))
    expect(Object.keys(saved).sort()).toEqual(['journaled', 'revision'])
    expect(saved.revision).toBe((await read(r.session, tabId)).revision)
    expect(JOURNALED).toContain(saved.journaled)
    expect(await bytes(`${w}/copy.md`)).toBe('alpha, edited\n')
    expect(await bytes(`${w}/a.md`)).toBe('alpha\n')
    expect(await approvals(r.home)).toEqual([])
  })

  it('WS.SAVE_AS.2 (SAVE.4) the save_as is an (mcp) history snapshot at its new path', async () => {
    const tabId = await newTab(r.session)
    await write(r.session, tabId, 'from an untitled tab\n')
    const saved = ok(await r.session.call('workspace', { action: 'save_as', tabId, filePath: `${w}/untitled-saved.md` }))
    expect(await bytes(`${w}/untitled-saved.md`)).toBe('from an untitled tab\n')
    const entries = await history(r.home, `${w}/untitled-saved.md`)
    expect(entries.filter((entry) => entry.reason === 'save' && entry.mcp).map((entry) => entry.revision)).toEqual([saved.revision])
  })

  it('WS.SAVE_AS.6 even with auto-approve on, an existing other file is never replaced: APPROVAL_REQUIRED, its bytes kept, nothing changed', async () => {
    const tabId = await open(r.session, `${w}/a.md`)
    const before = await world(r.session, w)
    envelope(await r.session.call('workspace', { action: 'save_as', tabId, filePath: `${w}/existing.md` }), 'APPROVAL_REQUIRED')
    expect(await bytes(`${w}/existing.md`)).toBe('do not replace me\n')
    expect(await world(r.session, w)).toEqual(before)
  })
})

describe('workspace.save when a later save already wrote the file (in process)', () => {
  let session: Awaited<ReturnType<typeof launchInProcess>>
  let w: string
  let overtaken = false

  beforeAll(async () => {
    w = await folder('stale', { 'a.md': 'alpha\n' })
    const real = createFileSystem(mkdtempSync(join(tmpdir(), 'quire-fs-home-'))) // a data directory of its own: nothing inside it is in scope
    // The real file system, except that when armed, the save queue reports the save overtaken by a later one.
    const fileSystem: FileSystemPort = {
      ...real,
      async enqueueSave(path, job, atTurn) {
        if (overtaken) return { status: 'superseded' }
        return real.enqueueSave(path, job, atTurn)
      },
    }
    session = await launchInProcess({ fileSystem })
    const { engine } = session.quire.services
    await openWorkspaceAsPerson(engine.store, engine.views.workspace, w, USER)
  })
  afterAll(async () => {
    await session?.close()
    await removeAll(w)
  })

  it('WS.SAVE.2 (SAVE.3) a save overtaken by a later save of the same file answers STALE with current_revision and writes nothing', async () => {
    const tabId = await open(session, `${w}/a.md`)
    await write(session, tabId, 'alpha, edited\n', { save: false })
    const before = await world(session, w)
    overtaken = true
    const stale = envelope(await session.call('workspace', { action: 'save', tabId }), 'STALE')
    overtaken = false
    expect(stale.current_revision).toBe((await read(session, tabId)).revision)
    expect(await bytes(`${w}/a.md`)).toBe('alpha\n')
    expect(await world(session, w)).toEqual(before)
  })
})
