/**
 * Concurrency and revisions (TOOLS.md §12.2): CONC.1–4, for the write-class calls registered so far
 * (`document.write`). CONC.1–3 over stdio and HTTP; CONC.3 needs two windows showing one file, so the data directory
 * is prepared with a second document window (as one opened from the command line) before the client connects.
 * CONC.4 needs a write that holds its turn longer than 3 s: in process, with the log's disk write slowed down (and
 * the journal deadline raised above it, so the first write waits instead of answering JOURNAL_UNAVAILABLE).
 * CONC.5 (IME) is out of scope.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { USER } from '../../core/events/actor.js'
import { openWorkspaceAsPerson } from '../../core/workspace/commands.js'
import {
  TRANSPORTS, envelope, folder, getState, inProcess, logHead, ok, openSecondWindow, plain, prepareHome, read, removeAll, rig, tabsOf, world, write,
  type Rig, type Session, type Transport,
} from '../support/conformance.js'

describe.each<Transport>(TRANSPORTS)('revisions over %s', (transport) => {
  let r: Rig
  let w: string

  beforeAll(async () => {
    w = await folder('conc', { 'a.md': 'alpha\n', 'b.md': 'beta\n', 'shared.md': 'shared\n' })
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

  it('CONC.1 revision tokens are opaque strings, and get_state, read and every successful mutation hand out the same token for the same content', async () => {
    const tabId = ok(await r.session.call('workspace', { action: 'open', filePath: `${w}/a.md`, windowLabel: 'main' })).tabId
    const tabRevision = async () => (await tabsOf(r.session)).find((entry) => entry.id === tabId)!.revision
    const first = await read(r.session, tabId)
    expect(first.revision).toBeTypeOf('string')
    expect(first.revision.length).toBeGreaterThan(0)
    expect(await tabRevision()).toBe(first.revision)
    const written = await write(r.session, tabId, 'alpha, two\n', { save: false })
    expect(written.revision).toBeTypeOf('string')
    expect(written.revision).not.toBe(first.revision)
    expect((await read(r.session, tabId)).revision).toBe(written.revision)
    expect(await tabRevision()).toBe(written.revision)
    const saved = ok(await r.session.call('workspace', { action: 'save', tabId }))
    expect(saved.revision).toBe(written.revision)
    const savedAs = ok(await r.session.call('workspace', { action: 'save_as', tabId, filePath: `${w}/a.md` }))
    expect(savedAs.revision).toBe(written.revision)
    // A save does not change the content, so it does not change the revision.
    expect(await tabRevision()).toBe(written.revision)
  })

  it.each([
    ['a revision the document had before', 'old'],
    ['a revision of another document', 'other'],
    ['a token this server never issued', 'rev-zzzzzzzzzz'],
    ['something that is not a revision token', 'not a revision'],
  ])('CONC.2 an expected_revision that does not match (%s) answers STALE with current_revision, and nothing changes', async (_label, kind) => {
    const tabId = ok(await r.session.call('workspace', { action: 'open', filePath: `${w}/b.md`, windowLabel: 'main' })).tabId
    const old = (await read(r.session, tabId)).revision
    await write(r.session, tabId, `beta ${kind}\n`)
    const otherTab = ok(await r.session.call('workspace', { action: 'new', windowLabel: 'main' })).tabId
    const other = (await write(r.session, otherTab, `another document ${kind}\n`)).revision
    const expected = kind === 'old' ? old : kind === 'other' ? other : kind
    const current = (await read(r.session, tabId)).revision
    expect(current).not.toBe(expected)
    const before = await world(r.session, w)
    const head = await logHead(r.home)
    const stale = envelope(await r.session.call('document', { action: 'write', tabId, content: 'must not land\n', expected_revision: expected }), 'STALE')
    expect(stale.current_revision).toBe(current)
    expect(await world(r.session, w)).toEqual(before)
    expect(await logHead(r.home)).toBe(head)
  })

  it('CONC.3 two windows showing the same file share one document: one revision, one text, and a revision check across both', async () => {
    const inMain = ok(await r.session.call('workspace', { action: 'open', filePath: `${w}/shared.md`, windowLabel: 'main' })).tabId
    const inSecond = ok(await r.session.call('workspace', { action: 'open', filePath: `${w}/shared.md`, windowLabel: 'second' })).tabId
    expect(inSecond).not.toBe(inMain)
    const state = await getState(r.session)
    const windowOfTab = (id: string) => state.windows.find((window) => window.tabs.some((entry) => entry.id === id))!.label
    expect([windowOfTab(inMain), windowOfTab(inSecond)]).toEqual(['main', 'second'])
    const seen = (await read(r.session, inMain)).revision
    expect((await read(r.session, inSecond)).revision).toBe(seen)

    const written = await write(r.session, inSecond, 'shared, written in the second window\n', { expected_revision: seen, save: false })
    expect(await read(r.session, inMain)).toMatchObject({ content: 'shared, written in the second window\n', revision: written.revision, dirty: true })
    const tabs = await tabsOf(r.session)
    expect(tabs.find((entry) => entry.id === inMain)).toMatchObject({ revision: written.revision, dirty: true })
    expect(tabs.find((entry) => entry.id === inSecond)).toMatchObject({ revision: written.revision, dirty: true })

    // The main window's tab still holds the revision it read: its write must be refused.
    const before = await world(r.session, w)
    const stale = envelope(await r.session.call('document', { action: 'write', tabId: inMain, content: 'lost update\n', expected_revision: seen }), 'STALE')
    expect(stale.current_revision).toBe(written.revision)
    expect(await world(r.session, w)).toEqual(before)
  })
})

describe('write serialization (in process, slow log)', () => {
  let session: Session
  let w: string
  let slowBatches = 0

  beforeAll(async () => {
    w = await folder('busy', { 'a.md': 'alpha\n' })
    session = await inProcess([w], {
      journalDeadlineMs: 15_000,
      interceptWrite: async (writeBatch) => {
        if (slowBatches > 0) {
          slowBatches--
          await sleep(4_200)
        }
        await writeBatch()
      },
    })
  })
  afterAll(async () => {
    await session?.close()
    await removeAll(w)
  })

  it('CONC.4 ERR.4 a write still not started after waiting 3 s behind another write fails with the plain string WRITE_BUSY and is not applied', async () => {
    const tabId = ok(await session.call('workspace', { action: 'open', filePath: `${w}/a.md` })).tabId
    slowBatches = 1
    const started = Date.now()
    const first = session.call('document', { action: 'write', tabId, content: 'first, slowly journaled\n', save: false })
    await sleep(50)
    const second = await session.call('document', { action: 'write', tabId, content: 'second, must not land\n', save: false })
    const waited = Date.now() - started
    plain(second, /WRITE_BUSY/)
    expect(waited).toBeGreaterThanOrEqual(2_900)
    expect(waited).toBeLessThan(4_200)
    const landed = ok(await first)
    expect(landed.applied).toBe(true)
    const document = await read(session, tabId)
    expect(document.content).toBe('first, slowly journaled\n')
    expect(document.revision).toBe(landed.revision)
    // Serialized, not refused for good: the next write, once the first is done, goes through.
    const third = await write(session, tabId, 'third\n', { save: false, expected_revision: landed.revision })
    expect(third.applied).toBe(true)
  })
})
