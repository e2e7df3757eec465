/**
 * An assistant's tab goes only where the person let it (issue 25 items 3, 4, 5, 7, 8), against real Chromium: the
 * daemon runs in this process with its HTTP side (so the console can be signed in inside the person's browser
 * profile), two agents connect over Streamable HTTP with their own tokens, and the person decides approvals through
 * the same core commands `quire approvals` calls. The fixture site serves hostile pages that try to take a tab
 * elsewhere (a 302 or 307, a meta refresh, a script's `location`, `window.open`, a form POST, an iframe) and keeps
 * every request it receives: "no request left the browser" is read from the server's side.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { rm } from 'node:fs/promises'
import type { ApprovalView } from '../../core/approvals/commands.js'
import type { ApprovalScope } from '../../core/approvals/events.js'
import { USER } from '../../core/events/actor.js'
import { openQuire, type Quire } from '../../adapters/host/quire.js'
import { startHttpServer, type HttpServer } from '../../adapters/http/daemon.js'
import { serveFixtureSite, type FixtureSite } from '../browser-engine/support/fixtureSite.js'
import { connectHttp, tempDir, type Session, type ToolResult } from '../support/mcpHarness.js'
import { withTestStore } from '../support/testStore.js'

let home: string
let quire: Quire
let server: HttpServer
let site: FixtureSite
let claude: Session
let codex: Session
const services = () => quire.services

const SID = 'sidT5c8Hk2hold'
const TOKEN = 'tokM3x9Qa7hold'
const PREF = 'prefW2j6Ld4hold'
const SECRET = 'oauthF8r1Vn6hold'

beforeAll(async () => {
  home = await tempDir('quire-hold-')
  quire = await openQuire(home, withTestStore(home, {}))
  server = await startHttpServer(quire.services, { allowedHosts: ['quire.test'] })
  site = await serveFixtureSite()
  claude = await connectHttp(server.port, await services().agents.add('claude', USER))
  codex = await connectHttp(server.port, await services().agents.add('codex', USER))
})
afterAll(async () => {
  await claude?.close()
  await codex?.close()
  await server?.close()
  await quire?.close()
  await site?.close()
  if (home) await rm(home, { recursive: true, force: true })
})
afterEach(async () => {
  for (const tab of await services().browser.listTabs()) {
    if (tab.automationMode === 'human') await services().browser.closeHumanTab(tab.tabId)
    else await services().browser.close(tab.principal!, tab.tabId).catch(() => undefined)
  }
  await services().settings.set('browserPosture', 'sandbox', USER)
  // A request a test left undecided would otherwise still wait for the person in the next one.
  for (const approval of services().approvals.list()) if (approval.status === 'pending') await services().approvals.decide(approval.approvalId, 'denied', USER)
})

type Decision = { readonly decision: 'approved' | 'denied'; readonly scope?: ApprovalScope } | 'leave'
const approve = (scope?: ApprovalScope): Decision => ({ decision: 'approved', ...(scope !== undefined ? { scope } : {}) })

/**
 * Makes the call and, as the person would while it waits, decides each request it raises (`decide` says how; "leave"
 * leaves it undecided). Answers the call's result and every request it raised, in order.
 */
