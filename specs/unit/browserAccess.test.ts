import { describe, expect, it } from 'vitest'
import { USER, type Actor } from '../../core/events/actor.js'
import type { Engine } from '../../core/engine.js'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { displacement, pressedKey, subjectOf, typedText, type BrowserAccessRequest } from '../../core/browser/requests.js'
import { summarize } from '../../projections/audit/auditEvent.js'
import { useTempHomes } from '../support/tempHome.js'

/**
 * The browser's side of the approvals (issue 13 item 5), through a real engine on a real log: which calls go ahead,
 * which wait for the person and which are refused, and what the `browser` stream keeps of each action.
 */

const newHome = useTempHomes()
const ORIGIN = 'http://shop.test:8080'
const asker = (connection = 'c1'): { connection: string; principal: string; actor: Actor } => ({
  connection, principal: 'claude', actor: { kind: 'mcp', principal: 'claude', connection },
})
const click = (name = 'Buy', origin = ORIGIN): BrowserAccessRequest => ({ kind: 'act', operation: 'click', origin, tabId: 'tab-1', target: { role: 'button', name } })
const NO_WAIT = { waitMs: 0 }

async function withEngine(run: (engine: Engine) => Promise<void>): Promise<void> {
  const engine = await openEmbeddedEngine(await newHome())
  try {
    await run(engine)
  } finally {
    await engine.close()
  }
}

describe('BR.GEN.7 / APPR.3 act-class operations need a grant', () => {
  it('an ungranted click asks the person and answers NOT_GRANTED naming the pending approval; the retry after "Allow once" goes ahead and uses it up', () =>
    withEngine(async (engine) => {
      const access = engine.commands.browserAccess
      const first = await access.authorize(click(), asker(), NO_WAIT)
      expect(first).toMatchObject({ granted: false, token: 'NOT_GRANTED', status: 'pending' })
      const approvalId = (first as { approvalId: string }).approvalId
      expect(engine.commands.approvals.find(approvalId)).toMatchObject({ kind: 'browser_act', subject: 'click button "Buy" on http://shop.test:8080', origin: ORIGIN, scopes: ['once', 'site'] })
      // Asking again before the person decides raises nothing new.
      expect(await access.authorize(click(), asker(), NO_WAIT)).toMatchObject({ granted: false, approvalId })
      await engine.commands.approvals.decide(approvalId, 'approved', USER)
      expect(await access.authorize(click(), asker(), NO_WAIT)).toEqual({ granted: true, approvalId, scope: 'once' })
      expect(engine.commands.approvals.find(approvalId)!.status).toBe('consumed')
      // Used up: the next click asks again, with a new request.
      const again = await access.authorize(click(), asker(), NO_WAIT)
      expect(again).toMatchObject({ granted: false, token: 'NOT_GRANTED' })
      expect((again as { approvalId: string }).approvalId).not.toBe(approvalId)
    }))

  it('a call waits for the person: approved while it waits, it goes ahead; denied, it is refused and says a new request asks again', () =>
    withEngine(async (engine) => {
      const access = engine.commands.browserAccess
      const waiting = access.authorize(click(), asker(), { waitMs: 5_000 })
      await expect.poll(() => engine.commands.approvals.list().length).toBe(1)
      await engine.commands.approvals.decide(engine.commands.approvals.list()[0]!.approvalId, 'approved', USER)
      expect(await waiting).toMatchObject({ granted: true, scope: 'once' })

      const refused = access.authorize(click('Sell'), asker(), { waitMs: 5_000 })
      await expect.poll(() => engine.commands.approvals.list().filter((a) => a.status === 'pending').length).toBe(1)
      await engine.commands.approvals.decide(engine.commands.approvals.list().find((a) => a.status === 'pending')!.approvalId, 'denied', USER)
      const answer = await refused
      expect(answer).toMatchObject({ granted: false, token: 'NOT_GRANTED', status: 'denied' })
      expect((answer as { message: string }).message).toMatch(/denied/)
    }))

  it('two calls racing for one "Allow once" approval: exactly one goes ahead', () =>
    withEngine(async (engine) => {
      const access = engine.commands.browserAccess
      const { approvalId } = (await access.authorize(click(), asker(), NO_WAIT)) as { approvalId: string }
      await engine.commands.approvals.decide(approvalId, 'approved', USER)
      const answers = await Promise.all([access.authorize(click(), asker(), NO_WAIT), access.authorize(click(), asker(), NO_WAIT)])
      expect(answers.filter((answer) => answer.granted)).toHaveLength(1)
    }))
})

