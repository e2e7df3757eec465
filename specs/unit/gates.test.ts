import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { classifyGate, GATE_HINTS, gateSources, SPARSE_TEXT_LIMIT, type GateKind, type GateSignals } from '../../adapters/browser/gates.js'
import { fuzzParameters } from '../support/fuzz.js'

/** An ordinary short page that is no gate; each test changes what it is about. */
function page(changes: Partial<GateSignals> = {}): GateSignals {
  const textHead = changes.textHead ?? 'Short notes on tides, knots and the weather at sea.'
  return {
    url: 'https://example.test/notes/today', title: 'Fixture Notes', challengeWidget: false, passwordField: false, status: 200,
    ...changes, textHead, textLength: changes.textLength ?? textHead.length,
  }
}

const kindOf = (signals: GateSignals): GateKind | undefined => classifyGate(signals)?.kind

describe('BR.GATE.1 the four kinds of landing page', () => {
  test('a login wall: a sign-in title over a rendered password field', () => {
    expect(kindOf(page({ title: 'Sign in – Google Accounts', textHead: 'Sign in. Use your Google Account. Email or phone. Password. Next', passwordField: true }))).toBe('login-required')
    expect(kindOf(page({ title: 'Login | Acme', passwordField: true }))).toBe('login-required')
    expect(kindOf(page({ title: '登录', passwordField: true }))).toBe('login-required')
  })

  test('a login wall without a password field yet (identifier first) or without a sign-in title', () => {
    expect(kindOf(page({ url: 'https://accounts.example.test/signin', title: 'Sign in to Acme', textHead: 'Email address. Continue' }))).toBe('login-required')
    expect(kindOf(page({ url: 'https://example.test/account/log-in.html', passwordField: true }))).toBe('login-required')
    expect(kindOf(page({ textHead: 'You must be logged in to view this page. Email Password', passwordField: true }))).toBe('login-required')
  })

  test('a consent interstitial: a consent host or path with "Before you continue" or "Accept all"', () => {
    expect(kindOf(page({ url: 'https://consent.google.test/ml', title: 'Before you continue to Google' }))).toBe('consent')
    expect(kindOf(page({ url: 'https://example.test/gates/consent/index.html', textHead: 'We use cookies and data. Reject all Accept all' }))).toBe('consent')
    expect(kindOf(page({ title: 'Before you continue', textHead: 'Before you continue to Fixture. Reject all Accept all' }))).toBe('consent')
  })

  test('a human-verification challenge: a challenge title and a challenge phrase, or a challenge status and phrase', () => {
    expect(kindOf(page({ title: 'Just a moment...', textHead: 'example.test Verify you are human by completing the action below.' }))).toBe('challenge')
    expect(kindOf(page({ title: 'Attention Required! | Cloudflare', textHead: 'Please complete the security check to access example.test' }))).toBe('challenge')
    expect(kindOf(page({ status: 503, textHead: 'Checking your browser before accessing example.test.' }))).toBe('challenge')
  })

  test('a rate limit: a 429 or too-many-requests title, a too-many-requests-try-again text, or a 429 status', () => {
    expect(kindOf(page({ title: '429 Too Many Requests', textHead: 'Too many requests, try again later.' }))).toBe('rate-limited')
    expect(kindOf(page({ title: 'Fixture API', status: 429, textHead: 'Too many requests from your address. Please try again in a few minutes.' }))).toBe('rate-limited')
    expect(kindOf(page({ title: 'Error 429', status: 429, textHead: 'Slow down.' }))).toBe('rate-limited')
  })

  test('the most blocking kind wins: a challenge page that also shows a sign-in form is a challenge', () => {
    expect(kindOf(page({ title: 'Just a moment...', textHead: 'Verify you are human. Sign in to continue.', passwordField: true, url: 'https://example.test/login' }))).toBe('challenge')
  })
})

