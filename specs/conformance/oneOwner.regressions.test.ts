/**
 * The three data bugs of the one-owner issue, each as users hit it: a save racing an edit (through MCP and through a
 * peer keystroke), a file reopened after save_as (over stdio and HTTP), and a person typing while an assistant writes
 * the whole text (a stock y-websocket peer). Each failed before a document had one owner.
 *
 * SAVE.RACE: `document.saved` records the revision it wrote; `dirty` is `revision !== savedRevision` (DESIGN §3).
 * SAVE_AS.ONE_FILE: a document belongs to one file at a time; after save_as the old path is free (WS.SAVE_AS.*).
 * DOC.WRITE.BASE: a write is an edit from the revision the tab last read (DESIGN §4: concurrent peer edits merge).
 */
import { writeFile } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { USER } from '../../core/events/actor.js'
import type { FileSystemPort } from '../../core/files/port.js'
import { openWorkspaceAsPerson } from '../../core/workspace/commands.js'
import { createFileSystem } from '../../adapters/host/fileSystem.js'
import { peer, type Peer } from '../support/collabPeers.js'
import { connectHttp } from '../support/mcpHarness.js'
import { startCollabServer, type CollabServer } from '../support/collabServer.js'
import {
  TRANSPORTS, approvals, bytes, cli, decide, envelope, folder, ok, open, read, removeAll, rig, tabsOf, write, type Rig, type Session, type Transport,
} from '../support/conformance.js'

/** Waits until `condition` holds, polling; fails with `what` after a generous bound (a loaded machine is slow, never wrong). */
async function until(condition: () => boolean | Promise<boolean>, what: string, boundMs = 20_000): Promise<void> {
  const deadline = Date.now() + boundMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(10)
  }
}

/** The real file system, except that atomic writes wait at a gate the test opens: a save caught mid-write. */
function gatedFileSystem(): { fileSystem: FileSystemPort; hold(): void; writing(): Promise<void>; release(): void } {
  const real = createFileSystem(mkdtempSync(join(tmpdir(), 'quire-fs-home-'))) // a data directory of its own: nothing inside it is in scope
  let held = false
  let reached: (() => void) | undefined
  let reachedPromise: Promise<void> = Promise.resolve()
  let open: (() => void) | undefined
  let gate: Promise<void> = Promise.resolve()
  return {
    fileSystem: {
      ...real,
      async writeAtomic(path, content) {
        if (held) {
          reached?.()
          await gate
        }
        return real.writeAtomic(path, content)
      },
    },
    hold() {
      held = true
      reachedPromise = new Promise((resolve) => (reached = resolve))
      gate = new Promise((resolve) => (open = resolve))
    },
    writing: () => reachedPromise,
    release() {
      held = false
      open?.()
    },
  }
}

/** An MCP client over Streamable HTTP to the in-process server. */
const httpSession = (server: CollabServer): Promise<Session> => connectHttp(server.port, server.token)

describe('SAVE.RACE an edit that lands while a save of the same document writes the file', () => {
  let server: CollabServer
  let session: Session
  let w: string
  const gate = gatedFileSystem()
  const peers: Peer[] = []

  beforeAll(async () => {
    w = await folder('race', { 'a.md': 'alpha\n', 'b.md': 'beta\n' })
    server = await startCollabServer({}, { fileSystem: gate.fileSystem, watchDisk: true })
    const { engine } = server.quire.services
    await openWorkspaceAsPerson(engine.store, engine.views.workspace, w, USER)
    session = await httpSession(server)
  })
  afterEach(() => {
    gate.release()
    for (const p of peers.splice(0)) p.destroy()
  })
  afterAll(async () => {
    await session?.close()
    await server?.close()
    await removeAll(w)
  })

  async function docIdOf(tabId: string): Promise<string> {
    return server.quire.services.engine.views.workspace.state.tabs.get(tabId)!.docId
  }

  it('SAVE.RACE through MCP: the tab stays dirty, close answers DIRTY, the disk sync never reloads over the newer text', async () => {
    const tabId = await open(session, `${w}/a.md`)
    await write(session, tabId, 'first\n', { save: false })
    gate.hold()
    const saving = session.call('workspace', { action: 'save', tabId })
    await gate.writing()
    const written = await write(session, tabId, 'second\n', { save: false })
    gate.release()
    const saved = ok(await saving)
    expect(saved.revision).not.toBe(written.revision)
    expect(await bytes(`${w}/a.md`)).toBe('first\n')
    expect((await tabsOf(session)).find((tab) => tab.id === tabId)!.dirty).toBe(true)
    expect((await read(session, tabId)).dirty).toBe(true)
    expect(ok(await session.call('workspace', { action: 'close', tabId }))).toEqual({ closed: false, reason: 'DIRTY' })

    // Another program touches the file: a dirty document is marked diverged, never reloaded over.
    await writeFile(`${w}/a.md`, 'touched by another program\n')
    const document = (await server.quire.services.engine.documents.get(await docIdOf(tabId)))!
    await until(() => document.divergence !== null, 'the divergence to be noticed')
    expect((await read(session, tabId)).content).toBe('second\n')
  })

  it('SAVE.RACE through a peer keystroke: the tab stays dirty and close answers DIRTY', async () => {
    const tabId = await open(session, `${w}/b.md`)
    const docId = await docIdOf(tabId)
    const typist = peer(server.port, docId, { token: server.token })
    peers.push(typist)
    await typist.synced()
    gate.hold()
    const saving = session.call('workspace', { action: 'save', tabId })
    await gate.writing()
    typist.text.insert(typist.text.length, 'typed during the save\n')
    await until(async () => (await server.text(docId)).includes('typed during the save'), 'the keystroke to reach the server')
    gate.release()
    ok(await saving)
    expect(await bytes(`${w}/b.md`)).toBe('beta\n')
    expect((await read(session, tabId)).dirty).toBe(true)
    expect(ok(await session.call('workspace', { action: 'close', tabId }))).toEqual({ closed: false, reason: 'DIRTY' })
    expect((await read(session, tabId)).content).toBe('beta\ntyped during the save\n')
  })
})

