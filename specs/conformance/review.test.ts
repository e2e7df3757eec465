/**
 * DOC.WRITE.18 (REVIEW_BACKLOG_FULL; TOOLS.md §16 leaves the rule to us, see core/review/commands.ts): an AI change
 * is unreviewed until the person marks the document reviewed at or after it; at `reviewBacklogLimit` unreviewed
 * applied AI writes, `document.write` answers the REVIEW_BACKLOG_FULL envelope and changes nothing; the person's
 * "Mark all reviewed" (console API) lets writes through again.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ConsoleState } from '../../adapters/http/consoleApi.js'
import type { HistoryView } from '../../adapters/http/consoleHistoryApi.js'
import { USER } from '../../core/events/actor.js'
import { isQuireError } from '../../core/errors.js'
import { bytes, envelope, folder, inProcess, ok, prepareHome, put, read, removeAll } from '../support/conformance.js'
import { launchDaemon, type Daemon, type Session } from '../support/mcpHarness.js'

const LIMIT = 3

describe('DOC.WRITE.18 REVIEW_BACKLOG_FULL over MCP (daemon)', () => {
  let ws: string
  let home: string
  let daemon: Daemon
  let mcp: Session

  beforeAll(async () => {
    ws = await folder('review')
    home = await prepareHome((services) => services.settings.set('reviewBacklogLimit', LIMIT, USER))
    daemon = await launchDaemon({ workspaces: [ws], home })
    mcp = await daemon.connect()
  })
  afterAll(async () => {
    await mcp?.close()
    await daemon?.stop()
    await removeAll(ws, home)
  })

  const console = async (path: string, body?: unknown) => {
    const response = await fetch(`${daemon.url}/console/api${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${daemon.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    expect(response.status).toBe(200)
    return (await response.json()) as unknown
  }

  it('refuses the write after the limit of unreviewed AI writes, changing nothing, until the person marks them reviewed', async () => {
    const path = join(ws, 'busy.md')
    await put(path, 'start\n')
    const tabId = ok(await mcp.call('workspace', { action: 'open', filePath: path })).tabId as string
    for (let i = 1; i <= LIMIT; i++) ok(await mcp.call('document', { action: 'write', tabId, content: `start\n${i}\n` }))
    const before = await read(mcp, tabId)
    const fileBefore = await bytes(path)

    const refused = envelope(await mcp.call('document', { action: 'write', tabId, content: 'one too many\n' }), 'REVIEW_BACKLOG_FULL')
    expect(refused.message).toMatch(/review/i)
    const after = await read(mcp, tabId)
    expect(after.content).toBe(before.content)
    expect(after.revision).toBe(before.revision)
    expect(await bytes(path)).toBe(fileBefore)

    const state = (await console('/state')) as ConsoleState
    const docId = state.windows.flatMap((window) => window.tabs).find((tab) => tab.tabId === tabId)!.docId
    const view = (await console(`/docs/${docId}/history`)) as HistoryView
    expect(view).toMatchObject({ unreviewed: LIMIT, limit: LIMIT })
    const reviewed = (await console(`/docs/${docId}/review`, { upToRevision: view.revision })) as HistoryView
    expect(reviewed.unreviewed).toBe(0)
    expect(reviewed.entries[0]).toMatchObject({ kind: 'reviewed', revision: view.revision, actor: 'user' })
    expect(reviewed.entries.filter((entry) => entry.kind === 'ai-write').every((entry) => entry.reviewed)).toBe(true)

    ok(await mcp.call('document', { action: 'write', tabId, content: 'reviewed, then written\n' }))
    expect((await read(mcp, tabId)).content).toBe('reviewed, then written\n')
  })
})

describe('DOC.WRITE.18 the backlog check in process (services.review)', () => {
  it('assertBacklogNotFull throws REVIEW_BACKLOG_FULL {unreviewed, limit} at the limit; markReviewed clears it', async () => {
    const ws = await folder('review-inproc', { 'a.md': 'a\n' })
    const session = await inProcess([ws], { principal: 'claude' })
    try {
      const { services } = session.quire
      await services.settings.set('reviewBacklogLimit', 2, USER)
      const tabId = ok(await session.call('workspace', { action: 'open', filePath: join(ws, 'a.md') })).tabId as string
      const docId = services.engine.views.workspace.state.tabs.get(tabId)!.docId
      for (let i = 0; i < 2; i++) {
        await services.review.assertBacklogNotFull(docId)
        ok(await session.call('document', { action: 'write', tabId, content: `a\n${i}\n`, save: false }))
      }
      expect(await services.review.unreviewed(docId)).toBe(2)
      await expect(services.review.assertBacklogNotFull(docId)).rejects.toSatisfy(
        (error) => isQuireError(error, 'REVIEW_BACKLOG_FULL') && error.details.unreviewed === 2 && error.details.limit === 2,
      )
      const { revision } = await read(session, tabId)
      await services.review.markReviewed(docId, revision, USER)
      expect(await services.review.unreviewed(docId)).toBe(0)
      await services.review.assertBacklogNotFull(docId)
    } finally {
      await session.close()
      await removeAll(ws)
    }
  })
})
