/**
 * Quire's reading of DOC.WRITE.5 (`save`, docs/tools.md): an assistant's write with `save: true` saves the document
 * as it stands only when the person has no unsaved edits of their own in it. While a person's typing is unsaved the
 * write is applied and answers `saved: false` with `save_skipped: "person_unsaved"`: nothing of the person's
 * half-typed text reaches the file behind their back. Once the person has saved, the assistant's writes save again.
 * A stock y-websocket peer types as the person.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { USER } from '../../core/events/actor.js'
import { openWorkspaceAsPerson } from '../../core/workspace/commands.js'
import { peer, until, type Peer } from '../support/collabPeers.js'
import { connectHttp, type Session } from '../support/mcpHarness.js'
import { startCollabServer, type CollabServer } from '../support/collabServer.js'
import { folder, ok, read, removeAll } from '../support/conformance.js'

const PERSON = { actor: USER, connection: 'person', principal: null }

describe('DOC.WRITE.SAVE_PERSON an assistant\'s save: true and the person\'s unsaved typing', () => {
  let server: CollabServer
  let session: Session
  let w: string
  const peers: Peer[] = []

  beforeAll(async () => {
    w = await folder('person-unsaved', {})
    server = await startCollabServer()
    await openWorkspaceAsPerson(server.quire.services.engine.store, server.quire.services.engine.views.workspace, w, USER)
    session = await connectHttp(server.port, server.token)
  })
  afterEach(() => {
    for (const p of peers.splice(0)) p.destroy()
  })
  afterAll(async () => {
    await session?.close()
    await server?.close()
    await removeAll(w)
  })

  async function typistOn(name: string, text: string): Promise<{ tabId: string; docId: string; typist: Peer; path: string }> {
    const path = join(w, name)
    await writeFile(path, text)
    const tabId = ok(await session.call('workspace', { action: 'open', filePath: path })).tabId as string
    const docId = server.quire.services.engine.views.workspace.state.tabs.get(tabId)!.docId
    const typist = peer(server.port, docId, { token: server.token })
    peers.push(typist)
    await typist.synced()
    return { tabId, docId, typist, path }
  }

  it('DOC.WRITE.SAVE_PERSON while the person\'s typing is unsaved, the write applies and answers saved: false, save_skipped: person_unsaved; the file keeps its bytes', async () => {
    const { tabId, docId, typist, path } = await typistOn('draft.md', 'Title\n\nIntro.\n')
    await read(session, tabId)
    typist.text.insert('Title\n\nIntro.\n'.length, 'A half-typed sent')
    await until('the keystrokes to reach the server', async () => (await server.text(docId)).includes('half-typed'))

    const answer = ok(await session.call('document', { action: 'write', tabId, content: 'Title\n\nIntro, revised.\n' }))
    expect(answer).toMatchObject({ applied: true, durable: true, saved: false, save_skipped: 'person_unsaved' })
    expect(answer.journaled).toBeUndefined()
    expect(await readFile(path, 'utf8')).toBe('Title\n\nIntro.\n')
    expect(await server.text(docId)).toBe('Title\n\nIntro, revised.\nA half-typed sent')

    // The person saves: the file holds both, and the assistant's next write saves as usual.
    await server.quire.services.files.save(tabId, PERSON)
    expect(await readFile(path, 'utf8')).toBe('Title\n\nIntro, revised.\nA half-typed sent')
    expect((await read(session, tabId)).content).toBe('Title\n\nIntro, revised.\nA half-typed sent')
    const next = ok(await session.call('document', { action: 'write', tabId, content: 'Title\n\nIntro, revised twice.\nA half-typed sent' }))
    expect(next).toMatchObject({ applied: true, saved: true })
    expect(await readFile(path, 'utf8')).toBe('Title\n\nIntro, revised twice.\nA half-typed sent')
  })

  it('DOC.WRITE.5 with no typing of the person\'s unsaved (a peer connected, not typing), save: true saves', async () => {
    const { tabId, path } = await typistOn('quiet.md', 'one\n')
    await read(session, tabId)
    expect(ok(await session.call('document', { action: 'write', tabId, content: 'one\ntwo\n' }))).toMatchObject({ saved: true })
    expect(await readFile(path, 'utf8')).toBe('one\ntwo\n')
  })
})
