/**
 * Named browser profiles as an MCP client meets them (TOOLS.md §8.5 BR.OPEN.4–6, APPR.5): `browser.open {profile}`
 * against real Chromium on the fixture site's sign-in (`/session/login` leaves an HttpOnly cookie, a page cookie and a
 * localStorage token; `/session/whoami` says whether this browser is signed in, with a digest of its token). A profile
 * is a persistent cookie store of its own, kept under the data directory across daemon restarts; each open is approved
 * by the person through the real CLI.
 */
import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { FixtureSite } from '../browser-engine/support/fixtureSite.js'
import { approvals, cli, decide, TRANSPORTS, type ApprovalLine, type Rig, type Session, type ToolResult, type Transport } from '../support/conformance.js'
import { useBrowserRig } from '../support/browserRig.js'

type Args = Record<string, unknown>

const SID = 'sidP4k9Wq2profile'
const TOKEN = 'tokR8d3Mv6profile'
const PREF = 'prefL5t7Bn1profile'
const VALUES = [SID, TOKEN, PREF]
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

async function filesUnder(dir: string): Promise<string[]> {
  const found: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) found.push(...(await filesUnder(path)))
    else if (entry.isFile()) found.push(path)
  }
  return found
}

describe.each<Transport>(TRANSPORTS)('browser named profiles over %s', (transport) => {
  let r: Rig
  let site: FixtureSite
  const answers: string[] = []
  const call = async (tool: string, args: Args, session: Session = r.session): Promise<ToolResult> => {
    const result = await session.call(tool, args)
    answers.push(JSON.stringify(result.raw))
    return result
  }
  const known = async () => new Set((await approvals(r.home)).map((entry) => entry.id))
  /** `open {url, profile}`, the person deciding the `browser_profile` request it raises while it waits. */
  const openIn = async (profile: string, path: string, decision: 'approve' | 'deny' = 'approve'): Promise<{ result: ToolResult; approval: ApprovalLine }> => {
    const earlier = await known()
    let answered = false
    const answer = call('browser', { action: 'open', url: site.url(path), profile }).finally(() => (answered = true))
    for (;;) {
      const approval = (await approvals(r.home)).find((entry) => entry.kind === 'browser_profile' && entry.status === 'pending' && !earlier.has(entry.id))
      if (approval) {
        await decide(r.home, decision, approval.id)
        return { result: await answer, approval }
      }
      if (answered) throw new Error(`the open asked nothing: ${(await answer).text}`)
      await pause(30)
    }
  }
  const tabOf = (result: ToolResult): string => (success(result) as { tabId: string }).tabId
  const heading = async (tabId: string): Promise<string> =>
    (success(await call('browser_read', { action: 'query', tabId, selector: 'h1' })) as { elements: { text: string }[] }).elements[0]!.text
  const tokenShown = async (tabId: string): Promise<string> => {
    for (let attempt = 0; attempt < 200; attempt++) {
      const text = (success(await call('browser_read', { action: 'query', tabId, selector: '#token' })) as { elements: { text: string }[] }).elements[0]!.text
      if (text !== 'token: reading') return text
      await pause(20)
    }
    throw new Error('the page never showed its token')
  }

  useBrowserRig(transport, (made) => {
    r = made.rig
    site = made.site
  })

  it('BR.OPEN.4 a profile is 1–128 of [A-Za-z0-9._-], refused as a plain string before anything is asked', async () => {
    const before = (await approvals(r.home)).length
    for (const profile of ['', 'a b', 'a/b', '..', '.', 'x'.repeat(129), 'naïve']) {
      expectPlain(await call('browser', { action: 'open', url: site.url('/index.html'), profile }), /profile/)
    }
    expect((await approvals(r.home)).length).toBe(before)
  })

  it('BR.OPEN.4 a profile opens in the Sandbox posture only: the Shared posture refuses it with a clear error and asks nothing', async () => {
    expect((await cli(r.home, 'settings', 'set', 'browserPosture', 'shared')).code).toBe(0)
    try {
      const before = (await approvals(r.home)).length
      const refused = await call('browser', { action: 'open', url: site.url('/index.html'), profile: 'work' })
      expectToken(refused, 'PROFILE_NEEDS_SANDBOX')
      expect(refused.text).toMatch(/only in the Sandbox posture/)
      expect((await approvals(r.home)).length).toBe(before)
    } finally {
      expect((await cli(r.home, 'settings', 'set', 'browserPosture', 'sandbox')).code).toBe(0)
    }
  })

  it('BR.OPEN.5 / APPR.5 every open asks the person afresh, naming profile and origin; a denied open opens nothing', async () => {
    const first = await openIn('fresh', '/index.html')
    expect(first.approval).toMatchObject({ kind: 'browser_profile', subject: `open ${site.origin} in the browser profile "fresh", with its saved logins` })
    const tabId = tabOf(first.result)
    expect(success(first.result)).toEqual({ tabId, navigationId: expect.any(String), url: site.url('/index.html'), title: 'Fixture home', generation: 1 })
    const second = await openIn('fresh', '/index.html')
    expect(second.approval.id).not.toBe(first.approval.id)
    expect((await approvals(r.home)).find((entry) => entry.id === first.approval.id)!.status).toBe('consumed')
    tabOf(second.result)
    const tabsBefore = (await call('session', { action: 'get_state' })).text
    const denied = await openIn('fresh', '/index.html', 'deny')
    expectToken(denied.result, 'NOT_GRANTED')
    const tabsAfter = (await call('session', { action: 'get_state' })).text
    expect((tabsAfter.match(/"kind":"browser"/g) ?? []).length).toBe((tabsBefore.match(/"kind":"browser"/g) ?? []).length)
    // The person cannot make it standing.
    const earlier = await known()
    const pending = call('browser', { action: 'open', url: site.url('/index.html'), profile: 'fresh' })
    let request: ApprovalLine | undefined
    while (!request) {
      request = (await approvals(r.home)).find((entry) => entry.kind === 'browser_profile' && entry.status === 'pending' && !earlier.has(entry.id))
      await pause(30)
    }
    const standing = await cli(r.home, 'approvals', 'approve', request.id, '--scope', 'site')
    expect(standing.code).not.toBe(0)
    expect(standing.stderr).toMatch(/can be given "once", not "site"/)
    await decide(r.home, 'deny', request.id)
    expectToken(await pending, 'NOT_GRANTED')
  })

  it('BR.OPEN.5 a profile keeps its login by name, across tabs and a daemon restart; another profile and the Sandbox store do not share it; several are open at once', async () => {
    const signIn = await openIn('work', `/session/login?sid=${SID}&tok=${TOKEN}&pref=${PREF}`)
    const signedInTab = tabOf(signIn.result)
    const work = tabOf((await openIn('work', '/session/whoami')).result)
    expect(await heading(work)).toBe('signed in')
    expect(await tokenShown(work)).toBe(`token: ${tokenDigest}`)
    const home = tabOf((await openIn('home', '/session/whoami')).result)
    expect(await heading(home)).toBe('signed out')
    const sandbox = tabOf(await call('browser', { action: 'open', url: site.url('/session/whoami') }))
    expect(await heading(sandbox)).toBe('signed out')
    // Three cookie stores at once, each as it was: the profile tabs are still there and still signed in.
    expect(await heading(signedInTab)).toBe('Signed in')
    success(await call('browser', { action: 'navigate', tabId: work, url: site.url('/session/whoami') }))
    expect(await heading(work)).toBe('signed in')

    await r.restart()
    const again = tabOf((await openIn('work', '/session/whoami')).result)
    expect(await heading(again)).toBe('signed in')
    expect(await tokenShown(again)).toBe(`token: ${tokenDigest}`)
  })

  it('BR.OPEN.6 the assistant is never shown the profile\'s credentials: no answer or log line holds them, and a profile tab runs no script', async () => {
    const tabId = tabOf((await openIn('creds', `/session/login?sid=${SID}&tok=${TOKEN}&pref=${PREF}`)).result)
    success(await call('browser_read', { action: 'read', tabId }))
    success(await call('browser_read', { action: 'query', tabId, selector: 'body', fields: { attributes: true } }))
    await call('browser_read', { action: 'extract', tabId })
    const before = (await approvals(r.home)).length
    const script = expectToken(await call('browser', { action: 'execute_js', tabId, script: 'return document.cookie + localStorage.getItem("token")' }), 'PROFILE_TAB')
    expect(script).toEqual({})
    expect((await approvals(r.home)).length).toBe(before)
    success(await call('session', { action: 'get_state' }))

    const log = await cli(r.home, 'log', '--json')
    expect(log.code, log.stderr).toBe(0)
    const opens = log.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> })
      .filter((event) => event.type === 'browser.action' && event.data.operation === 'open' && (event.data.detail as { profile?: string } | undefined)?.profile === 'creds')
    expect(opens).toHaveLength(1)
    expect(opens[0]!.data).toMatchObject({ url: site.url('/session/login'), outcome: 'ok', approvalId: expect.any(String) })
    const story = await cli(r.home, 'log', '--stream', 'browser')
    expect(story.stdout).toContain('opened a tab in the profile "creds"')
    for (const value of VALUES) {
      expect(log.stdout).not.toContain(value)
      expect(story.stdout).not.toContain(value)
      for (const answer of answers) expect(answer, `an answer holds ${value}`).not.toContain(value)
    }
    // No answer names where a profile lives, either.
    for (const answer of answers) expect(answer).not.toContain('browser-profiles')
    // The profiles hold their logins (that is what a profile is); nothing else in the data directory does.
    for (const file of (await filesUnder(r.home)).filter((path) => !path.startsWith(join(r.home, 'browser-profiles')))) {
      const bytes = await readFile(file, 'latin1')
      for (const value of VALUES) expect(bytes.includes(value), `${file} holds ${value}`).toBe(false)
    }
  })
})
