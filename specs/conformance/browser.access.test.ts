/**
 * The browser tools' authorization as an MCP client meets it (TOOLS.md §8.0, §12.4): the person's own tabs need an
 * attachment (BR.GEN.10, APPR.9, BRR.WAIT_FOR.8), the Shared posture asks for each new origin (BR.GEN.9, APPR.8), a
 * site grant lets a ref target through (BR.ACT.3), and every action is one `browser.action` event whose typed
 * password is kept as a length only. The core runs in this process (a real MCP client over an in-memory transport)
 * because the person's tabs are opened from the console, which here is the engine's own call; the person decides
 * approvals through the same core commands `quire approvals` calls.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { ApprovalScope } from '../../core/approvals/events.js'
import { USER } from '../../core/events/actor.js'
import { serveFixtureSite, type FixtureSite } from '../browser-engine/support/fixtureSite.js'
import { launchInProcess, type Session, type ToolResult } from '../support/mcpHarness.js'
import type { Quire } from '../../adapters/host/quire.js'

let session: Session & { quire: Quire }
let site: FixtureSite
const call = (tool: string, args: Record<string, unknown>) => session.call(tool, args)
const services = () => session.quire.services

beforeAll(async () => {
  site = await serveFixtureSite()
  session = await launchInProcess({ connection: 'conn-access', principal: 'claude' })
})
afterAll(async () => {
  await session?.close()
  await site?.close()
})
afterEach(async () => {
  for (const tab of await services().browser.listTabs()) {
    if (tab.automationMode === 'human') await services().browser.closeHumanTab(tab.tabId)
    else await call('browser', { action: 'close', tabId: tab.tabId })
  }
  await services().settings.set('browserPosture', 'sandbox', USER)
  // Requests a test left undecided would otherwise still be waiting for the person in the next one.
  for (const approval of services().approvals.list()) if (approval.status === 'pending') await services().approvals.decide(approval.approvalId, 'denied', USER)
})

function token(result: ToolResult): string {
  expect(result.isError, result.text).toBe(true)
  return (result.structured as { error: string }).error
}

/**
 * Makes the call and, as the person would while it waits, decides the request of `kind` it raises. A call that
 * needs no approval (a standing grant covers it) or is refused at once just answers.
 */