describe('BR.GATE.2 a rendered widget, or two independent signals on a sparse page', () => {
  test('a challenge widget rendered at interactive size on a sparse page is a challenge by itself', () => {
    expect(classifyGate(page({ challengeWidget: true }))).toEqual({ kind: 'challenge', hint: GATE_HINTS.challenge })
  })

  test('a widget on a long page is part of the page (a comment form, a demo) unless the title says it is a check', () => {
    expect(classifyGate(page({ challengeWidget: true, textLength: 12_000 }))).toBeNull()
    expect(kindOf(page({ challengeWidget: true, textLength: 12_000, title: 'Just a moment...' }))).toBe('challenge')
  })

  test('two signals on a page with more than the sparse limit of text are not a gate', () => {
    const wall = page({ title: 'Sign in – Fixture Members', passwordField: true })
    expect(kindOf(wall)).toBe('login-required')
    expect(kindOf({ ...wall, textLength: SPARSE_TEXT_LIMIT })).toBe('login-required')
    expect(classifyGate({ ...wall, textLength: SPARSE_TEXT_LIMIT + 1 })).toBeNull()
  })

  test('many phrases in one source are one signal: the text alone, however many gate phrases it holds, is not a gate', () => {
    const text = "Verify you are human. I'm not a robot. Press and hold. Sign in to continue. Accept all. Too many requests, try again later."
    expect(gateSources(page({ textHead: text }), 'challenge')).toEqual(['text'])
    expect(classifyGate(page({ textHead: text }))).toBeNull()
  })

  test('an unparseable URL gives no URL signal and breaks nothing else', () => {
    expect(gateSources(page({ url: 'not a url', passwordField: true }), 'login-required')).toEqual(['page'])
    expect(kindOf(page({ url: 'not a url', title: 'Sign in', passwordField: true }))).toBe('login-required')
  })
})

describe('BR.GATE.3 a single weak signal is never a gate', () => {
  test('a shop page with a $429 price', () => {
    const shop = page({ title: 'Laptop Pro 14 – $429 | Fixture Shop', textHead: 'Home Sign in Cart Laptop Pro 14 $429 Was $499. Free delivery. Only 3 left in stock. Add to cart' })
    expect(gateSources(shop, 'rate-limited')).toEqual([])
    expect(classifyGate(shop)).toBeNull()
  })

  test('a "Protected by Cloudflare" footer, even on an error status', () => {
    const footer = page({ textHead: 'Fixture Notes Short notes on tides. Protected by Cloudflare · Performance & security by Cloudflare · Ray ID: 8f00' })
    expect(classifyGate(footer)).toBeNull()
    expect(classifyGate({ ...footer, status: 503 })).toBeNull()
  })

  test('an article about CAPTCHAs, short or long', () => {
    const article = page({
      title: 'How CAPTCHAs work: from "I\'m not a robot" to press and hold | Fixture Journal',
      textHead: 'A page says "Verify you are human", or asks us to tick a box labelled "I\'m not a robot". Some ask the visitor to press and hold a button.',
    })
    expect(classifyGate(article)).toBeNull()
    expect(classifyGate({ ...article, textLength: 6_000 })).toBeNull()
  })

  test('a sign-in title, a password field, a consent banner, a 429 status or a rate-limit docs page, each alone', () => {
    expect(classifyGate(page({ title: 'Sign in' }))).toBeNull()
    expect(classifyGate(page({ title: 'Change your password', passwordField: true }))).toBeNull()
    expect(classifyGate(page({ textHead: 'We use cookies to improve this site. Accept all Reject all' }))).toBeNull()
    expect(classifyGate(page({ status: 429 }))).toBeNull()
    expect(classifyGate(page({ title: 'Rate limits | Fixture API docs', textHead: 'If you send too many requests, wait a minute and retry.' }))).toBeNull()
  })
})

describe('BR.GATE.5 every hint involves the person, never a way around the gate', () => {
  test.each(Object.entries(GATE_HINTS))('%s', (_kind, hint) => {
    expect(hint).toMatch(/\bperson\b/)
    expect(hint).not.toMatch(/bypass|circumvent|evade|solve|work ?around|get (past|around)|spoof|proxy|automat/i)
  })

  test('the sign-in, consent and challenge hints send the person to the console\'s Browser view', () => {
    for (const kind of ['login-required', 'consent', 'challenge'] as const) expect(GATE_HINTS[kind]).toContain("the console's Browser view")
  })
})

