/**
 * `document.write` with `edits` (Quire's extension, docs/tools.md "write with edits"; issue 27): targeted
 * `{old_text, new_text, occurrence?}` replacements applied one after the other as one journaled write, exact and
 * unambiguous, or refused whole (EDIT_NOT_FOUND / EDIT_AMBIGUOUS naming the edit); `dry_run` answers the diff and
 * changes nothing. DOC.WRITE.EDITS.* are this extension's rules, over stdio and HTTP, and with a person typing.
 */
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import * as Y from 'yjs'
import { openQuire } from '../../adapters/host/quire.js'
import { gatedLog } from '../support/gatedLog.js'
import { runCli } from '../support/cli.js'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { USER } from '../../core/events/actor.js'
import { openWorkspaceAsPerson } from '../../core/workspace/commands.js'
import { peer, until } from '../support/collabPeers.js'
import { connectInProcess } from '../support/mcpHarness.js'
import { usePersonBeside } from '../support/personBeside.js'
import { TRANSPORTS, envelope, folder, logRecords, ok, open, plain, read, removeAll, rig, type Rig, type Transport } from '../support/conformance.js'

describe.each<Transport>(TRANSPORTS)('document.write with edits over %s', (transport) => {
  let r: Rig
  let w: string

  beforeAll(async () => {
    w = await folder('edits', {
      'a.md': '# Notes\n\nThe quick brown fox.\nThe lazy dog.\n',
      'b.md': 'one\ntwo\none\nthree\none\n',
      'c.md': 'line one\r\nline two\r\n',
      'd.md': '# 標題\n\n中文段落，😀 表情。\nsecond 😀 line\n',
      'e.md': 'alpha\nbeta\n',
      'f.md': 'keep me\n',
      'g.md': 'first\nsecond\n',
    })
    r = await rig(transport, { workspaces: [w] })
  })
  afterAll(async () => {
    await r?.close()
    await removeAll(w)
  })

  const call = (args: Record<string, unknown>) => r.session.call('document', { action: 'write', ...args })

  it('DOC.WRITE.EDITS.1 each old_text found exactly is replaced, one after the other, as one journaled write that saves', async () => {
    const tabId = await open(r.session, `${w}/a.md`)
    const answer = ok(await call({ tabId, edits: [{ old_text: 'quick brown', new_text: 'slow red' }, { old_text: 'slow red fox', new_text: 'slow red fox jumps' }] }))
    expect(answer).toMatchObject({ applied: true, durable: true, saved: true })
    expect((await read(r.session, tabId)).content).toBe('# Notes\n\nThe slow red fox jumps.\nThe lazy dog.\n')
    expect(await readFile(`${w}/a.md`, 'utf8')).toBe('# Notes\n\nThe slow red fox jumps.\nThe lazy dog.\n')
    const journal = (await logRecords(r.home)).filter((record) => record.type === 'journal.recorded')
    expect(journal.at(-1)).toMatchObject({ data: { operation: 'write', detail: '2 edits' } })
  })

  it('DOC.WRITE.EDITS.2 an old_text that is not there, or is there several times without occurrence, refuses the whole call and changes nothing', async () => {
    const tabId = await open(r.session, `${w}/b.md`)
    const before = await read(r.session, tabId)
    const missing = envelope(await call({ tabId, edits: [{ old_text: 'two', new_text: '2' }, { old_text: 'four', new_text: '4' }] }), 'EDIT_NOT_FOUND')
    expect(missing).toMatchObject({ edit: 1 })
    const ambiguous = envelope(await call({ tabId, edits: [{ old_text: 'one\n', new_text: '1\n' }] }), 'EDIT_AMBIGUOUS')
    expect(ambiguous).toMatchObject({ edit: 0, matches: 3, lines: [1, 3, 5] })
    expect(await read(r.session, tabId)).toEqual(before)
    // occurrence picks one (1-based); past the last there is none.
    envelope(await call({ tabId, edits: [{ old_text: 'one\n', new_text: '1\n', occurrence: 4 }] }), 'EDIT_NOT_FOUND')
    ok(await call({ tabId, edits: [{ old_text: 'one\n', new_text: '1\n', occurrence: 2 }], save: false }))
    expect((await read(r.session, tabId)).content).toBe('one\ntwo\n1\nthree\none\n')
  })

  it('DOC.WRITE.EDITS.3 line endings: the document holds LF, and an old_text or new_text with CRLF matches and writes as LF', async () => {
    const tabId = await open(r.session, `${w}/c.md`)
    expect((await read(r.session, tabId)).content).toBe('line one\nline two\n')
    ok(await call({ tabId, edits: [{ old_text: 'line one\r\nline two', new_text: 'line 1\r\nline 2' }], save: false }))
    expect((await read(r.session, tabId)).content).toBe('line 1\nline 2\n')
  })

  it('DOC.WRITE.EDITS.4 CJK and emoji: matched and replaced as text, whatever their UTF-16 length', async () => {
    const tabId = await open(r.session, `${w}/d.md`)
    ok(await call({ tabId, edits: [{ old_text: '😀 表情', new_text: '🎉 表情符號' }, { old_text: 'second 😀', new_text: '第二 😀' }], save: false }))
    expect((await read(r.session, tabId)).content).toBe('# 標題\n\n中文段落，🎉 表情符號。\n第二 😀 line\n')
  })

  it('DOC.WRITE.EDITS.5 dry_run answers the unified diff and the revision it was computed on, and changes nothing; that revision writes it', async () => {
    const tabId = await open(r.session, `${w}/e.md`)
    const before = await read(r.session, tabId)
    const head = (await logRecords(r.home)).length
    const dry = ok(await call({ tabId, edits: [{ old_text: 'beta', new_text: 'BETA' }], dry_run: true }))
    expect(await logRecords(r.home)).toHaveLength(head)
    expect(dry).toMatchObject({ dry_run: true, applied: false, revision: before.revision })
    expect(dry.diff).toContain('-beta')
    expect(dry.diff).toContain('+BETA')
    expect(dry.diff).toContain('@@ -1,2 +1,2 @@')
    expect(await read(r.session, tabId)).toEqual(before)
    expect(await readFile(`${w}/e.md`, 'utf8')).toBe('alpha\nbeta\n')
    ok(await call({ tabId, edits: [{ old_text: 'beta', new_text: 'BETA' }], expected_revision: dry.revision, save: false }))
    expect((await read(r.session, tabId)).content).toBe('alpha\nBETA\n')
  })

  it('DOC.WRITE.EDITS.6 STALE with an expected_revision the document has moved past; content and edits together, or dry_run without edits, are refused', async () => {
    const tabId = await open(r.session, `${w}/f.md`)
    const { revision } = await read(r.session, tabId)
    ok(await call({ tabId, edits: [{ old_text: 'keep', new_text: 'kept' }], save: false }))
    envelope(await call({ tabId, edits: [{ old_text: 'me', new_text: 'you' }], expected_revision: revision }), 'STALE')
    expect(plain(await call({ tabId, content: 'x', edits: [{ old_text: 'me', new_text: 'you' }] }))).toMatch(/content .*or edits, not both/)
    expect(plain(await call({ tabId, content: 'x', dry_run: true }))).toMatch(/dry_run only with edits/)
    expect(plain(await call({ tabId, edits: [] }))).toBeTruthy()
    expect((await read(r.session, tabId)).content).toBe('kept me\n')
  })

  it('DOC.WRITE.EDITS.7 one call is one AI change for review', async () => {
    const tabId = await open(r.session, `${w}/g.md`)
    ok(await call({ tabId, edits: [{ old_text: 'first', new_text: 'FIRST' }, { old_text: 'second', new_text: 'SECOND' }], save: false }))
    const listed = await runCli(['review', 'list', `${w}/g.md`, '--json'], { home: r.home })
    expect(listed.code, listed.stderr).toBe(0)
    const changes = listed.stdout.trim().split('\n').map((line) => JSON.parse(line) as { hunks: { inserted: string; deleted: string }[] })
    expect(changes).toHaveLength(1)
    expect(changes[0]!.hunks.map((hunk) => hunk.deleted).join('')).toContain('first')
    expect(changes[0]!.hunks.map((hunk) => hunk.inserted).join('')).toContain('SECOND')
  })
})