async function asked(tool: string, args: Record<string, unknown>, kind: string, decision: 'approved' | 'denied', scope?: ApprovalScope): Promise<ToolResult> {
  const earlier = new Set(services().approvals.list().map((approval) => approval.approvalId))
  let answered = false
  const answer = call(tool, args).finally(() => (answered = true))
  while (!answered) {
    const raised = services().approvals.list().find((approval) => approval.kind === kind && approval.status === 'pending' && !earlier.has(approval.approvalId))
    if (raised) {
      await services().approvals.decide(raised.approvalId, decision, USER, scope)
      break
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return answer
}

/** The approval a refusal names. */
function approvalOf(result: ToolResult): string {
  return (result.structured as { data: { approvalId: string } }).data.approvalId
}

async function browserEvents(): Promise<Record<string, unknown>[]> {
  const events: Record<string, unknown>[] = []
  for await (const event of services().engine.store.readStream('browser')) events.push(event.data as Record<string, unknown>)
  return events
}

describe('the person\'s tabs', () => {
  it('BR.CLOSE.3 closing a human tab is TAB_NOT_AI_OWNED; BRR.CONSOLE.3 / BRR.WAIT.4 console and wait refuse it without asking', async () => {
    const human = await services().browser.openHumanTab(site.url('/form.html'))
    const before = services().approvals.list().length
    expect(token(await call('browser', { action: 'close', tabId: human.tabId }))).toBe('TAB_NOT_AI_OWNED')
    expect(token(await call('browser_read', { action: 'console', tabId: human.tabId }))).toBe('TAB_NOT_AI_OWNED')
    expect(token(await call('browser_read', { action: 'wait', tabId: human.tabId }))).toBe('TAB_NOT_AI_OWNED')
    expect(services().approvals.list().length).toBe(before)
  })

  it('BR.GEN.10 / APPR.9 a read needs the attachment; "Allow once" covers one read; the session shows the tab\'s origin only until attached', async () => {
    const human = await services().browser.openHumanTab(site.url('/form.html?account=42'))
    const listed = async () =>
      ((await call('session', { action: 'get_state' })).structured as { windows: { tabs: Record<string, unknown>[] }[] }).windows[0]!.tabs.find((tab) => tab.id === human.tabId)
    expect(await listed()).toEqual({ id: human.tabId, kind: 'browser', active: true, url: site.origin, loading: false, generation: 1, automationMode: 'human', attached: false })

    const read = await asked('browser_read', { action: 'read', tabId: human.tabId }, 'browser_attach', 'approved', 'once')
    expect(read.isError, read.text).toBe(false)
    expect(read.structured).toMatchObject({ url: site.url('/form.html') })
    // The once approval is used up: the next read asks again, and the person says no.
    const denied = await asked('browser_read', { action: 'extract', tabId: human.tabId }, 'browser_attach', 'denied')
    expect(token(denied)).toBe('NOT_GRANTED')
    expect(denied.text).toContain(approvalOf(denied))
    expect(denied.text).not.toContain('account')
  })

  it('BRR.WAIT_FOR.8 wait_for on a tab attached "once" is ATTACHMENT_ONCE_INSUFFICIENT; attached until navigation it polls, and the session shows it attached', async () => {
    const human = await services().browser.openHumanTab(site.url('/form.html'))
    const once = await asked('browser_read', { action: 'wait_for', tabId: human.tabId, text: 'Forms' }, 'browser_attach', 'approved', 'once')
    expect(token(once)).toBe('ATTACHMENT_ONCE_INSUFFICIENT')
    // A single read attached "once" goes ahead; a wait_for on that attachment is refused at once, raising the request
    // to allow it until navigation.
    const single = await asked('browser_read', { action: 'read', tabId: human.tabId }, 'browser_attach', 'approved', 'once')
    expect(single.isError, single.text).toBe(false)
    const anotherOnce = await asked('browser_read', { action: 'read', tabId: human.tabId }, 'browser_attach', 'approved', 'once')
    expect(anotherOnce.isError).toBe(false)
    const many = await asked('browser_read', { action: 'wait_for', tabId: human.tabId, text: 'Forms' }, 'browser_attach', 'approved', 'navigation')
    expect(many.structured).toEqual({ matched: true })
    const state = (await call('session', { action: 'get_state' })).structured as { windows: { tabs: Record<string, unknown>[] }[] }
    expect(state.windows[0]!.tabs).toContainEqual(expect.objectContaining({ id: human.tabId, title: 'Forms', url: site.url('/form.html'), attached: true }))
    // Until navigation: a second read needs no new approval.
    expect((await call('browser_read', { action: 'read', tabId: human.tabId })).isError).toBe(false)
  })
})

describe('the Shared posture', () => {
  it('BR.GEN.9 / APPR.8 open and navigate to a new origin wait for the destination approval; the same origin asks nothing', async () => {
    await services().settings.set('browserPosture', 'shared', USER)
    const refused = await asked('browser', { action: 'open', url: site.url('/index.html') }, 'browser_destination', 'denied')
    expect(token(refused)).toBe('NOT_GRANTED')
    // BR.OPEN.8 the tab is kept, blank, and the answer says to retry with navigate on it.
    const { retry } = (refused.structured as { data: { retry: { action: string; tabId: string } } }).data
    expect(retry.action).toBe('navigate')
    const tabId = retry.tabId
    expect((await services().browser.listTabs()).map((tab) => [tab.tabId, tab.url])).toEqual([[tabId, 'about:blank']])
    // After a denial the retry is refused at once with a new request; the person approves it; the retry loads.
    const again = await call('browser', { action: 'navigate', tabId, url: site.url('/index.html') })
    expect(token(again)).toBe('NOT_GRANTED')
    await services().approvals.decide(approvalOf(again), 'approved', USER)
    const opened = await call('browser', { action: 'navigate', tabId, url: site.url('/index.html') })
    expect(opened.isError, opened.text).toBe(false)
    expect((await services().browser.listTabs()).find((tab) => tab.tabId === tabId)?.automationMode).toBe('ai-shared')

    const before = services().approvals.list().length
    expect((await call('browser', { action: 'navigate', tabId, url: site.url('/form.html') })).isError).toBe(false)
    expect(services().approvals.list().length).toBe(before)
    const elsewhere = await asked('browser', { action: 'navigate', tabId, url: `${site.otherOrigin}/form.html` }, 'browser_destination', 'approved')
    expect(elsewhere.structured).toMatchObject({ tabId, url: `${site.otherOrigin}/form.html` })
  })
})

describe('grants and the audit record', () => {
  it('BR.ACT.3 a site grant lets a later act with a ref target through; BR.STYLE.2 style is act-class under it too', async () => {
    const opened = await call('browser', { action: 'open', url: site.url('/act-click.html') })
    const { tabId } = opened.structured as { tabId: string }
    const first = await asked('browser', { action: 'act', tabId, operation: 'click', role: 'button', name: 'Save' }, 'browser_act', 'approved', 'site')
    expect(first.isError, first.text).toBe(false)
    const snapshot = ((await call('browser_read', { action: 'read', tabId })).structured as { snapshot: { name: string; ref: string }[] }).snapshot
    const agree = snapshot.find((node) => node.name === 'Agree')!
    const byRef = await call('browser', { action: 'act', tabId, operation: 'click', ref: agree.ref })
    expect(byRef.isError, byRef.text).toBe(false)
    const styled = await call('browser', { action: 'style', tabId, selector: 'h1', set: { color: 'rgb(255, 0, 0)' } })
    expect(styled.structured).toMatchObject({ changed: 'set', elements: 1 })
    const log = (await call('browser_read', { action: 'query', tabId, selector: '#log' })).structured as { elements: { text: string }[] }
    expect(log.elements[0]!.text).toBe('save agree:true')
  })

  it('every action is one browser.action event, refusals too, with the URL redacted and a typed password kept as its length only', async () => {
    // Another origin than the earlier tests' site grant: this type must be asked for.
    const page = `${site.otherOrigin}/act-type.html`
    const opened = await call('browser', { action: 'open', url: `${page}?session=abc` })
    const { tabId } = opened.structured as { tabId: string }
    const typed = await asked('browser', { action: 'act', tabId, operation: 'type', role: 'textbox', name: 'Password', text: 'hunter2' }, 'browser_act', 'approved')
    expect(typed.isError, typed.text).toBe(false)
    expect(typed.structured).toMatchObject({ ok: true, isPassword: true })
    // The person was shown the length, never the password; the approval (which the log keeps) holds no trace of it.
    const asking = services().approvals.list().filter((approval) => approval.kind === 'browser_act' && approval.subject.includes('Password'))
    expect(asking.at(-1)?.subject).toMatch(/^type textbox "Password" with password text of 7 characters \([0-9a-f]{12}\) on http:\/\/localhost:\d+$/)
    expect(JSON.stringify(services().approvals.list())).not.toContain('hunter2')
    // Other text for the same field asks again (BR.ACT.20).
    const other = await asked('browser', { action: 'act', tabId, operation: 'type', role: 'textbox', name: 'Password', text: 'hunter3' }, 'browser_act', 'denied')
    expect(token(other)).toBe('NOT_GRANTED')
    expect(token(await call('browser_read', { action: 'read', tabId: 'tab-nope' }))).toBe('TAB_NOT_FOUND')
    const events = await browserEvents()
    expect(events.find((event) => event.operation === 'open' && event.tabId === tabId)).toMatchObject({ url: page, outcome: 'ok', approvalId: null })
    const act = events.filter((event) => event.operation === 'act' && event.tabId === tabId)
    expect(act.at(-1)).toMatchObject({ outcome: 'NOT_GRANTED', detail: { act: 'type', textLength: 7 } })
    expect(act.at(-2)).toMatchObject({ outcome: 'ok', target: { role: 'textbox', name: 'Password' }, detail: { act: 'type', textLength: 7 }, approvalId: expect.stringMatching(/^ap-/) })
    expect(JSON.stringify(events)).not.toMatch(/hunter[23]/)
    expect(JSON.stringify(events)).not.toContain('session=abc')
    expect(events.at(-1)).toMatchObject({ operation: 'read', tabId: 'tab-nope', outcome: 'TAB_NOT_FOUND' })
  })
})