// The parts pages are made of, for the properties: words that signal nothing, and what each source can signal.
const neutralWords = fc.array(fc.constantFrom('tide', 'harbour', 'knot', 'chart', 'wind', 'boat', 'the', 'and', 'of', 'at', 'sea', 'rope'), { minLength: 1, maxLength: 12 })
  .map((words) => words.join(' '))
const TITLE_SIGNALS = ['Just a moment...', 'Attention Required! | Cloudflare', 'Sign in – Google Accounts', 'Login | Acme', '登录', 'Before you continue', 'Cookie settings', '429 Too Many Requests', 'Error 429', 'Rate limit exceeded', 'Laptop – $429']
const TEXT_SIGNALS = ['Verify you are human by completing the action below.', "I'm not a robot", 'Press and hold', 'Sign in to continue', 'Please log in', 'Before you continue', 'Accept all', 'Reject all', 'Too many requests, try again later.', 'Protected by Cloudflare', '$429', 'unusual traffic from your computer network']
const URL_SIGNALS = ['https://consent.example.test/', 'https://example.test/login', 'https://example.test/sign-in/', 'https://example.test/consent/x', 'https://consent.example.test/account/signin.html']
const STATUS_SIGNALS = [403, 404, 429, 500, 503]

const someOf = <T>(values: readonly T[]) => fc.subarray([...values], { minLength: 1 })
const interleaved = (phrases: string[]) => fc.array(neutralWords, { minLength: phrases.length + 1, maxLength: phrases.length + 1 })
  .map((fillers) => fillers.flatMap((filler, i) => (i < phrases.length ? [filler, phrases[i]!] : [filler])).join(' '))

/** A sparse page where exactly one source carries gate signals (as many as it likes), all else neutral. */
const oneSourcePage: fc.Arbitrary<GateSignals> = fc.record({ title: neutralWords, text: neutralWords }).chain(({ title, text }) => {
  const base = page({ title, textHead: text })
  return fc.oneof(
    someOf(TITLE_SIGNALS).map((titles) => ({ ...base, title: titles.join(' · ') })),
    someOf(TEXT_SIGNALS).chain(interleaved).map((textHead) => ({ ...base, textHead, textLength: textHead.length })),
    fc.constantFrom(...URL_SIGNALS).map((url) => ({ ...base, url })),
    fc.constant({ ...base, passwordField: true }),
    fc.constantFrom(...STATUS_SIGNALS).map((status) => ({ ...base, status })),
  )
})

/** Any page built from the signal parts, of any length. */
const anyPage: fc.Arbitrary<GateSignals> = fc.record({
  url: fc.oneof(fc.constant('https://example.test/notes'), fc.constantFrom(...URL_SIGNALS)),
  title: fc.oneof(neutralWords, fc.constantFrom(...TITLE_SIGNALS)),
  textHead: fc.oneof(neutralWords, someOf(TEXT_SIGNALS).chain(interleaved)),
  textLength: fc.integer({ min: 0, max: 20_000 }),
  challengeWidget: fc.boolean(),
  passwordField: fc.boolean(),
  status: fc.oneof(fc.constant(null), fc.constant(200), fc.constantFrom(...STATUS_SIGNALS)),
})

describe('the gate rules as properties', () => {
  test('BR.GATE.3 a single weak source, however many signals it carries, never classifies', () => {
    fc.assert(fc.property(oneSourcePage, (signals) => classifyGate(signals) === null), fuzzParameters({ numRuns: 500 }))
  })

  test('BR.GATE.2 a gate is a rendered widget, or two independent sources of its kind on a sparse page', () => {
    fc.assert(fc.property(anyPage, (signals) => {
      const gate = classifyGate(signals)
      if (gate === null || signals.challengeWidget) return
      expect(signals.textLength).toBeLessThanOrEqual(SPARSE_TEXT_LIMIT)
      expect(gateSources(signals, gate.kind).length).toBeGreaterThanOrEqual(2)
    }), fuzzParameters({ numRuns: 500 }))
  })

  test('BR.GATE.5 every gate carries its kind\'s hint', () => {
    fc.assert(fc.property(anyPage, (signals) => {
      const gate = classifyGate(signals)
      return gate === null || (Object.keys(gate).length === 2 && gate.hint === GATE_HINTS[gate.kind])
    }), fuzzParameters({ numRuns: 300 }))
  })
})
