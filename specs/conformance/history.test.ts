/**
 * Document history in the console (SAVE.4–5, DOC.WRITE.20, the History sidebar's API): every AI save is an `(mcp)`
 * entry, never merged or skipped, next to the AI writes that made the text (operation, agent, revision); two
 * revisions diff line by line; the person's restore is a new change that `document.read` then returns and history
 * lists as a restore. Runs against the daemon with the real SDK client over Streamable HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ConsoleState } from '../../adapters/http/consoleApi.js'
import type { HistoryDiff, HistoryRestored, HistoryView } from '../../adapters/http/consoleHistoryApi.js'
import { folder, ok, put, read, removeAll } from '../support/conformance.js'
import { launchDaemon, type Daemon, type Session } from '../support/mcpHarness.js'
import { join } from 'node:path'

describe('history in the console (SAVE.4–5)', () => {
  let ws: string
  let daemon: Daemon
  let mcp: Session

  beforeAll(async () => {
    ws = await folder('history')
    daemon = await launchDaemon({ workspaces: [ws] })
    mcp = await daemon.connect()
  })
  afterAll(async () => {
    await mcp?.close()
    await daemon?.stop()
    await removeAll(ws)
  })

  const api = async (path: string, init: { method?: string; body?: unknown; token?: string | null } = {}) => {
    const headers: Record<string, string> = {}
    if (init.token !== null) headers.authorization = `Bearer ${init.token ?? daemon.token}`
    if (init.body !== undefined) headers['content-type'] = 'application/json'
    const response = await fetch(`${daemon.url}/console/api${path}`, {
      method: init.method ?? 'GET', headers, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    })
    return { status: response.status, body: (await response.json()) as unknown }
  }
  const docIdOf = async (tabId: string): Promise<string> => {
    const state = (await api('/state')).body as ConsoleState
    return state.windows.flatMap((window) => window.tabs).find((tab) => tab.tabId === tabId)!.docId
  }
  const history = async (docId: string) => (await api(`/docs/${docId}/history`)).body as HistoryView

  it('SAVE.4 / DOC.WRITE.20 lists each AI write with its operation, agent and revision, and each AI save as (mcp); SAVE.5 never merges or skips them', async () => {
    const path = join(ws, 'notes.md')
    await put(path, '# Notes\n')
    const tabId = ok(await mcp.call('workspace', { action: 'open', filePath: path })).tabId as string
    const docId = await docIdOf(tabId)
    const first = ok(await mcp.call('document', { action: 'write', tabId, content: '# Notes\n\nfirst\n' }))
    const second = ok(await mcp.call('document', { action: 'write', tabId, content: '# Notes\n\nsecond\n' }))
    // Two saves of unchanged text: both are history entries (never merged, never skipped).
    ok(await mcp.call('workspace', { action: 'save', tabId }))
    ok(await mcp.call('workspace', { action: 'save', tabId }))

    const view = await history(docId)
    expect(view.revision).toBe(second.revision)
    const entries = [...view.entries].reverse()
    expect(entries.map((entry) => (entry.kind === 'save' ? `${entry.reason}${entry.mcp ? ' (mcp)' : ''}` : entry.kind))).toEqual([
      'open (mcp)', 'ai-write', 'save (mcp)', 'ai-write', 'save (mcp)', 'save (mcp)', 'save (mcp)',
    ])
    const writes = entries.filter((entry) => entry.kind === 'ai-write')
    expect(writes.map((entry) => entry.revision)).toEqual([first.revision, second.revision])
    for (const write of writes) {
      expect(write).toMatchObject({ kind: 'ai-write', operation: 'write', agent: expect.any(String), reviewed: false, addresses: [] })
      expect(write.actor).toMatch(/^mcp:/)
    }
    const saves = entries.filter((entry) => entry.kind === 'save' && entry.mcp && entry.reason === 'save')
    expect(saves.map((entry) => entry.revision)).toEqual([first.revision, second.revision, second.revision, second.revision])
    expect(view.unreviewed).toBe(2)
    expect(view.limit).toBe(20)
  })

  it('diffs two revisions line by line, and a restore is a new change by the person that document.read then returns', async () => {
    const path = join(ws, 'restore.md')
    await put(path, 'alpha\nbeta\n')
    const tabId = ok(await mcp.call('workspace', { action: 'open', filePath: path })).tabId as string
    const docId = await docIdOf(tabId)
    const older = ok(await mcp.call('document', { action: 'write', tabId, content: 'alpha\nbeta\ngamma\n' })).revision as string
    const newer = ok(await mcp.call('document', { action: 'write', tabId, content: 'alpha\nBETA\ngamma\n' })).revision as string

    const diff = (await api(`/docs/${docId}/diff?from=${older}&to=${newer}`)).body as HistoryDiff
    expect(diff).toMatchObject({ from: older, to: newer, added: 1, removed: 1 })
    expect(diff.lines.map((line) => `${line.kind}:${line.text}`)).toEqual(['same:alpha', 'removed:beta', 'added:BETA', 'same:gamma'])

    // A restore based on a revision the document has left is refused (the person must look again).
    const stale = await api(`/docs/${docId}/restore`, { method: 'POST', body: { revision: older, expectedRevision: older } })
    expect(stale).toMatchObject({ status: 409, body: { error: 'STALE' } })
    const restored = await api(`/docs/${docId}/restore`, { method: 'POST', body: { revision: older, expectedRevision: newer } })
    expect(restored.status).toBe(200)
    const answer = restored.body as HistoryRestored
    expect(answer.changed).toBe(true)
    const now = await read(mcp, tabId)
    expect(now.content).toBe('alpha\nbeta\ngamma\n')
    expect(now.revision).toBe(answer.revision)
    expect(answer.history.entries[0]).toMatchObject({ kind: 'restore', restored: older, revision: answer.revision, actor: 'user' })
    // The log was not rewritten: the newer revision still replays, and the restore is not an AI change.
    const again = (await api(`/docs/${docId}/diff?from=${newer}&to=${answer.revision}`)).body as HistoryDiff
    expect(again.lines.map((line) => `${line.kind}:${line.text}`)).toEqual(['same:alpha', 'removed:BETA', 'added:beta', 'same:gamma'])
    expect(answer.history.unreviewed).toBe(2)
  })

  it('needs the console token, and names unknown documents and revisions NOT_FOUND', async () => {
    expect((await api('/docs/d-nope/history', { token: null })).status).toBe(401)
    expect((await api('/docs/d-nope/history', { token: 'wrong' })).status).toBe(401)
    expect(await api('/docs/d-nope/history')).toMatchObject({ status: 404, body: { error: 'NOT_FOUND' } })
    const path = join(ws, 'missing-rev.md')
    await put(path, 'x\n')
    const tabId = ok(await mcp.call('workspace', { action: 'open', filePath: path })).tabId as string
    const docId = await docIdOf(tabId)
    expect(await api(`/docs/${docId}/diff?from=rev-1&to=rev-zzzz`)).toMatchObject({ status: 404, body: { error: 'NOT_FOUND' } })
    expect(await api(`/docs/${docId}/restore`, { method: 'POST', body: {} })).toMatchObject({ status: 400, body: { error: 'INVALID_ARGUMENT' } })
  })
})
