/**
 * workspace.open_workspace (TOOLS.md §3.3): WS.OPEN_WORKSPACE.1–10 and .16, over stdio and HTTP, with the person's
 * decisions made through the real CLI (`quire approvals approve|deny ID`, which talks to the owning process). Expiry
 * (WS.OPEN_WORKSPACE.8) runs in process with a controllable clock.
 *
 * Not applicable to Quire, so not tested: WS.OPEN_WORKSPACE.11–15. They describe macOS sandbox folder access —
 * "always-readable locations", VMark's folder picker opened at an approved folder, a second folder dialog, a
 * workspace switch in progress. Quire has no sandbox and no folder dialog: the person's approval is the whole gate,
 * so a test of those rules could not fail.
 *
 * Readings of the spec (TOOLS.md §16 and the Chinese original): the first call answers the result
 * `{needsApproval: true}` (a non-error result code, §13.4); a retry while the request still waits for the person is
 * rejected with an APPROVAL_REQUIRED envelope (WS.OPEN_WORKSPACE.16, the error table's "awaiting approval"); the
 * shape of a denial is not stated, so after a denial only "it keeps failing" is required: an error, nothing opened.
 */
import { symlink } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { USER } from '../../core/events/actor.js'
import { launchInProcess } from '../support/mcpHarness.js'
import {
  TRANSPORTS, approvals, cli, decide, envelope, folder, ok, removeAll, rig, windowOf,
  type Rig, type Session, type Transport,
} from '../support/conformance.js'

