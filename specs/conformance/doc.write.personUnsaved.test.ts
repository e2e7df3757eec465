/**
 * Quire's reading of DOC.WRITE.5 (`save`, docs/tools.md): an assistant's write with `save: true` saves the document
 * as it stands only when the person has no unsaved edits of their own in it. While a person's typing is unsaved the
 * write is applied and answers `saved: false` with `save_skipped: "person_unsaved"`: nothing of the person's
 * half-typed text reaches the file behind their back. Once the person has saved, the assistant's writes save again.
 * A stock y-websocket peer types as the person.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { USER } from '../../core/events/actor.js'
import { peer, until, type Peer } from '../support/collabPeers.js'
import { usePersonBeside } from '../support/personBeside.js'
import { ok, read } from '../support/conformance.js'

const PERSON = { actor: USER, connection: 'person', principal: null }

describe('DOC.WRITE.SAVE_PERSON an assistant\'s save: true and the person\'s unsaved typing', () => {
  const rig = usePersonBeside('person-unsaved', {})

  async function typistOn(name: string, text: string): Promise<{ tabId: string; docId: string; typist: Peer; path: string }> {
    const path = join(rig.workspace, name)
    await writeFile(path, text)
    const tabId = ok(await rig.session.call('workspace', { action: 'open', filePath: path })).tabId as string
    const docId = rig.server.quire.services.engine.views.workspace.state.tabs.get(tabId)!.docId
    const typist = peer(rig.server.port, docId, { token: rig.server.token })
    rig.peers.push(typist)
    await typist.synced()
    return { tabId, docId, typist, path }
  }

  it('DOC.WRITE.SAVE_PERSON while the person\'s typing is unsaved, the write applies and answers saved: false, save_skipped: person_unsaved; the file keeps its bytes', async () => {
    const { tabId, docId, typist, path } = await typistOn('draft.md', 'Title\n\nIntro.\n')
    await read(rig.session, tabId)
    typist.text.insert('Title\n\nIntro.\n'.length, 'A half-typed sent')
    await until('the keystrokes to reach the server', async () => (await rig.server.text(docId)).includes('half-typed'))

    const answer = ok(await rig.session.call('document', { action: 'write', tabId, content: 'Title\n\nIntro, revised.\n' }))
    expect(answer).toMatchObject({ applied: true, durable: true, saved: false, save_skipped: 'person_unsaved' })
    expect(answer.journaled).toBeUndefined()
    expect(await readFile(path, 'utf8')).toBe('Title\n\nIntro.\n')
    expect(await rig.server.text(docId)).toBe('Title\n\nIntro, revised.\nA half-typed sent')

    // The person saves: the file holds both, and the assistant's next write saves as usual.
    await rig.server.quire.services.files.save(tabId, PERSON)
    expect(await readFile(path, 'utf8')).toBe('Title\n\nIntro, revised.\nA half-typed sent')
    expect((await read(rig.session, tabId)).content).toBe('Title\n\nIntro, revised.\nA half-typed sent')
    const next = ok(await rig.session.call('document', { action: 'write', tabId, content: 'Title\n\nIntro, revised twice.\nA half-typed sent' }))
    expect(next).toMatchObject({ applied: true, saved: true })
    expect(await readFile(path, 'utf8')).toBe('Title\n\nIntro, revised twice.\nA half-typed sent')
  })

  it('DOC.WRITE.5 with no typing of the person\'s unsaved (a peer connected, not typing), save: true saves', async () => {
    const { tabId, path } = await typistOn('quiet.md', 'one\n')
    await read(rig.session, tabId)
    expect(ok(await rig.session.call('document', { action: 'write', tabId, content: 'one\ntwo\n' }))).toMatchObject({ saved: true })
    expect(await readFile(path, 'utf8')).toBe('one\ntwo\n')
  })
})