describe('document.write with edits while a person types (DOC.WRITE.EDITS.8)', () => {
  const rig = usePersonBeside('edits-typing', { 'p.md': 'Intro line.\n\nThe paragraph the person is typing in.\n' })

  it('DOC.WRITE.EDITS.8 an edit inside the paragraph a person is typing in applies to the text as it is then, and keeps every keystroke', async () => {
    const tabId = ok(await rig.session.call('workspace', { action: 'open', filePath: join(rig.workspace, 'p.md') })).tabId as string
    const docId = rig.server.quire.services.engine.views.workspace.state.tabs.get(tabId)!.docId
    const typist = peer(rig.server.port, docId, { token: rig.server.token })
    rig.peers.push(typist)
    await typist.synced()
    typist.text.insert(typist.text.toString().indexOf('typing in.') + 'typing in.'.length, ' More words')
    await until('the keystrokes to reach the server', async () => (await rig.server.text(docId)).includes('More words'))
    ok(await rig.session.call('document', { action: 'write', tabId, edits: [{ old_text: 'the person is typing', new_text: 'someone types' }], save: false }))
    const expected = 'Intro line.\n\nThe paragraph someone types in. More words\n'
    expect(await rig.server.text(docId)).toBe(expected)
    await until('the peer to converge', () => typist.text.toString() === expected)
  })
})