describe('BR.ACT.19–20 an approval binds the element, and the exact text, key or displacement', () => {
  it('the subject names role + name, and for type/key/scroll the exact content; a different text asks again', () =>
    withEngine(async (engine) => {
      const access = engine.commands.browserAccess
      const type = (text: string): BrowserAccessRequest => ({ kind: 'act', operation: 'type', origin: ORIGIN, tabId: 'tab-1', target: { role: 'textbox', name: 'Search' }, binding: typedText(text) })
      expect(subjectOf(type('tides'))).toBe('type textbox "Search" with text "tides" on http://shop.test:8080')
      expect(subjectOf({ kind: 'act', operation: 'key', origin: ORIGIN, tabId: 't', binding: pressedKey('Enter', { shift: true, ctrl: true }) })).toBe('key the page with key "ctrl+shift+Enter" on http://shop.test:8080')
      expect(subjectOf({ kind: 'act', operation: 'scroll', origin: ORIGIN, tabId: 't', binding: displacement(400) })).toBe('scroll the page with dy 400 on http://shop.test:8080')
      const { approvalId } = (await access.authorize(type('tides'), asker(), NO_WAIT)) as { approvalId: string }
      await engine.commands.approvals.decide(approvalId, 'approved', USER)
      expect(await access.authorize(type('rm -rf'), asker(), NO_WAIT)).toMatchObject({ granted: false })
      expect(await access.authorize(type('tides'), asker(), NO_WAIT)).toMatchObject({ granted: true, approvalId })
    }))
})

describe('standing grants: "Allow on this site" (BR.GEN.7) and BR.ACT.3 refs only under a grant', () => {
  it('a site grant covers every act-class operation on that origin for that connection, refs included; not another origin or connection', () =>
    withEngine(async (engine) => {
      const access = engine.commands.browserAccess
      const ref: BrowserAccessRequest = { kind: 'act', operation: 'click', origin: ORIGIN, tabId: 'tab-1', target: { ref: 'e5g1' } }
      const beforeGrant = await access.authorize(ref, asker(), NO_WAIT)
      expect(beforeGrant).toMatchObject({ granted: false, token: 'NOT_GRANTED' })
      expect((beforeGrant as { message: string }).message).toMatch(/role and name/)
      expect(engine.commands.approvals.list()).toHaveLength(0)

      const { approvalId } = (await access.authorize(click(), asker(), NO_WAIT)) as { approvalId: string }
      await engine.commands.approvals.decide(approvalId, 'approved', USER, 'site')
      for (const request of [click(), click('Other'), ref, { kind: 'act', operation: 'style', origin: ORIGIN, tabId: 'tab-2', target: { selector: 'h1' }, binding: 'set color: red' } as const]) {
        expect(await access.authorize(request, asker(), NO_WAIT)).toEqual({ granted: true, approvalId, scope: 'site' })
      }
      expect(engine.commands.approvals.find(approvalId)!.status).toBe('approved')
      expect(await access.authorize(click('Buy', 'http://elsewhere.test'), asker(), NO_WAIT)).toMatchObject({ granted: false })
      expect(await access.authorize(click(), asker('c2'), NO_WAIT)).toMatchObject({ granted: false })
      // Denying a standing grant withdraws it.
      await engine.commands.approvals.decide(approvalId, 'denied', USER)
      expect(await access.authorize(ref, asker(), NO_WAIT)).toMatchObject({ granted: false })
    }))

  it('BR.EXECUTE_JS.4 / APPR.4 execute_js is approved call by call: no site scope, and the prompt shows the script', () =>
    withEngine(async (engine) => {
      const access = engine.commands.browserAccess
      const run: BrowserAccessRequest = { kind: 'execute_js', origin: ORIGIN, tabId: 'tab-1', script: 'return document.title' }
      const { approvalId } = (await access.authorize(run, asker(), NO_WAIT)) as { approvalId: string }
      const approval = engine.commands.approvals.find(approvalId)!
      expect(approval.subject).toContain('return document.title')
      expect(approval.scopes).toEqual(['once'])
      await expect(engine.commands.approvals.decide(approvalId, 'approved', USER, 'site')).rejects.toThrow(/"once"/)
      await engine.commands.approvals.decide(approvalId, 'approved', USER)
      expect(await access.authorize(run, asker(), NO_WAIT)).toMatchObject({ granted: true })
      expect(await access.authorize(run, asker(), NO_WAIT)).toMatchObject({ granted: false })
    }))
})