async function answering(call: Promise<ToolResult>, decide: (approval: ApprovalView) => Decision = () => 'leave'): Promise<{ result: ToolResult; asked: ApprovalView[] }> {
  const earlier = new Set(services().approvals.list().map((approval) => approval.approvalId))
  const asked: ApprovalView[] = []
  let answered = false
  const answer = call.finally(() => (answered = true))
  while (!answered) {
    for (const approval of services().approvals.list()) {
      if (earlier.has(approval.approvalId) || approval.status !== 'pending') continue
      earlier.add(approval.approvalId)
      asked.push(approval)
      const decision = decide(approval)
      if (decision !== 'leave') await services().approvals.decide(approval.approvalId, decision.decision, USER, decision.scope)
    }
    await pause(20)
  }
  return { result: await answer, asked }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function success(result: ToolResult): Record<string, unknown> {
  expect(result.isError, result.text).toBe(false)
  return result.structured as Record<string, unknown>
}

function refusal(result: ToolResult, token: string): Record<string, unknown> {
  expect(result.isError, result.text).toBe(true)
  expect(result.text.startsWith(`${token}: `), result.text).toBe(true)
  return (result.structured as { data: Record<string, unknown> }).data
}

/** Where the fixture's requests stand now: `since(mark, host)` lists those that came in after, for that Host. */
const mark = (): number => site.requests.length
const since = (from: number, origin: string) => site.requests.slice(from).filter((request) => `http://${request.host}` === origin)

/** The person signs in on `origin` in their own browser profile (a tab of theirs, then closed). */
async function personSignsIn(origin: string): Promise<void> {
  const tab = await services().browser.openHumanTab(`${origin}/session/login?sid=${SID}&tok=${TOKEN}&pref=${PREF}`)
  await services().browser.closeHumanTab(tab.tabId)
}

async function shared(): Promise<void> {
  await services().settings.set('browserPosture', 'shared', USER)
}

/** An AI tab's URL as the engine knows it, polled until it is no longer `from` (a page that moves on its own). */
async function movedOn(tabId: string, from: string): Promise<string> {
  for (let polls = 0; polls < 100; polls++) {
    const url = (await services().browser.listTabs()).find((tab) => tab.tabId === tabId)?.url ?? ''
    if (url !== from) return url
    await pause(30)
  }
  return from
}

async function heading(session: Session, tabId: string): Promise<string> {
  const queried = success(await session.call('browser_read', { action: 'query', tabId, selector: 'h1' })) as { elements: { text: string }[] }
  return queried.elements[0]?.text ?? ''
}

/** The Shared-posture tab of `session` on `path` of the fixture's own origin, that origin approved for the site. */
async function sharedTabOn(session: Session, path: string): Promise<string> {
  const { result } = await answering(session.call('browser', { action: 'open', url: site.url(path) }), () => approve('site'))
  return (success(result) as { tabId: string }).tabId
}

describe('issue 25 item 3 (BR.GEN.9 / APPR.8): in the Shared posture no hop of a navigation reaches an origin the person has not approved', () => {
  it('a server redirect (302) stops before its request leaves the browser, with the approval request for that origin; approved, the retry follows it', async () => {
    await personSignsIn(site.otherOrigin)
    await shared()
    const target = `${site.otherOrigin}/session/whoami`
    const hostile = site.url(`/hostile/redirect?status=302&to=${encodeURIComponent(target)}`)
    const from = mark()
    const { result, asked } = await answering(claude.call('browser', { action: 'open', url: hostile }), (approval) =>
      approval.subject.startsWith(`load ${site.origin} `) ? approve('site') : 'leave')
    const data = refusal(result, 'NOT_GRANTED')
    const { tabId } = data.retry as { tabId: string }
    expect(data.retry).toEqual({ action: 'navigate', tabId })
    expect(asked.map((approval) => [approval.kind, approval.subject])).toEqual([
      ['browser_destination', `load ${site.origin} in your browser profile (tab ${tabId})`],
      ['browser_destination', `load ${site.otherOrigin} in your browser profile (tab ${tabId})`],
    ])
    expect(data.approvalId).toBe(asked[1]!.approvalId)
    expect(result.text).toContain(site.otherOrigin)
    expect(since(from, site.otherOrigin)).toEqual([])
    expect((await services().browser.listTabs()).find((tab) => tab.tabId === tabId)?.url).not.toContain('localhost')

    // The person approves that origin: the same call follows the redirect and lands there, signed in.
    await services().approvals.decide(data.approvalId as string, 'approved', USER)
    const retried = success(await claude.call('browser', { action: 'navigate', tabId, url: hostile }))
    expect(retried).toMatchObject({ tabId, url: target })
    expect(await heading(claude, tabId)).toBe('signed in')
  })

  it('a form POST, its 307 and a POST straight to another origin, a meta refresh, a script\'s location and an iframe send nothing to it', async () => {
    await personSignsIn(site.otherOrigin)
    await shared()
    const target = `${site.otherOrigin}/session/whoami`
    const through307 = `${site.origin}/hostile/redirect?status=307&to=${encodeURIComponent(target)}`
    const tabId = await sharedTabOn(claude, `/hostile/form?to=${encodeURIComponent(through307)}`)
    const from = mark()
    const send = async () => {
      const clicked = await answering(claude.call('browser', { action: 'act', tabId, operation: 'click', role: 'button', name: 'Send' }), () => approve('site'))
      success(clicked.result)
    }
    await send()
    await movedOn(tabId, site.url('/hostile/form'))
    expect(since(from, site.origin).map(({ method, path }) => [method, path])).toContainEqual(['POST', '/hostile/redirect'])

    success(await claude.call('browser', { action: 'navigate', tabId, url: site.url(`/hostile/form?to=${encodeURIComponent(target)}`) }))
    await send()
    await movedOn(tabId, site.url('/hostile/form'))

    for (const kind of ['meta', 'script']) {
      // The page moves on before or after its load: the navigate may answer the load or the interruption.
      await claude.call('browser', { action: 'navigate', tabId, url: site.url(`/hostile/${kind}?to=${encodeURIComponent(target)}`) })
      expect(await movedOn(tabId, site.url(`/hostile/${kind}`))).not.toContain(site.otherOrigin)
    }
    success(await claude.call('browser', { action: 'navigate', tabId, url: site.url(`/hostile/frame?to=${encodeURIComponent(target)}`) }))
    await pause(500)
    expect(since(from, site.otherOrigin)).toEqual([])
    expect((await services().browser.listTabs()).find((tab) => tab.tabId === tabId)?.url).not.toContain(site.otherOrigin)
  })

  it('window.open, at load or from a click, never loads: the act reports the window it tried to open', async () => {
    await shared()
    const target = `${site.otherOrigin}/session/whoami`
    const tabId = await sharedTabOn(claude, `/hostile/open?to=${encodeURIComponent(target)}`)
    const from = mark()
    const clicked = await answering(claude.call('browser', { action: 'act', tabId, operation: 'click', role: 'button', name: 'Open' }), () => approve())
    expect(success(clicked.result)).toMatchObject({ popup: { url: target } })
    await pause(1_000)
    expect(since(from, site.otherOrigin)).toEqual([])
    expect((await services().browser.listTabs()).map((tab) => tab.tabId)).toEqual([tabId])
  })
})

describe('issue 25 item 4: a named profile is held to the origins the person approved for it, and is the agent\'s own', () => {
  /** `open {url, profile}` by `session`, the person approving the profile request. */
  const openIn = async (session: Session, profile: string, url: string): Promise<string> => {
    const { result, asked } = await answering(session.call('browser', { action: 'open', url, profile }), () => approve())
    expect(asked.map((approval) => approval.kind)).toEqual(['browser_profile'])
    return (success(result) as { tabId: string }).tabId
  }

  it('navigating a profile tab to another origin, asked or by a redirect, asks the person for that origin in that profile first, and sends nothing before', async () => {
    await openIn(claude, 'work', `${site.otherOrigin}/session/login?sid=${SID}&tok=${TOKEN}&pref=${PREF}`)
    const tabId = await openIn(claude, 'work', site.url('/index.html'))
    const from = mark()
    const target = `${site.otherOrigin}/session/whoami`
    const asked = await answering(claude.call('browser', { action: 'navigate', tabId, url: target }))
    const data = refusal(asked.result, 'NOT_GRANTED')
    expect(asked.asked.map((approval) => [approval.kind, approval.subject])).toEqual([
      ['browser_profile', `load ${site.otherOrigin} in tab ${tabId} of the browser profile "work", with its saved logins`],
    ])
    expect(data.approvalId).toBe(asked.asked[0]!.approvalId)

    // A redirect there meets the same request, still waiting for the person.
    const redirected = await claude.call('browser', { action: 'navigate', tabId, url: site.url(`/hostile/redirect?to=${encodeURIComponent(target)}`) })
    expect(refusal(redirected, 'NOT_GRANTED').approvalId).toBe(data.approvalId)
    expect(since(from, site.otherOrigin)).toEqual([])
  })

  it('another agent\'s profile of the same name is its own, signed out, until the person shares the first one with it (an event in the log)', async () => {
    await openIn(claude, 'team', `${site.otherOrigin}/session/login?sid=${SID}&tok=${TOKEN}&pref=${PREF}`)
    const whoami = `${site.otherOrigin}/session/whoami`
    expect(await heading(claude, await openIn(claude, 'team', whoami))).toBe('signed in')
    const codexTab = await openIn(codex, 'team', whoami)
    expect(await heading(codex, codexTab)).toBe('signed out')
    await services().browser.close('codex', codexTab)

    // The person shares claude's "team" with codex (what `quire browser share team --owner claude --with codex` sends).
    const share = await fetch(`${server.url}/admin/browser/profiles/share`, {
      method: 'POST', headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ profile: 'team', owner: 'claude', with: 'codex' }),
    })
    expect(share.status, await share.clone().text()).toBe(200)
    const sharedTab = await openIn(codex, 'team', whoami)
    expect(await heading(codex, sharedTab)).toBe('signed in')
    const shares = []
    for await (const event of services().engine.store.readStream('browser')) if (event.type === 'browser.profile.shared') shares.push(event)
    expect(shares.map((event) => [event.actor.kind, event.data])).toEqual([['user', { profile: 'team', owner: 'claude', with: 'codex' }]])
  })
})

