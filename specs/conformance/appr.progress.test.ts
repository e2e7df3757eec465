/**
 * While the person decides (issue 27, item 3): a call that waits on the person's approval sends MCP progress
 * notifications when the client asked for them (`_meta.progressToken`), saying what it waits for and where the person
 * answers, at a steady interval; it answers as soon as the person decides; and a client that cancels it
 * (`notifications/cancelled`) withdraws the request, which the console then stops showing. A real SDK client over
 * stdio and HTTP, the person deciding through the real CLI.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  TRANSPORTS, approvals, bytes, cli, decide, envelope, folder, ok, open, removeAll, rig, windowOf,
  type ApprovalLine, type Json, type Rig, type Transport,
} from '../support/conformance.js'
import { callWithProgress, until } from '../support/toolProgress.js'

const structured = (result: CallToolResult): Json => result.structuredContent

describe.each<Transport>(TRANSPORTS)('waiting on the person with progress over %s', (transport) => {
  let r: Rig
  let w: string
  const made: string[] = []
  const requestFor = async (kind: string, subject: string): Promise<ApprovalLine | undefined> =>
    (await approvals(r.home)).find((entry) => entry.kind === kind && entry.subject === subject)
  /** What the console's Approvals panel lists (its API, with the port file's token as the CLI uses it). */
  const consolePanel = async (): Promise<{ pending: Json[]; recent: Json[] }> => {
    const [port, token] = (await readFile(join(r.home, 'port'), 'utf8')).trim().split(':')
    const response = await fetch(`http://127.0.0.1:${port}/console/api/panels/approvals`, { headers: { authorization: `Bearer ${token}` } })
    expect(response.status).toBe(200)
    return (await response.json()) as { pending: Json[]; recent: Json[] }
  }

  beforeAll(async () => {
    w = await folder('progress', { 'a.md': '# A\n' })
    r = await rig(transport, { workspaces: [w] })
  })
  afterAll(async () => {
    await r?.close()
    await removeAll(w, ...made)
  })

  it('ISSUE27.3 open_workspace with a progress token waits for the person, notifying at a steady interval what it waits for and where to answer, and opens the folder once they approve', async () => {
    const f = await folder('progress-open', { 'inside.md': 'inside\n' })
    made.push(f)
    const shown = (await windowOf(r.session)).activeWorkspaceInstanceId
    const { notes, result } = callWithProgress(r.session, 'workspace', { action: 'open_workspace', folderPath: f })
    const request = await until('the request', () => requestFor('open_workspace', f))
    expect(request.status).toBe('pending')
    await until('three progress notifications', () => (notes.length >= 3 ? true : undefined))
    let settled = false
    void result.then(() => (settled = true))
    expect(settled, 'the call waits for the person').toBe(false)
    for (const note of notes) {
      expect(note.message).toContain(request.id)
      expect(note.message).toContain(f)
      expect(note.message).toContain(`quire approvals approve ${request.id}`)
      expect(note.message).toMatch(/console/)
    }
    const progress = notes.map((note) => note.progress)
    expect(progress).toEqual([...progress].sort((a, b) => a - b))
    expect(new Set(progress).size).toBe(progress.length)
    await decide(r.home, 'approve', request.id)
    const answer = await result
    expect(answer.isError).toBe(false)
    expect(structured(answer)).toMatchObject({ opened: true, folderPath: f })
    expect(ok(await r.session.call('workspace', { action: 'open', filePath: join(f, 'inside.md') })).workspaceInstanceId).not.toBe(shown)
    expect((await requestFor('open_workspace', f))!.status).toBe('consumed')
  })

  it('ISSUE27.3 cancelling a waiting call (notifications/cancelled) withdraws its request: it cannot be approved, the console stops showing it, nothing opens', async () => {
    const f = await folder('progress-cancel', { 'inside.md': 'inside\n' })
    made.push(f)
    const controller = new AbortController()
    const { notes, result } = callWithProgress(r.session, 'workspace', { action: 'open_workspace', folderPath: f }, controller.signal)
    const request = await until('the request', () => requestFor('open_workspace', f))
    await until('a progress notification', () => (notes.length >= 1 ? true : undefined))
    expect((await consolePanel()).pending.map((entry) => entry.approvalId)).toContain(request.id)
    controller.abort('the assistant gave up')
    await expect(result).rejects.toThrow()
    await until('the withdrawal', async () => ((await requestFor('open_workspace', f))?.status === 'withdrawn' ? true : undefined))
    const panel = await consolePanel()
    expect([...panel.pending, ...panel.recent].map((entry) => entry.approvalId)).not.toContain(request.id)
    const approving = await cli(r.home, 'approvals', 'approve', request.id)
    expect(approving.code).not.toBe(0)
    expect(approving.stderr).toMatch(/withdrawn/)
    envelope(await r.session.call('workspace', { action: 'open', filePath: join(f, 'inside.md') }), 'INVALID_PATH')
    // The assistant may ask again: a new request, pending, answered at once without a progress token.
    const again = ok(await r.session.call('workspace', { action: 'open_workspace', folderPath: f }))
    expect(again.needsApproval).toBe(true)
    expect(again.approvalId).not.toBe(request.id)
  })

  it('ISSUE27.3 save_as with a progress token waits for the person; a denial answers APPROVAL_REQUIRED at once, asks nothing anew, writes nothing', async () => {
    const tabId = await open(r.session, join(w, 'a.md'))
    const target = join(w, 'copy.md')
    const { notes, result } = callWithProgress(r.session, 'workspace', { action: 'save_as', tabId, filePath: target })
    const request = await until('the request', () => requestFor('save_as', target))
    await until('a progress notification', () => (notes.length >= 1 ? true : undefined))
    expect(notes[0]!.message).toContain(`quire approvals approve ${request.id}`)
    await decide(r.home, 'deny', request.id)
    const answer = await result
    expect(answer.isError).toBe(true)
    expect(structured(answer)).toMatchObject({ error: 'APPROVAL_REQUIRED', approvalId: request.id, filePath: target })
    expect((await approvals(r.home)).filter((entry) => entry.kind === 'save_as' && entry.subject === target)).toHaveLength(1)
    expect(await bytes(target)).toBeNull()
  })

  it('ISSUE27.3 save_as with a progress token saves once the person approves', async () => {
    const tabId = await open(r.session, join(w, 'a.md'))
    const target = join(w, 'approved-copy.md')
    const { notes, result } = callWithProgress(r.session, 'workspace', { action: 'save_as', tabId, filePath: target })
    const request = await until('the request', () => requestFor('save_as', target))
    await until('a progress notification', () => (notes.length >= 1 ? true : undefined))
    await decide(r.home, 'approve', request.id)
    const answer = await result
    expect(answer.isError, JSON.stringify(answer.content)).toBe(false)
    expect(structured(answer).journaled).toBeTypeOf('string')
    expect(await bytes(target)).toBe('# A\n')
  })

  it('ISSUE27.3 without a progress token nothing changes: open_workspace answers needsApproval at once and save_as APPROVAL_REQUIRED', async () => {
    const f = await folder('progress-none')
    made.push(f)
    expect(ok(await r.session.call('workspace', { action: 'open_workspace', folderPath: f })).needsApproval).toBe(true)
    const tabId = await open(r.session, join(w, 'a.md'))
    envelope(await r.session.call('workspace', { action: 'save_as', tabId, filePath: join(w, 'unasked.md') }), 'APPROVAL_REQUIRED')
  })
})