describe('APPR.9 / BR.GEN.10 attachments to the person\'s tabs', () => {
  const attach = (generation: number, reads: 'once' | 'many' = 'once'): BrowserAccessRequest => ({ kind: 'attach', origin: ORIGIN, tabId: 'tab-7', generation, reads })

  it('"Allow once" covers one read and is used up; BRR.WAIT_FOR.8 a many-read call on it is ATTACHMENT_ONCE_INSUFFICIENT', () =>
    withEngine(async (engine) => {
      const access = engine.commands.browserAccess
      const { approvalId } = (await access.authorize(attach(1), asker(), NO_WAIT)) as { approvalId: string }
      await engine.commands.approvals.decide(approvalId, 'approved', USER)
      const insufficient = await access.authorize(attach(1, 'many'), asker(), NO_WAIT)
      expect(insufficient).toMatchObject({ granted: false, token: 'ATTACHMENT_ONCE_INSUFFICIENT' })
      // The request to allow it until navigation is raised with the refusal, for the person to decide.
      const untilNavigation = (insufficient as { approvalId: string }).approvalId
      expect(engine.commands.approvals.find(untilNavigation)).toMatchObject({ status: 'pending', scopes: ['once', 'navigation'] })
      expect(await access.authorize(attach(1), asker(), NO_WAIT)).toMatchObject({ granted: true, scope: 'once' })
      expect(await access.authorize(attach(1), asker(), NO_WAIT)).toMatchObject({ granted: false, token: 'NOT_GRANTED' })
    }))

  it('"Allow until navigation" covers every read of that page, and ends when the tab navigates', () =>
    withEngine(async (engine) => {
      const access = engine.commands.browserAccess
      const { approvalId } = (await access.authorize(attach(1, 'many'), asker(), NO_WAIT)) as { approvalId: string }
      await engine.commands.approvals.decide(approvalId, 'approved', USER, 'navigation')
      expect(await access.authorize(attach(1, 'many'), asker(), NO_WAIT)).toMatchObject({ granted: true, scope: 'navigation' })
      expect(await access.authorize(attach(1), asker(), NO_WAIT)).toMatchObject({ granted: true, scope: 'navigation' })
      expect(await access.authorize(attach(2), asker(), NO_WAIT)).toMatchObject({ granted: false })
    }))
})