describe('issue 25 item 5: no assistant tab reaches the daemon itself, whatever the posture and whatever the person approves', () => {
  it('every address and Host alias of the daemon is refused before anything loads or is asked', async () => {
    const port = server.port
    const before = services().approvals.list().length
    for (const url of [
      `http://127.0.0.1:${port}/`, `http://localhost:${port}/console/api/state`, `http://LOCALHOST:${port}/`, `http://[::1]:${port}/`,
      `http://127.1:${port}/console/api/state`, `http://0x7f.0.0.1:${port}/`, `http://quire.test:${port}/`, `http://app.localhost:${port}/`,
    ]) {
      const data = refusal(await claude.call('browser', { action: 'open', url }), 'BLOCKED_DESTINATION')
      expect(data, url).toMatchObject({ reason: 'quire' })
    }
    const daemon = `http://localhost:${port}/console/api/state`
    refusal(await claude.call('browser', { action: 'open', url: daemon, profile: 'work' }), 'BLOCKED_DESTINATION')
    expect(services().approvals.list().length).toBe(before)
    // Nor is the person asked about it in the Shared posture.
    await shared()
    const tabId = await sharedTabOn(claude, '/index.html')
    const asking = services().approvals.list().length
    refusal(await claude.call('browser', { action: 'navigate', tabId, url: daemon }), 'BLOCKED_DESTINATION')
    expect(services().approvals.list().length).toBe(asking)
  })

  it('with the console signed in in the person\'s profile (Shared posture), a redirect, a script or a frame into the daemon never loads it, though the person approves every request', async () => {
    const console = await services().browser.openHumanTab(server.consoleLink)
    await services().browser.closeHumanTab(console.tabId)
    await shared()
    const state = `${server.url}/console/api/state`
    const { result } = await answering(claude.call('browser', { action: 'open', url: site.url(`/hostile/redirect?to=${encodeURIComponent(state)}`) }), () => approve('site'))
    const data = refusal(result, 'BLOCKED_DESTINATION')
    expect(data).toMatchObject({ reason: 'quire' })
    const tabId = (await services().browser.listTabs()).find((tab) => tab.principal === 'claude')!.tabId
    for (const kind of ['script', 'frame']) {
      await answering(claude.call('browser', { action: 'navigate', tabId, url: site.url(`/hostile/${kind}?to=${encodeURIComponent(state)}`) }), () => approve('site'))
      await pause(500)
      const text = JSON.stringify((await claude.call('browser_read', { action: 'read', tabId })).raw)
      expect(text).not.toContain('"rail"')
      expect((await services().browser.listTabs()).find((tab) => tab.tabId === tabId)?.url).not.toContain(String(server.port))
    }
  })
})