describe.each<Transport>(TRANSPORTS)('SAVE_AS.ONE_FILE a file reopened after save_as, over %s', (transport) => {
  let r: Rig
  let w: string

  beforeAll(async () => {
    w = await folder('saveas', { 'a.md': 'alpha\n' })
    r = await rig(transport, { workspaces: [w] })
  })
  afterAll(async () => {
    await r?.close()
    await removeAll(w)
  })

  it('SAVE_AS.ONE_FILE opening the old path again opens a new document holding that file, and each tab reads its own file', async () => {
    const first = await open(r.session, `${w}/a.md`)
    await write(r.session, first, 'alpha, edited\n', { save: false })
    const refused = envelope(await r.session.call('workspace', { action: 'save_as', tabId: first, filePath: `${w}/b.md` }), 'APPROVAL_REQUIRED')
    await decide(r.home, 'approve', refused.approvalId as string)
    ok(await r.session.call('workspace', { action: 'save_as', tabId: first, filePath: `${w}/b.md` }))
    expect((await approvals(r.home)).some((entry) => entry.id === refused.approvalId && entry.status === 'pending')).toBe(false)

    const again = await open(r.session, `${w}/a.md`)
    expect(again).not.toBe(first)
    const reopened = await read(r.session, again)
    expect(reopened).toMatchObject({ content: 'alpha\n', filePath: `${w}/a.md`, dirty: false })
    await write(r.session, again, 'alpha, reopened and edited\n', { save: false })

    expect(await read(r.session, first)).toMatchObject({ content: 'alpha, edited\n', filePath: `${w}/b.md`, dirty: false })
    expect(await read(r.session, again)).toMatchObject({ content: 'alpha, reopened and edited\n', filePath: `${w}/a.md`, dirty: true })
    const tabs = await tabsOf(r.session)
    expect(tabs.find((tab) => tab.id === first)).toMatchObject({ filePath: `${w}/b.md`, dirty: false })
    expect(tabs.find((tab) => tab.id === again)).toMatchObject({ filePath: `${w}/a.md`, dirty: true })
    expect(await bytes(`${w}/a.md`)).toBe('alpha\n')
    expect(await bytes(`${w}/b.md`)).toBe('alpha, edited\n')

    await r.stop()
    const listed = await cli(r.home, 'doc', 'list')
    expect(listed.code, listed.stderr).toBe(0)
    const lines = listed.stdout.trim().split('\n')
    expect(lines.filter((line) => line.endsWith(`${w}/b.md`))).toHaveLength(1)
    expect(lines.filter((line) => line.endsWith(`${w}/a.md`))).toHaveLength(1)
    expect(lines.find((line) => line.endsWith(`${w}/b.md`))).toMatch(/\bclean\b/)
    expect(lines.find((line) => line.endsWith(`${w}/a.md`))).toMatch(/\bdirty\b/)
  })
})

describe('DOC.WRITE.BASE a person types while an assistant writes the whole text', () => {
  let server: CollabServer
  let session: Session
  const peers: Peer[] = []

  beforeAll(async () => {
    server = await startCollabServer()
    session = await httpSession(server)
  })
  afterAll(async () => {
    for (const p of peers.splice(0)) p.destroy()
    await session?.close()
    await server?.close()
  })

  it('DOC.WRITE.BASE the line a stock WebsocketProvider peer inserted after the assistant read survives, in place, on both sides', async () => {
    const tabId = ok(await session.call('workspace', { action: 'new' })).tabId as string
    await write(session, tabId, 'one\ntwo\nthree\n')
    const docId = server.quire.services.engine.views.workspace.state.tabs.get(tabId)!.docId
    const typist = peer(server.port, docId, { token: server.token })
    peers.push(typist)
    await typist.synced()

    const seen = await read(session, tabId)
    expect(seen.content).toBe('one\ntwo\nthree\n')
    typist.text.insert('one\n'.length, 'typed by the person\n')
    await until(async () => (await server.text(docId)).includes('typed by the person'), 'the keystroke to reach the server')

    await write(session, tabId, 'ONE\ntwo\nthree, revised\n')
    const expected = 'ONE\ntyped by the person\ntwo\nthree, revised\n'
    expect(await server.text(docId)).toBe(expected)
    await until(() => typist.text.toString() === expected, 'the peer to converge')

    // The assistant writes again without reading: its next write is an edit from what it wrote, so the line it has
    // never read stays too.
    await write(session, tabId, 'ONE\ntwo\nthree, revised twice\n')
    const again = 'ONE\ntyped by the person\ntwo\nthree, revised twice\n'
    expect((await read(session, tabId)).content).toBe(again)
    await until(() => typist.text.toString() === again, 'the peer to converge again')

    // Once the assistant has read the line, a write without it deletes it: that is an edit of what it saw.
    await write(session, tabId, 'ONE\ntwo\n')
    expect((await read(session, tabId)).content).toBe('ONE\ntwo\n')
  })
})