describe('issue 13 item 8: every browser action is an event in the browser stream', () => {
  it('records actor, tab, operation, redacted URL, target, outcome and grant; text typed into a password field only as its length', () =>
    withEngine(async (engine) => {
      const access = engine.commands.browserAccess
      const actor = asker().actor
      await access.record({ tabId: 'tab-1', operation: 'act', url: 'https://u:p@shop.test/cart?session=s3cr3t#x', target: { role: 'textbox', name: 'Password' }, detail: { act: 'type', text: 'hunter2' }, intoPassword: true, outcome: 'ok', approvalId: 'ap-1', actor })
      await access.record({ tabId: 'tab-1', operation: 'act', url: 'https://shop.test/cart', target: { role: 'textbox', name: 'Note' }, detail: { act: 'type', text: 'hello' }, outcome: 'ok', approvalId: 'ap-1', actor })
      await access.record({ tabId: null, operation: 'open', url: 'https://shop.test/?q=1', outcome: 'TAB_LIMIT', approvalId: null, actor })
      const events = []
      for await (const event of engine.store.readStream('browser')) events.push(event)
      expect(events.map((event) => event.data)).toEqual([
        { tabId: 'tab-1', operation: 'act', url: 'https://shop.test/cart', target: { role: 'textbox', name: 'Password' }, detail: { act: 'type', textLength: 7 }, outcome: 'ok', approvalId: 'ap-1' },
        { tabId: 'tab-1', operation: 'act', url: 'https://shop.test/cart', target: { role: 'textbox', name: 'Note' }, detail: { act: 'type', text: 'hello', textLength: 5 }, outcome: 'ok', approvalId: 'ap-1' },
        { tabId: null, operation: 'open', url: 'https://shop.test/', outcome: 'TAB_LIMIT', approvalId: null },
      ])
      expect(events.every((event) => event.actor.kind === 'mcp')).toBe(true)
      expect(JSON.stringify(events)).not.toContain('hunter2')
      // `quire log --stream browser` reads as a story of what the assistant did.
      expect(events.map((event) => summarize(event))).toEqual([
        'tab-1 typed 7 characters into textbox "Password" (a password field: the text is not kept) at https://shop.test/cart (approval ap-1)',
        'tab-1 typed "hello" into textbox "Note" at https://shop.test/cart (approval ap-1)',
        'no tab opened a tab at https://shop.test/ — refused: TAB_LIMIT',
      ])
    }))
})

describe('BRR.WAIT_FOR.8 after "Allow once", a many-read call can still be allowed until navigation', () => {
  it('the once approval is spent on the refusal, the retry raises its own request, and "until navigation" then covers both kinds of read', () =>
    withEngine(async (engine) => {
      const access = engine.commands.browserAccess
      const attach = (reads: 'once' | 'many'): BrowserAccessRequest => ({ kind: 'attach', origin: ORIGIN, tabId: 'tab-7', generation: 3, reads })
      const first = (await access.authorize(attach('many'), asker(), NO_WAIT)) as { approvalId: string }
      await engine.commands.approvals.decide(first.approvalId, 'approved', USER)
      expect(await access.authorize(attach('many'), asker(), NO_WAIT)).toMatchObject({ granted: false, token: 'ATTACHMENT_ONCE_INSUFFICIENT' })
      const again = (await access.authorize(attach('many'), asker(), NO_WAIT)) as { approvalId: string; token: string }
      expect(again.token).toBe('NOT_GRANTED')
      expect(again.approvalId).not.toBe(first.approvalId)
      expect(engine.commands.approvals.find(again.approvalId)!.subject).toMatch(/until it navigates/)
      await engine.commands.approvals.decide(again.approvalId, 'approved', USER, 'navigation')
      expect(await access.authorize(attach('many'), asker(), NO_WAIT)).toMatchObject({ granted: true, scope: 'navigation' })
      expect(await access.authorize(attach('once'), asker(), NO_WAIT)).toMatchObject({ granted: true, scope: 'navigation' })
    }))
})

describe('BR.GEN.9 / APPR.8 the Shared posture asks for each new origin', () => {
  it('a page of the tab\'s own origin goes ahead with no approval; another origin asks, and a site grant covers it afterwards', () =>
    withEngine(async (engine) => {
      const access = engine.commands.browserAccess
      const load = (origin: string, currentOrigin?: string): BrowserAccessRequest => ({ kind: 'destination', origin, tabId: 'tab-2', ...(currentOrigin ? { currentOrigin } : {}) })
      expect(await access.authorize(load(ORIGIN, ORIGIN), asker(), NO_WAIT)).toEqual({ granted: true, approvalId: null, scope: null })
      expect(engine.commands.approvals.list()).toHaveLength(0)
      const asked = (await access.authorize(load('http://other.test', ORIGIN), asker(), NO_WAIT)) as { approvalId: string }
      expect(engine.commands.approvals.find(asked.approvalId)).toMatchObject({ kind: 'browser_destination', subject: 'load http://other.test in your browser profile (tab tab-2)' })
      await engine.commands.approvals.decide(asked.approvalId, 'approved', USER, 'site')
      expect(await access.authorize({ kind: 'destination', origin: 'http://other.test', tabId: 'tab-3' }, asker(), NO_WAIT)).toMatchObject({ granted: true, scope: 'site' })
    }))
})
