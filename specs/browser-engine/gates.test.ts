import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { detectGate, readGateSignals } from '../../adapters/browser/gateSignals.js'
import { GATE_HINTS, SPARSE_TEXT_LIMIT, TEXT_HEAD_LIMIT, type GateKind } from '../../adapters/browser/gates.js'
import { PageSession } from '../../adapters/browser/pageSession.js'
import { useEngine, refusal } from './support/engineRig.js'

const rig = useEngine()

const GATED: readonly (readonly [string, GateKind])[] = [
  ['/gates/members.html', 'login-required'],
  ['/gates/consent/before-you-continue.html', 'consent'],
  ['/gates/just-a-moment.html', 'challenge'],
  ['/gates/widget.html', 'challenge'],
  ['/gates/too-many.html?status=429', 'rate-limited'],
  ['/gates/too-many.html', 'rate-limited'],
  ['/gates/slow-down.html?status=429', 'rate-limited'],
]

const NOT_GATED: readonly string[] = [
  '/gates/captcha-article.html',
  '/gates/shop.html',
  '/gates/cloudflare-footer.html',
  '/gates/cloudflare-footer.html?status=503',
  '/gates/news-with-sign-in.html',
  '/gates/invisible-widget.html',
  // The rate-limit text alone, without the 429 status that makes it a second signal.
  '/gates/slow-down.html',
  '/index.html',
]

describe('BR.GATE.1, BR.OPEN.9 open reports the gate of the page it landed on', () => {
  test.each(GATED)('%s reads as %s', async (path, kind) => {
    const opened = await rig.engine.open('gatekeeper', rig.site.url(path))
    expect(opened.gate).toEqual({ kind, hint: GATE_HINTS[kind] })
    await rig.engine.close('gatekeeper', opened.tabId)
  })
})

describe('BR.GATE.2, BR.GATE.3 pages that only mention a gate carry none', () => {
  test.each(NOT_GATED)('%s', async (path) => {
    const opened = await rig.engine.open('gatekeeper', rig.site.url(path))
    expect(opened.status).toBe('loaded')
    expect('gate' in opened).toBe(false)
    await rig.engine.close('gatekeeper', opened.tabId)
  })
})

describe('BR.NAVIGATE.4 and BRR.WAIT.6 navigate and wait carry the gate of their load', () => {
  test('navigate reports each landing page\'s own gate, and none once the tab leaves the gate', async () => {
    const { tabId } = await rig.engine.open('gatekeeper', rig.site.url('/index.html'))
    expect((await rig.engine.navigate('gatekeeper', tabId, rig.site.url('/gates/members.html'))).gate?.kind).toBe('login-required')
    expect((await rig.engine.navigate('gatekeeper', tabId, rig.site.url('/gates/consent/before-you-continue.html'))).gate?.kind).toBe('consent')
    const left = await rig.engine.navigate('gatekeeper', tabId, rig.site.url('/gates/shop.html'))
    expect(left.title).toBe('Laptop Pro 14 – $429 | Fixture Shop')
    expect('gate' in left).toBe(false)
    await rig.engine.close('gatekeeper', tabId)
  })

  test('wait returns the very outcome open loaded, gate included', async () => {
    const opened = await rig.engine.open('gatekeeper', rig.site.url('/gates/just-a-moment.html'))
    expect(opened.gate?.kind).toBe('challenge')
    expect(await rig.engine.wait('gatekeeper', opened.tabId)).toEqual(opened)
    expect(await rig.engine.wait('gatekeeper', opened.tabId, { navigationId: opened.navigationId })).toEqual(opened)
    await rig.engine.close('gatekeeper', opened.tabId)
  })

  test('a navigation that timed out gets its gate when its ticket settles, and wait gives it every time', async () => {
    const { tabId } = await rig.engine.open('gatekeeper', rig.site.url('/index.html'))
    const timedOut = await refusal(rig.engine.navigate('gatekeeper', tabId, rig.site.url('/gates/held-challenge.html'), { timeoutMs: 200 }))
    expect(timedOut.code).toBe('TIMEOUT')
    const navigationId = timedOut.data?.navigationId as string
    rig.site.release('gate-held')
    const settled = await rig.engine.wait('gatekeeper', tabId, { navigationId })
    expect(settled).toEqual({
      status: 'loaded', navigationId, tabId, url: rig.site.url('/gates/held-challenge.html'), title: 'Just a moment...',
      generation: 2, gate: { kind: 'challenge', hint: GATE_HINTS.challenge },
    })
    expect(await rig.engine.wait('gatekeeper', tabId, { navigationId })).toEqual(settled)
    await rig.engine.close('gatekeeper', tabId)
  })
})

