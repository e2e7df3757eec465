import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ConsoleError } from '../../adapters/http/consoleApi.js'
import type { HistoryRestorePreview } from '../../adapters/http/consoleHistoryApi.js'
import type { DocumentChanges, ReviewActed, ReviewList } from '../../adapters/http/consoleReviewApi.js'
import { startHttpServer, type HttpServer } from '../../adapters/http/daemon.js'
import { connectInProcess, toolCaller, type Session } from '../support/mcpHarness.js'
import { folder, inProcess, open, read, removeAll, write } from '../support/conformance.js'
import { personTypes } from '../support/personTypes.js'

/**
 * The console's review API (issue 26 item 3; adapters/http/consoleReview.ts) over real HTTP to a daemon in this
 * process: a document's pending AI changes with each hunk's Yjs ids and text, keep / undo / redo of a change or one
 * hunk, "Keep all", "Undo all by <assistant>", the Review list across documents newest first, and the restore
 * preview that says what a restore would take out (the person's own later typing called out) before it is made.
 */
describe('console review routes (in-process daemon, real HTTP)', () => {
  let root: string
  let session: Awaited<ReturnType<typeof inProcess>>
  let codex: Session
  let server: HttpServer

  const call = async <T>(method: 'GET' | 'POST', path: string, body?: unknown, status = 200): Promise<T> => {
    const response = await fetch(`${server.url}/console/api${path}`, {
      method,
      headers: { authorization: `Bearer ${server.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const answer = (await response.json()) as T
    expect(response.status, JSON.stringify(answer)).toBe(status)
    return answer
  }
  const docOf = (tabId: string) => session.quire.services.engine.views.workspace.state.tabs.get(tabId)!.docId
  const changes = (docId: string, all = false) => call<DocumentChanges>('GET', `/docs/${docId}/changes${all ? '?all=1' : ''}`)

  beforeAll(async () => {
    root = await folder('console-review', { 'list.md': 'alpha beta gamma\n', 'notes.md': 'one\n', 'story.md': 'First.\n\nSecond.\n' })
    session = await inProcess([root], { principal: 'claude', watchDisk: false })
    const { services } = session.quire
    const { client } = await connectInProcess(services, 'c-codex', 'codex')
    codex = { client, home: session.home, call: toolCaller(client), close: () => client.close() }
    server = await startHttpServer(services)
  })
  afterAll(async () => {
    await codex?.close()
    await server?.close()
    await session?.close()
    await removeAll(root)
  })

  it('lists a document\'s pending changes with each hunk\'s ids and text; undo and keep one hunk, then redo', async () => {
    const tabId = await open(session, join(root, 'list.md'))
    await read(session, tabId)
    await write(session, tabId, 'alpha BETA gamma delta\n')
    const docId = docOf(tabId)
    const listed = await changes(docId)
    expect(listed.docId).toBe(docId)
    expect(listed.revision).toBe((await read(session, tabId)).revision)
    expect(listed.changes).toHaveLength(1)
    const [change] = listed.changes
    expect(change).toMatchObject({ agent: 'claude', by: 'assistant', state: 'pending', summary: "replaced 'beta' with 'BETA', added ' delta'" })
    expect(change!.hunks.map((hunk) => [hunk.deleted, hunk.inserted])).toEqual([['beta', 'BETA'], ['', ' delta']])
    expect(change!.hunks[0]!.insertedRuns.map((run) => run.text).join('')).toBe('BETA')
    expect(change!.hunks[0]!.deletedRuns.map((run) => run.text).join('')).toBe('beta')

    const undone = await call<ReviewActed>('POST', `/docs/${docId}/changes/undo`, { change: change!.id, hunks: [0] })
    expect(undone.acted).toEqual([{ change: change!.id, done: [0], skipped: [] }])
    expect((await read(session, tabId)).content).toBe('alpha beta gamma delta\n')
    expect(undone.revision).toBe((await read(session, tabId)).revision)
    expect(undone.pending.changes[0]!.hunks.map((hunk) => hunk.state)).toEqual(['undone', 'pending'])

    const kept = await call<ReviewActed>('POST', `/docs/${docId}/changes/keep`, { change: change!.id, hunks: [1] })
    expect(kept.acted).toEqual([{ change: change!.id, done: [1], skipped: [] }])
    expect(kept.pending.changes).toEqual([])
    expect((await changes(docId, true)).changes.map((each) => each.state)).toEqual(['mixed'])

    await call<ReviewActed>('POST', `/docs/${docId}/changes/redo`, { change: change!.id, hunks: [0] })
    expect((await read(session, tabId)).content).toBe('alpha BETA gamma delta\n')
    expect((await changes(docId)).changes[0]!.hunks.map((hunk) => hunk.state)).toEqual(['pending', 'kept'])
    await call<ReviewActed>('POST', `/docs/${docId}/changes/keep`, { change: change!.id })
    expect((await changes(docId)).changes).toEqual([])
  })

  it('"Keep all" keeps what the person saw; "Undo all by" one assistant leaves the other\'s change', async () => {
    const tabId = await open(session, join(root, 'notes.md'))
    const docId = docOf(tabId)
    await read(session, tabId)
    await write(session, tabId, 'one\ntwo by claude\n')
    await read(codex, tabId)
    await write(codex, tabId, 'one\ntwo by claude\nthree by codex\n')
    await read(session, tabId)
    await write(session, tabId, 'one\ntwo by claude\nthree by codex\nfour by claude\n')
    expect((await changes(docId)).changes.map((change) => change.agent)).toEqual(['claude', 'codex', 'claude'])

    const undone = await call<ReviewActed>('POST', `/docs/${docId}/changes/undo-by`, { agent: 'claude' })
    expect(undone.acted.map((each) => each.done)).toEqual([[0], [0]])
    expect((await read(codex, tabId)).content).toBe('one\nthree by codex\n')
    expect(undone.pending.changes.map((change) => change.agent)).toEqual(['codex'])

    const seen = (await changes(docId)).revision
    await read(session, tabId)
    await write(session, tabId, 'one\nthree by codex\nfive by claude\n')
    const kept = await call<ReviewActed>('POST', `/docs/${docId}/changes/keep-all`, { upToRevision: seen })
    expect(kept.acted.map((each) => each.change)).toEqual([undone.pending.changes[0]!.id])
    expect(kept.pending.changes.map((change) => change.agent)).toEqual(['claude'])
  })

  it('the Review list: every pending change of every document, by whom and where, newest first', async () => {
    const list = await call<ReviewList>('GET', '/review')
    expect(list.changes.map((change) => [change.agent, change.title])).toEqual([['claude', 'notes.md']])
    const storyTab = await open(session, join(root, 'story.md'))
    await read(codex, storyTab)
    await write(codex, storyTab, 'First.\n\nSecond, by codex.\n')
    const listed = (await call<ReviewList>('GET', '/review')).changes
    expect(listed.map((change) => [change.agent, change.title, change.tabId])).toEqual([
      ['codex', 'story.md', storyTab],
      ['claude', 'notes.md', listed[1]!.tabId],
    ])
    expect(listed[0]).toMatchObject({ docId: docOf(storyTab), path: join(root, 'story.md'), summary: "added ', by codex'", state: 'pending' })
    expect(Date.parse(listed[0]!.at)).toBeGreaterThanOrEqual(Date.parse(listed[1]!.at))
  })

  it('the restore preview: current → restored text, and the person\'s own typing since then, before anything is restored', async () => {
    const storyTab = await open(session, join(root, 'story.md'))
    const docId = docOf(storyTab)
    const before = (await read(session, storyTab)).revision
    await personTypes(session.quire.services.engine, docId, (text) => text.insert(text.toString().indexOf('First') + 'First'.length, ' and foremost'))
    const current = (await read(session, storyTab)).revision
    const head = session.quire.services.engine.store.headPosition
    const preview = await call<HistoryRestorePreview>('GET', `/docs/${docId}/restore-preview?revision=${before}`)
    expect(preview).toMatchObject({ revision: before, current })
    expect(preview.diff.lines.filter((line) => line.kind !== 'same').map((line) => [line.kind, line.text])).toEqual([
      ['removed', 'First and foremost.'],
      ['added', 'First.'],
    ])
    expect(preview.yourEdits.map((edit) => [edit.kind, edit.paragraphs])).toEqual([['edits', [1]]])
    expect(session.quire.services.engine.store.headPosition).toBe(head)
    const refused = await call<ConsoleError>('GET', `/docs/${docId}/restore-preview`, undefined, 400)
    expect(refused.error).toBe('INVALID_ARGUMENT')
  })

  it('refuses what is not a change, a hunk it does not have, or a body of the wrong shape, changing nothing', async () => {
    const tabId = await open(session, join(root, 'list.md'))
    const docId = docOf(tabId)
    const head = session.quire.services.engine.store.headPosition
    expect((await call<ConsoleError>('POST', `/docs/${docId}/changes/undo`, { change: 'nope' }, 400)).error).toBe('INVALID_ARGUMENT')
    expect((await call<ConsoleError>('POST', `/docs/${docId}/changes/undo`, { change: 'ch-zzzz' }, 404)).error).toBe('NOT_FOUND')
    const [change] = (await changes(docId, true)).changes
    expect((await call<ConsoleError>('POST', `/docs/${docId}/changes/keep`, { change: change!.id, hunks: [9] }, 400)).error).toBe('INVALID_ARGUMENT')
    expect((await call<ConsoleError>('POST', `/docs/${docId}/changes/keep`, { change: change!.id, extra: 1 }, 400)).error).toBe('INVALID_ARGUMENT')
    expect((await call<ConsoleError>('POST', `/docs/${docId}/changes/undo-by`, {}, 400)).error).toBe('INVALID_ARGUMENT')
    expect((await call<ConsoleError>('GET', '/docs/doc-nope/changes', undefined, 404)).error).toBe('NOT_FOUND')
    expect(session.quire.services.engine.store.headPosition).toBe(head)
  })
})