describe('issue 25 item 7: a saved session of a profile tab keeps the profile\'s rules, and handles are per agent', () => {
  it('the approvals name the profile, the tab it is loaded into runs no script, and another agent cannot load it', async () => {
    const { result: opened } = await answering(claude.call('browser', { action: 'open', url: site.url(`/session/login?sid=${SID}&tok=${TOKEN}&pref=${PREF}`), profile: 'vault' }), () => approve())
    const profileTab = (success(opened) as { tabId: string }).tabId
    const saved = await answering(claude.call('browser', { action: 'session_save', tabId: profileTab, handle: 'vault.login' }), () => approve())
    success(saved.result)
    expect(saved.asked.map((approval) => approval.subject)).toEqual([
      `save the session (cookies and localStorage) of ${site.origin} from the browser profile "vault", with its logins, as "vault.login" (tab ${profileTab})`,
    ])

    const plain = (success(await claude.call('browser', { action: 'open', url: site.url('/session/whoami') })) as { tabId: string }).tabId
    const loaded = await answering(claude.call('browser', { action: 'session_load', tabId: plain, handle: 'vault.login' }), () => approve())
    success(loaded.result)
    expect(loaded.asked.map((approval) => approval.subject)).toEqual([
      `load the saved session "vault.login" (the logins of the browser profile "vault") into ${site.origin} (tab ${plain})`,
    ])
    const before = services().approvals.list().length
    refusal(await claude.call('browser', { action: 'execute_js', tabId: plain, script: 'return document.cookie' }), 'PROFILE_TAB')
    expect(services().approvals.list().length).toBe(before)

    const theirs = (success(await codex.call('browser', { action: 'open', url: site.url('/session/whoami') })) as { tabId: string }).tabId
    refusal(await codex.call('browser', { action: 'session_load', tabId: theirs, handle: 'vault.login' }), 'SESSION_NOT_FOUND')
    expect(services().approvals.list().length).toBe(before)
  })
})

describe('issue 25 item 8: a page without a title is titled by its redacted URL', () => {
  it('reached by a redirect whose target carries a code and a fragment, open and session.get_state show no query and no fragment', async () => {
    const untitled = site.url(`/untitled?oauth_code=${SECRET}#frag`)
    const opened = await claude.call('browser', { action: 'open', url: site.url(`/hostile/redirect?to=${encodeURIComponent(untitled)}`) })
    expect(success(opened)).toMatchObject({ url: site.url('/untitled'), title: site.url('/untitled') })
    const state = await claude.call('session', { action: 'get_state' })
    const tabs = (state.structured as { windows: { tabs: Record<string, unknown>[] }[] }).windows.flatMap((window) => window.tabs)
    expect(tabs).toContainEqual(expect.objectContaining({ kind: 'browser', url: site.url('/untitled'), title: site.url('/untitled') }))
    for (const answer of [opened, state]) {
      expect(JSON.stringify(answer.raw)).not.toContain(SECRET)
      expect(JSON.stringify(answer.raw)).not.toContain('frag')
    }
  })
})