describe('BR.GATE.4 the gate is advisory: the load and the tab are as they would be without it', () => {
  test('a gated open has the usual fields plus the gate, and its tab reads as any other', async () => {
    const opened = await rig.engine.open('gatekeeper', rig.site.url('/gates/members.html?next=%2Fsecret'))
    const { gate, ...rest } = opened
    expect(gate?.kind).toBe('login-required')
    expect(rest).toEqual({
      status: 'loaded', navigationId: expect.stringMatching(/^nav-\d+$/), tabId: opened.tabId, url: rig.site.url('/gates/members.html'),
      title: 'Sign in – Fixture Members', generation: 1,
    })
    const read = await rig.engine.read('gatekeeper', opened.tabId)
    expect(read.snapshot.some((node) => node.role === 'textbox' && node.name === 'Password')).toBe(true)
    expect((await rig.engine.tabState('gatekeeper', opened.tabId)).generation).toBe(1)
    await rig.engine.close('gatekeeper', opened.tabId)
  })
})

describe('the signal reader in a real page (gateSignals.ts)', () => {
  let browser: Browser
  let page: Page
  let session: PageSession
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: process.env.QUIRE_CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] })
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    session = await PageSession.attach(page)
  })
  afterAll(async () => {
    await session?.detach()
    await browser?.close()
  })

  async function signalsOf(path: string) {
    await page.goto(rig.site.url(path), { waitUntil: 'load' })
    const signals = await readGateSignals(session)
    if (signals === null) throw new Error(`no signals read from ${path}`)
    return signals
  }

  test('a rendered password field counts; a hidden dialog\'s and an off-page honeypot\'s do not', async () => {
    expect((await signalsOf('/gates/members.html')).passwordField).toBe(true)
    expect((await signalsOf('/gates/news-with-sign-in.html')).passwordField).toBe(false)
  })

  test('a widget frame at interactive size counts; an invisible badge, an unrendered frame and a hidden popup do not', async () => {
    expect((await signalsOf('/gates/widget.html')).challengeWidget).toBe(true)
    expect((await signalsOf('/gates/captcha-article.html')).challengeWidget).toBe(true)
    expect((await signalsOf('/gates/invisible-widget.html')).challengeWidget).toBe(false)
    expect((await signalsOf('/gates/members.html')).challengeWidget).toBe(false)
  })

  test('the URL without its query, the title, the visible text (capped) and its length, the HTTP status', async () => {
    const wall = await signalsOf('/gates/too-many.html?status=429&token=secret#x')
    expect(wall).toEqual({
      url: rig.site.url('/gates/too-many.html'), title: '429 Too Many Requests', textHead: 'Too Many Requests Too many requests, try again later.',
      textLength: 'Too Many Requests Too many requests, try again later.'.length, challengeWidget: false, passwordField: false, status: 429,
    })
    const article = await signalsOf('/gates/captcha-article.html')
    expect(article.status).toBe(200)
    expect(article.textLength).toBeGreaterThan(SPARSE_TEXT_LIMIT)
    expect(article.textHead.length).toBe(Math.min(article.textLength, TEXT_HEAD_LIMIT))
    expect(article.textHead.startsWith('How CAPTCHAs work By A. Writer')).toBe(true)
  })

  test('reading changes nothing in the page: the document is the same before and after', async () => {
    await page.goto(rig.site.url('/gates/members.html'), { waitUntil: 'load' })
    const before = await page.content()
    expect(await detectGate(session)).toEqual({ kind: 'login-required', hint: GATE_HINTS['login-required'] })
    expect(await page.content()).toBe(before)
  })

  test('a read that fails gives no signals and no gate, never an error', async () => {
    const closing = await browser.newPage()
    const gone = await PageSession.attach(closing)
    await closing.goto(rig.site.url('/gates/members.html'), { waitUntil: 'load' })
    await closing.close()
    expect(await readGateSignals(gone)).toBeNull()
    expect(await detectGate(gone)).toBeNull()
  })
})