describe.each<Transport>(TRANSPORTS)('workspace.open_workspace over %s', (transport) => {
  let r: Rig
  const made: string[] = []
  const fresh = async (name: string) => {
    const path = await folder(name, { 'inside.md': `inside ${name}\n` })
    made.push(path)
    return path
  }
  const call = (session: Session, folderPath: string) => session.call('workspace', { action: 'open_workspace', folderPath })
  /** Not opened: main still shows the same workspace, and the folder's files are still out of scope. */
  const expectNotOpened = async (session: Session, folderPath: string, shownBefore: string | null) => {
    expect((await windowOf(session)).activeWorkspaceInstanceId).toBe(shownBefore)
    envelope(await session.call('workspace', { action: 'open', filePath: `${folderPath}/inside.md` }), 'INVALID_PATH')
  }
  const expectOpened = async (session: Session, folderPath: string, shownBefore: string | null) => {
    const shown = (await windowOf(session)).activeWorkspaceInstanceId
    expect(shown).toBeTypeOf('string')
    expect(shown).not.toBe(shownBefore)
    const opened = ok(await session.call('workspace', { action: 'open', filePath: `${folderPath}/inside.md` }))
    expect(opened.workspaceInstanceId).toBe(shown)
  }
  const requestsFor = async (subject: string) => (await approvals(r.home)).filter((entry) => entry.kind === 'open_workspace' && entry.subject === subject)

  beforeAll(async () => {
    // No --workspace: nothing is in scope until a folder is opened.
    r = await rig(transport)
  })
  afterAll(async () => {
    await r?.close()
    await removeAll(...made)
  })

  it('WS.GEN.2 WS.OPEN.3 with no workspace and no open document no path is in scope, so open is refused with INVALID_PATH', async () => {
    const f = await fresh('noscope')
    envelope(await r.session.call('workspace', { action: 'open', filePath: `${f}/inside.md` }), 'INVALID_PATH')
    expect((await windowOf(r.session)).tabs).toEqual([])
  })

  it('WS.OPEN_WORKSPACE.2 a windowLabel is not accepted: the call is refused, no approval is requested, nothing opens', async () => {
    const f = await fresh('label')
    const shown = (await windowOf(r.session)).activeWorkspaceInstanceId
    const result = await r.session.call('workspace', { action: 'open_workspace', folderPath: f, windowLabel: 'main' })
    expect(result.isError).toBe(true)
    expect(await requestsFor(f)).toEqual([])
    await expectNotOpened(r.session, f, shown)
  })

  it('WS.OPEN_WORKSPACE.3 WS.OPEN_WORKSPACE.4 an unapproved call (of a folder outside any scope) answers {needsApproval: true} and raises a request naming the canonical path, symlinks resolved', async () => {
    const f = await fresh('canon')
    await symlink(f, `${f}-link`)
    made.push(`${f}-link`)
    const shown = (await windowOf(r.session)).activeWorkspaceInstanceId
    const result = await call(r.session, `${f}-link`)
    expect(result.isError).toBe(false)
    const answer = ok(result)
    expect(answer.needsApproval).toBe(true)
    const requests = await requestsFor(f)
    expect(requests).toHaveLength(1)
    expect(requests[0]!.status).toBe('pending')
    expect(await requestsFor(`${f}-link`)).toEqual([])
    if (answer.approvalId !== undefined) expect(answer.approvalId).toBe(requests[0]!.id)
    await expectNotOpened(r.session, f, shown)
  })

  it('WS.OPEN_WORKSPACE.16 a retry while the request still waits for the person is rejected with APPROVAL_REQUIRED, raises no second request, opens nothing', async () => {
    const f = await fresh('pending')
    const shown = (await windowOf(r.session)).activeWorkspaceInstanceId
    expect(ok(await call(r.session, f)).needsApproval).toBe(true)
    envelope(await call(r.session, f), 'APPROVAL_REQUIRED')
    envelope(await call(r.session, f), 'APPROVAL_REQUIRED')
    expect(await requestsFor(f)).toHaveLength(1)
    await expectNotOpened(r.session, f, shown)
  })

  it('WS.OPEN_WORKSPACE.1 WS.OPEN_WORKSPACE.5 after the person approves (quire approvals approve), the retry opens the folder as the active workspace of main', async () => {
    const f = await fresh('approve')
    const shown = (await windowOf(r.session)).activeWorkspaceInstanceId
    ok(await call(r.session, f))
    const [request] = await requestsFor(f)
    await decide(r.home, 'approve', request!.id)
    const retry = await call(r.session, f)
    expect(retry.isError, retry.text).toBe(false)
    expect(ok(retry).needsApproval).toBeUndefined()
    await expectOpened(r.session, f, shown)
  })

  it('WS.OPEN_WORKSPACE.6 WS.OPEN_WORKSPACE.7 an approval serves only the connection that asked; another connection gets its own request and cannot use it', async () => {
    const f = await fresh('bound')
    const other = await r.another()
    const shown = (await windowOf(r.session)).activeWorkspaceInstanceId
    expect(ok(await call(r.session, f)).needsApproval).toBe(true)
    const [mine] = await requestsFor(f)
    await decide(r.home, 'approve', mine!.id)

    // The other assistant: its own prompt, not the approved one.
    const theirs = ok(await call(other, f))
    expect(theirs.needsApproval).toBe(true)
    const requests = await requestsFor(f)
    expect(requests).toHaveLength(2)
    const second = requests.find((entry) => entry.id !== mine!.id)!
    expect(second.connection).not.toBe(mine!.connection)
    expect(second.status).toBe('pending')
    // Its retry still waits for its own approval.
    envelope(await call(other, f), 'APPROVAL_REQUIRED')
    await expectNotOpened(other, f, shown)
    expect(requests.find((entry) => entry.id === mine!.id)!.status).toBe('approved')

    // The connection that asked can still use its approval.
    ok(await call(r.session, f))
    await expectOpened(r.session, f, shown)
  })

  it('WS.OPEN_WORKSPACE.9 after the person denies, the request keeps failing until it is approved again', async () => {
    const f = await fresh('deny')
    const shown = (await windowOf(r.session)).activeWorkspaceInstanceId
    ok(await call(r.session, f))
    const [request] = await requestsFor(f)
    await decide(r.home, 'deny', request!.id)
    for (let attempt = 0; attempt < 2; attempt++) {
      const result = await call(r.session, f)
      expect(result.isError, `retry ${attempt} after a denial: ${result.text}`).toBe(true)
      await expectNotOpened(r.session, f, shown)
    }
    // A denial stays decided (issue 12 item 8: the CLI cannot approve it); the retry asked the person again with a
    // new request, and approving that one is "approved again".
    const refused = await cli(r.home, 'approvals', 'approve', request!.id)
    expect(refused.code).not.toBe(0)
    const renewed = (await requestsFor(f)).find((entry) => entry.status === 'pending')
    expect(renewed).toBeDefined()
    await decide(r.home, 'approve', renewed!.id)
    ok(await call(r.session, f))
    await expectOpened(r.session, f, shown)
  })

  it('WS.OPEN_WORKSPACE.10 there is no "remember": an approval opens once, the same call afterwards needs a new approval, and a used approval cannot be approved again', async () => {
    const f = await fresh('once')
    ok(await call(r.session, f))
    const [first] = await requestsFor(f)
    await decide(r.home, 'approve', first!.id)
    ok(await call(r.session, f))
    const again = ok(await call(r.session, f))
    expect(again.needsApproval).toBe(true)
    const requests = await requestsFor(f)
    expect(requests).toHaveLength(2)
    expect(requests.find((entry) => entry.id !== first!.id)!.status).toBe('pending')
    const reuse = await cli(r.home, 'approvals', 'approve', first!.id)
    expect(reuse.code).not.toBe(0)
  })

  it('WS.OPEN_WORKSPACE.7 a reconnecting client (a new connection) needs a new approval', async () => {
    const f = await fresh('reconnect')
    ok(await call(r.session, f))
    const [request] = await requestsFor(f)
    await decide(r.home, 'approve', request!.id)
    const session = await r.restart()
    const shown = (await windowOf(session)).activeWorkspaceInstanceId
    const result = ok(await call(session, f))
    expect(result.needsApproval).toBe(true)
    const requests = await requestsFor(f)
    expect(requests).toHaveLength(2)
    await expectNotOpened(session, f, shown)
  })
})