describe('document.write with edits and the journal (DOC.WRITE.EDITS.9)', () => {
  it('DOC.WRITE.EDITS.9 the person typing while the edit is being recorded: ABORTED, nothing changed, the typing kept', async () => {
    const base = await realpath(await mkdtemp(join(tmpdir(), 'quire-edits-aborted-')))
    await mkdir(join(base, 'ws'))
    await writeFile(join(base, 'ws', 'n.md'), 'alpha beta\n')
    const log = gatedLog(join(base, 'log'))
    const quire = await openQuire(join(base, 'home'), { watchDisk: false, openLog: log.openLog })
    const { client } = await connectInProcess(quire.services, 'c-1', 'claude')
    try {
      await openWorkspaceAsPerson(quire.services.engine.store, quire.services.engine.views.workspace, join(base, 'ws'), USER)
      const call = async ({ tool, ...args }: Record<string, unknown>) => (await client.callTool({ name: tool as string, arguments: args })) as { isError?: boolean; content: { text: string }[] }
      const opened = await call({ tool: 'workspace', action: 'open', filePath: join(base, 'ws', 'n.md') })
      const tabId = (JSON.parse(opened.content[0]!.text) as { tabId: string }).tabId
      const docId = quire.services.engine.views.workspace.state.tabs.get(tabId)!.docId
      const release = log.hold()
      const writing = call({ tool: 'document', action: 'write', tabId, edits: [{ old_text: 'beta', new_text: 'BETA' }], save: false })
      while (log.waiting === 0) await new Promise((resolve) => setTimeout(resolve, 1))
      const state = (await quire.services.engine.documents.get(docId))!
      const typist = new Y.Doc()
      Y.applyUpdate(typist, Y.encodeStateAsUpdate(state.ydoc))
      const vector = Y.encodeStateVector(typist)
      typist.getText('source').insert(0, 'typed ')
      const typed = quire.services.engine.commands.documents.applyPeerUpdates(docId, [Y.encodeStateAsUpdate(typist, vector)], { kind: 'peer', peer: 'console' })
      release()
      await (await typed).durable
      const answer = await writing
      expect(answer.isError).toBe(true)
      expect(answer.content[0]!.text).toContain('ABORTED')
      expect(state.content).toBe('typed alpha beta\n')
    } finally {
      await client.close()
      await quire.close()
      await rm(base, { recursive: true, force: true })
    }
  })
})
