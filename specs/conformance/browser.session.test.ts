/**
 * Saved browser sessions as an MCP client meets them (TOOLS.md §8.11, APPR.4): `browser.session_save` and
 * `browser.session_load` against real Chromium on the fixture site's sign-in (`/session/login` sets an HttpOnly
 * session cookie, a path-scoped cookie, a page cookie and a localStorage token; `/session/whoami` says whether this
 * browser is signed in, with a digest of its token). Each connection has a Sandbox cookie store of its own, so a
 * second connection is a signed-out browser to load a session into; the connections are the person's own (no agent
 * token), whose saved sessions are the person's (PERSON_OWNER). The person decides through the real CLI.
 *
 * The last test greps every answer of the file, the whole log and every file of the data directory for the session's
 * values, and finds none.
 */
import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SavedSessions } from '../../adapters/browser/savedSessions.js'
import { PERSON_OWNER } from '../../core/browser/savedState.js'
import type { FixtureSite } from '../browser-engine/support/fixtureSite.js'
import { approvals, cli, decide, TRANSPORTS, type ApprovalLine, type Rig, type Session, type ToolResult, type Transport } from '../support/conformance.js'
import { useBrowserRig } from '../support/browserRig.js'

type Args = Record<string, unknown>

const SID = 'sidQ7w2Rk9fixture'
const TOKEN = 'tokV4n8Zp3fixture'
const PREF = 'prefH6m1Xc5fixture'
const OTHER = 'otherJ2b7Ly4fixture'
const VALUES = [SID, TOKEN, PREF, OTHER]
const tokenDigest = createHash('sha256').update(TOKEN).digest('hex').slice(0, 16)

function expectToken(result: ToolResult, token: string): Record<string, unknown> {
  expect(result.isError, result.text).toBe(true)
  expect(result.text.startsWith(`${token}: `), result.text).toBe(true)
  return (result.structured as { data: Record<string, unknown> }).data
}

function expectPlain(result: ToolResult, pattern: RegExp): void {
  expect(result.isError, result.text).toBe(true)
  expect(result.structured).toBeUndefined()
  expect(result.text).toMatch(pattern)
}

function success(result: ToolResult): Record<string, unknown> {
  expect(result.isError, result.text).toBe(false)
  return result.structured as Record<string, unknown>
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Every file under `dir`, recursively. */
async function filesUnder(dir: string): Promise<string[]> {
  const found: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) found.push(...(await filesUnder(path)))
    else if (entry.isFile()) found.push(path)
  }
  return found
}