describe('workspace.open_workspace approval expiry (in process, controllable clock)', () => {
  const FIVE_MINUTES = 5 * 60 * 1000
  let clock = Date.UTC(2030, 0, 1)
  let session: Awaited<ReturnType<typeof launchInProcess>>
  const made: string[] = []

  beforeAll(async () => {
    session = await launchInProcess({ now: () => clock })
  })
  afterAll(async () => {
    await session?.close()
    await removeAll(...made)
  })

  const requestAndApprove = async (name: string) => {
    const f = await folder(name, { 'inside.md': 'x\n' })
    made.push(f)
    const answer = ok(await session.call('workspace', { action: 'open_workspace', folderPath: f }))
    expect(answer.needsApproval).toBe(true)
    const request = session.quire.services.approvals.list().find((entry) => entry.subject === f)!
    await session.quire.services.approvals.decide(request.approvalId, 'approved', USER)
    return f
  }

  it('WS.OPEN_WORKSPACE.8 an approval used within five minutes opens the folder', async () => {
    const f = await requestAndApprove('fresh')
    const shown = (await windowOf(session)).activeWorkspaceInstanceId
    clock += FIVE_MINUTES - 1_000
    const retry = await session.call('workspace', { action: 'open_workspace', folderPath: f })
    expect(retry.isError, retry.text).toBe(false)
    expect(ok(retry).needsApproval).toBeUndefined()
    expect((await windowOf(session)).activeWorkspaceInstanceId).not.toBe(shown)
  })

  it('WS.OPEN_WORKSPACE.8 an approval not used within five minutes expires: the retry opens nothing', async () => {
    const f = await requestAndApprove('stale')
    const shown = (await windowOf(session)).activeWorkspaceInstanceId
    clock += FIVE_MINUTES + 1_000
    const retry = await session.call('workspace', { action: 'open_workspace', folderPath: f })
    const answer = retry.structured as Record<string, unknown> | undefined
    expect(retry.isError || answer?.needsApproval === true, retry.text).toBe(true)
    expect((await windowOf(session)).activeWorkspaceInstanceId).toBe(shown)
    envelope(await session.call('workspace', { action: 'open', filePath: `${f}/inside.md` }), 'INVALID_PATH')
  })
})