describe.each<Transport>(TRANSPORTS)('browser saved sessions over %s', (transport) => {
  let r: Rig
  let site: FixtureSite
  /** Every answer of this file, for the last test's grep. */
  const answers: string[] = []
  const call = async (tool: string, args: Args, session: Session = r.session): Promise<ToolResult> => {
    const result = await session.call(tool, args)
    answers.push(JSON.stringify(result.raw))
    return result
  }
  const open = async (url: string, session: Session = r.session): Promise<string> =>
    (success(await call('browser', { action: 'open', url }, session)) as { tabId: string }).tabId
  const heading = async (tabId: string, session: Session = r.session): Promise<string> => {
    const queried = success(await call('browser_read', { action: 'query', tabId, selector: 'h1' }, session)) as { elements: { text: string }[] }
    return queried.elements[0]!.text
  }
  const tokenShown = async (tabId: string, session: Session = r.session): Promise<string> => {
    success(await call('browser_read', { action: 'wait_for', tabId, text: 'token: ', timeoutMs: 5_000 }, session))
    for (let attempt = 0; attempt < 100; attempt++) {
      const queried = success(await call('browser_read', { action: 'query', tabId, selector: '#token' }, session)) as { elements: { text: string }[] }
      const text = queried.elements[0]!.text
      if (text !== 'token: reading') return text
      await pause(20)
    }
    throw new Error('the page never showed its token')
  }
  const known = async () => new Set((await approvals(r.home)).map((entry) => entry.id))
  /**
   * Makes the call and, as the person would while it waits, decides the new `browser_session` request it raises.
   * Answers the call's result and the request the person saw.
   */
  const asked = async (args: Args, decision: 'approve' | 'deny', session: Session = r.session): Promise<{ result: ToolResult; approval: ApprovalLine }> => {
    const earlier = await known()
    let answered = false
    const answer = call('browser', args, session).finally(() => (answered = true))
    for (;;) {
      const approval = (await approvals(r.home)).find((entry) => entry.kind === 'browser_session' && entry.status === 'pending' && !earlier.has(entry.id))
      if (approval) {
        await decide(r.home, decision, approval.id)
        return { result: await answer, approval }
      }
      if (answered) throw new Error(`the call asked nothing: ${(await answer).text}`)
      await pause(30)
    }
  }
  /** Signs in on the fixture site in a tab of `session` and saves that as `handle`, the person approving. */
  const signInAndSave = async (handle: string, session: Session = r.session): Promise<{ tabId: string; saved: Record<string, unknown> }> => {
    const tabId = await open(site.url(`/session/login?sid=${SID}&tok=${TOKEN}&pref=${PREF}`), session)
    const { result } = await asked({ action: 'session_save', tabId, handle }, 'approve', session)
    return { tabId, saved: success(result) }
  }
  const store = () => new SavedSessions({ dir: join(r.home, 'browser-sessions'), keyring: null })

  useBrowserRig(transport, (made) => {
    r = made.rig
    site = made.site
  })

  it('BR.SESSION_SAVE.1 a handle is 1–128 of [A-Za-z0-9._-], for save and load alike; refused as a plain string before anything is asked', async () => {
    const tabId = await open(site.url('/index.html'))
    const before = (await approvals(r.home)).length
    for (const action of ['session_save', 'session_load']) {
      expectPlain(await call('browser', { action, tabId }), /handle/)
      for (const handle of ['', 'a b', 'a/b', '..', 'x'.repeat(129), 'naïve']) expectPlain(await call('browser', { action, tabId, handle }), /handle/)
    }
    expect((await approvals(r.home)).length).toBe(before)
  })

  it('BR.SESSION_SAVE.2 / BR.SESSION_SAVE.3 / BR.SESSION_SAVE.4 / BR.SESSION_SAVE.5 save asks the person for this one save, answers counts only, and stores exactly the origin\'s cookies (all paths, HttpOnly too) and localStorage, encrypted', async () => {
    // A cookie of another origin in the same cookie store: not part of this origin's session.
    await open(`${site.otherOrigin}/cookie/set?v=${OTHER}`)
    const tabId = await open(site.url(`/session/login?sid=${SID}&tok=${TOKEN}&pref=${PREF}`))
    const { result, approval } = await asked({ action: 'session_save', tabId, handle: 'fixture.login' }, 'approve')
    expect(success(result)).toEqual({ saved: true, handle: 'fixture.login', origin: site.origin, cookies: 3, localStorage: 1 })
    expect(approval).toMatchObject({ kind: 'browser_session', subject: `save the session (cookies and localStorage) of ${site.origin} as "fixture.login" (tab ${tabId})` })
    expect((await approvals(r.home)).find((entry) => entry.id === approval.id)!.status).toBe('consumed')

    const kept = await store().load('fixture.login', PERSON_OWNER)
    expect(kept.origin).toBe(site.origin)
    expect(kept.cookies.map(({ name, value, domain, path, httpOnly }) => ({ name, value, domain, path, httpOnly })).sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: 'pref', value: PREF, domain: '127.0.0.1', path: '/', httpOnly: false },
      { name: 'seen', value: '1', domain: '127.0.0.1', path: '/session', httpOnly: false },
      { name: 'sid', value: SID, domain: '127.0.0.1', path: '/', httpOnly: true },
    ])
    expect(kept.localStorage).toEqual([['token', TOKEN]])
    // Encrypted at rest: the store's files hold none of the values.
    for (const file of await filesUnder(join(r.home, 'browser-sessions'))) {
      const bytes = await readFile(file, 'latin1')
      for (const value of VALUES) expect(bytes, file).not.toContain(value)
    }
  })

  it('APPR.4 / BR.SESSION_SAVE.5 never a standing grant: the person cannot allow it "on this site", and every save asks again', async () => {
    const tabId = await open(site.url(`/session/login?sid=${SID}&tok=${TOKEN}&pref=${PREF}`))
    const earlier = await known()
    const answer = call('browser', { action: 'session_save', tabId, handle: 'standing' })
    let pending: ApprovalLine | undefined
    while (!pending) {
      pending = (await approvals(r.home)).find((entry) => entry.kind === 'browser_session' && entry.status === 'pending' && !earlier.has(entry.id))
      await pause(30)
    }
    const standing = await cli(r.home, 'approvals', 'approve', pending.id, '--scope', 'site')
    expect(standing.code).not.toBe(0)
    expect(standing.stderr).toMatch(/can be given "once", not "site"/)
    await decide(r.home, 'approve', pending.id)
    success(await answer)
    const again = await asked({ action: 'session_save', tabId, handle: 'standing' }, 'approve')
    expect(again.approval.id).not.toBe(pending.id)
    success(again.result)
  })

  it('BR.SESSION_SAVE.6 an approval names its handle: the person allowing "alpha" lets no call for "beta" through', async () => {
    const tabId = await open(site.url(`/session/login?sid=${SID}&tok=${TOKEN}&pref=${PREF}`))
    const earlier = await known()
    const alpha = call('browser', { action: 'session_save', tabId, handle: 'alpha' })
    const beta = call('browser', { action: 'session_save', tabId, handle: 'beta' })
    let requests: ApprovalLine[] = []
    while (requests.length < 2) {
      requests = (await approvals(r.home)).filter((entry) => entry.kind === 'browser_session' && entry.status === 'pending' && !earlier.has(entry.id))
      await pause(30)
    }
    const forAlpha = requests.find((entry) => entry.subject.includes('"alpha"'))!
    const forBeta = requests.find((entry) => entry.subject.includes('"beta"'))!
    expect(forAlpha.id).not.toBe(forBeta.id)
    await decide(r.home, 'approve', forAlpha.id)
    expect(success(await alpha)).toMatchObject({ saved: true, handle: 'alpha' })
    await decide(r.home, 'deny', forBeta.id)
    const refused = expectToken(await beta, 'NOT_GRANTED')
    expect(refused).toMatchObject({ approvalId: forBeta.id })
    expect((await store().list()).map((entry) => entry.name)).toContain('alpha')
    expect((await store().list()).map((entry) => entry.name)).not.toContain('beta')
  })

  it('BR.SESSION_LOAD.1 load restores the session into a signed-out browser of the same origin and answers {loaded, handle}', async () => {
    await signInAndSave('restore.me')
    const other = await r.another()
    const tabId = await open(site.url('/session/whoami'), other)
    expect(await heading(tabId, other)).toBe('signed out')
    expect(await tokenShown(tabId, other)).toBe('token: none')
    const { result, approval } = await asked({ action: 'session_load', tabId, handle: 'restore.me' }, 'approve', other)
    expect(success(result)).toEqual({ loaded: true, handle: 'restore.me' })
    expect(approval.subject).toBe(`load the saved session "restore.me" into ${site.origin} (tab ${tabId})`)
    success(await call('browser', { action: 'navigate', tabId, url: site.url('/session/whoami') }, other))
    expect(await heading(tabId, other)).toBe('signed in')
    expect(await tokenShown(tabId, other)).toBe(`token: ${tokenDigest}`)
    await other.close()
  })

  it('BR.SESSION_LOAD.2 load applies only to a page of the origin it was saved from; an unknown handle is SESSION_NOT_FOUND; neither asks the person', async () => {
    await signInAndSave('origin.bound')
    const other = await r.another()
    const before = (await approvals(r.home)).length
    const elsewhere = await open(`${site.otherOrigin}/session/whoami`, other)
    const mismatch = expectToken(await call('browser', { action: 'session_load', tabId: elsewhere, handle: 'origin.bound' }, other), 'ORIGIN_MISMATCH')
    // An error's data passes through the URL redaction of every refusal, which writes an origin as its root URL.
    expect(mismatch).toEqual({ savedOrigin: `${site.origin}/`, tabOrigin: `${site.otherOrigin}/` })
    expectToken(await call('browser', { action: 'session_load', tabId: elsewhere, handle: 'never.saved' }, other), 'SESSION_NOT_FOUND')
    expect((await approvals(r.home)).length).toBe(before)
    success(await call('browser', { action: 'navigate', tabId: elsewhere, url: `${site.otherOrigin}/session/whoami` }, other))
    expect(await heading(elsewhere, other)).toBe('signed out')
    await other.close()
  })

  it('a save or load the person denies changes nothing', async () => {
    const { tabId } = await signInAndSave('kept.as.is')
    const savedAt = (await store().describe('kept.as.is', PERSON_OWNER)).savedAt
    const denied = await asked({ action: 'session_save', tabId, handle: 'kept.as.is' }, 'deny')
    expectToken(denied.result, 'NOT_GRANTED')
    expect((await store().describe('kept.as.is', PERSON_OWNER)).savedAt).toBe(savedAt)
    const other = await r.another()
    const target = await open(site.url('/session/whoami'), other)
    expectToken((await asked({ action: 'session_load', tabId: target, handle: 'kept.as.is' }, 'deny', other)).result, 'NOT_GRANTED')
    success(await call('browser', { action: 'navigate', tabId: target, url: site.url('/session/whoami') }, other))
    expect(await heading(target, other)).toBe('signed out')
    await other.close()
  })

  it('BR.SESSION_LOAD.3 / BR.SESSION_SAVE.3 no value of a session is in any answer, in the log (every event) or in any file of the data directory; the log keeps handle, origin and counts', async () => {
    const { tabId } = await signInAndSave('audited')
    success(await call('browser_read', { action: 'read', tabId }))
    const other = await r.another()
    const target = await open(site.url('/session/whoami'), other)
    success((await asked({ action: 'session_load', tabId: target, handle: 'audited' }, 'approve', other)).result)
    await other.close()

    const log = await cli(r.home, 'log', '--json')
    expect(log.code, log.stderr).toBe(0)
    const events = log.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> })
    const sessionEvents = events.filter((event) => event.type === 'browser.action' && String(event.data.operation).startsWith('session_'))
    expect(sessionEvents).toContainEqual(expect.objectContaining({
      data: expect.objectContaining({ operation: 'session_save', url: site.url('/session/login'), outcome: 'ok', detail: { handle: 'audited', cookies: 3, localStorage: 1 } }),
    }))
    expect(sessionEvents).toContainEqual(expect.objectContaining({
      data: expect.objectContaining({ operation: 'session_load', url: site.url('/session/whoami'), outcome: 'ok', detail: { handle: 'audited', cookies: 3, localStorage: 1 } }),
    }))
    const story = await cli(r.home, 'log', '--stream', 'browser')
    expect(story.stdout).toContain('saved the session "audited" (3 cookies, 1 localStorage items)')

    for (const value of VALUES) {
      expect(log.stdout, `the log holds ${value}`).not.toContain(value)
      expect(story.stdout).not.toContain(value)
      for (const answer of answers) expect(answer, `an answer holds ${value}`).not.toContain(value)
    }
    const files = await filesUnder(r.home)
    expect(files.some((file) => file.endsWith('.session'))).toBe(true)
    for (const file of files) {
      const bytes = await readFile(file, 'latin1')
      for (const value of VALUES) expect(bytes.includes(value), `${file} holds ${value}`).toBe(false)
    }
  })
})
