/**
 * Random `browser` and `browser_read` calls (issue 13) from a real MCP client against the loopback fixture site:
 * random actions with random targets (refs that exist, refs of other generations, made-up ones, roles and names
 * from the pages and not), random URLs (fixture pages with queries, fragments and userinfo, other schemes, closed
 * ports, garbage), tab ids that exist (the assistant's and, in some runs, one of the person's) and that do not,
 * arguments of the wrong action. The person denies every approval the calls ask for, at once. Invariants:
 *
 * - nothing is INTERNAL: every refusal is a token or an argument error;
 * - no act-class call (act, style, execute_js) succeeds, and no page records an act's effect (the fixture pages'
 *   `#log`, written only by their click, key, wheel, input and submit handlers, stays empty);
 * - no URL in any answer — a `url` field anywhere, a message, the screenshot's line — has a query or a fragment.
 *
 * One Quire core in this process behind an in-memory MCP transport (the same server code as stdio and HTTP), one
 * Chromium, one site for the file. Seeded through specs/support/fuzz.ts; run counts are bounded for two cores.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { USER } from '../../core/events/actor.js'
import type { Quire } from '../../adapters/host/quire.js'
import { serveFixtureSite, type FixtureSite } from '../browser-engine/support/fixtureSite.js'
import { fuzzParameters } from '../support/fuzz.js'
import { launchInProcess, type Session, type ToolResult } from '../support/mcpHarness.js'

const PRINCIPAL = 'fuzzer'
const PAGES = ['/index.html', '/form.html', '/act-click.html', '/act-type.html', '/console.html', '/article.html', '/popup.html', '/shadow.html', '/later.html']
const ROLES = ['button', 'textbox', 'link', 'heading', 'checkbox', 'combobox', 'searchbox', 'navigation', 'nope']
const NAMES = ['Save', 'Delete', 'Covered', 'Agree', 'Password', 'Full name', 'Country', 'Open window', 'Onward', 'Send', 'Forms', '', 'Ünïcödé ✓']

let session: Session & { quire: Quire }
let site: FixtureSite
let stopDenying = false
let denier: Promise<void> = Promise.resolve()

beforeAll(async () => {
  site = await serveFixtureSite()
  session = await launchInProcess({ connection: 'fuzz-conn', principal: PRINCIPAL })
  // The person says no to everything, as soon as it is asked.
  denier = (async () => {
    while (!stopDenying) {
      for (const approval of session.quire.services.approvals.list()) {
        if (approval.status === 'pending') await session.quire.services.approvals.decide(approval.approvalId, 'denied', USER).catch(() => undefined)
      }
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  })()
})
afterAll(async () => {
  stopDenying = true
  await denier
  await session?.close()
  await site?.close()
})

/** A tab id: mostly one of the fuzzer's open tabs (picked when the call is made), else one that may not exist. */
const tabId: fc.Arbitrary<string | { pick: number }> = fc.oneof(
  { weight: 3, arbitrary: fc.nat(7).map((pick) => ({ pick })) },
  { weight: 1, arbitrary: fc.constantFrom('tab-1', 'tab-40', 'tab-') },
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 12 }).filter((id) => id.trim() !== '') },
)
const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined })
const ref = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 4 })).map(([n, g]) => `e${n}g${g}`),
  fc.string({ minLength: 1, maxLength: 10 }).filter((id) => id.trim() !== ''),
)
const url = fc.oneof(
  fc
    .tuple(fc.constantFrom(...PAGES), fc.boolean(), fc.boolean(), fc.boolean(), fc.boolean())
    .map(([page, query, fragment, userinfo, other]) => {
      const base = other ? site.otherOrigin : site.origin
      const withUser = userinfo ? base.replace('http://', 'http://someone:pw@') : base
      return `${withUser}${page}${query ? '?token=s3cret&x=1' : ''}${fragment ? '#frag' : ''}`
    }),
  fc.constantFrom('file:///etc/passwd', 'javascript:alert(1)', 'not a url', 'http://127.0.0.1:1/x?q=1#h', 'data:text/html,<h1>x</h1>', 'about:blank?x=1', 'chrome://settings'),
)
/** Mostly none (the page loads), sometimes short enough that the load times out. */
const timeoutMs = fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 400 }) })
const role = fc.constantFrom(...ROLES)
const name = fc.constantFrom(...NAMES)

/** The arguments with a picked tab resolved to a tab open now (or left out when there is none). */
async function resolved(args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const picked = args.tabId
  if (typeof picked !== 'object' || picked === null) return args
  const open = (await session.quire.services.browser.listTabs()).filter((tab) => tab.automationMode === 'human' || tab.principal === PRINCIPAL)
  const { tabId: _picked, ...rest } = args
  return open.length === 0 ? rest : { ...rest, tabId: open[(picked as { pick: number }).pick % open.length]!.tabId }
}

const cmd = (tool: string, args: Record<string, unknown>): [string, Record<string, unknown>] => [tool, args]

/** One call: a tool, its arguments (sometimes including arguments of another action). */
const command: fc.Arbitrary<[string, Record<string, unknown>]> = fc.oneof(
  fc.record({ url, timeoutMs }).map((args) => cmd('browser', { action: 'open', ...args })),
  fc.record({ tabId: maybe(tabId), url, timeoutMs }).map((args) => cmd('browser', { action: 'navigate', ...args })),
  fc.record({ tabId }).map((args) => cmd('browser', { action: 'close', ...args })),
  // Well-formed acts (they reach the person, who says no) and acts of any shape (most are argument errors).
  fc.record({ tabId: maybe(tabId), role, name }).map((args) => cmd('browser', { action: 'act', operation: 'click', ...args })),
  fc.record({ tabId: maybe(tabId), role, name, text: fc.string({ maxLength: 20 }) }).map((args) => cmd('browser', { action: 'act', operation: 'type', ...args })),
  fc.record({ tabId: maybe(tabId), dy: fc.integer({ min: -2_000, max: 2_000 }) }).map((args) => cmd('browser', { action: 'act', operation: 'scroll', ...args })),
  fc.record({ tabId: maybe(tabId), key: fc.constantFrom('Enter', 'Tab', 'a'), ref: maybe(ref) }).map((args) => cmd('browser', { action: 'act', operation: 'key', ...args })),
  fc.record({ tabId: maybe(tabId), ref }).map((args) => cmd('browser', { action: 'act', operation: 'click', ...args })),
  fc
    .record({
      tabId: maybe(tabId),
      operation: fc.constantFrom('click', 'type', 'scroll', 'key'),
      ref: maybe(ref),
      role: maybe(role),
      name: maybe(name),
      text: maybe(fc.string({ maxLength: 20 })),
      dy: maybe(fc.integer({ min: -2_000, max: 2_000 })),
      key: maybe(fc.constantFrom('Enter', 'Tab', 'Escape', 'a', 'F5', 'Bogus')),
      modifiers: maybe(fc.record({ ctrl: maybe(fc.boolean()), shift: maybe(fc.boolean()) })),
    })
    .map((args) => cmd('browser', { action: 'act', ...args })),
  fc
    .record({ tabId: maybe(tabId), selector: fc.constantFrom('h1', 'button', '#log'), set: fc.constantFrom({ color: 'red' }, { display: 'none' }) })
    .map((args) => cmd('browser', { action: 'style', ...args })),
  fc
    .record({
      tabId: maybe(tabId),
      ref: maybe(ref),
      selector: maybe(fc.constantFrom('h1', 'button', '#log', '((', '*')),
      set: maybe(fc.constantFrom({ color: 'red' }, { display: 'none' })),
      addClasses: maybe(fc.constant(['x'])),
      injectCss: maybe(fc.constant('body { background: red }')),
    })
    .map((args) => cmd('browser', { action: 'style', ...args })),
  fc
    .record({ tabId: maybe(tabId), script: fc.constantFrom("document.getElementById('log').textContent = 'js'", 'return 1', 'throw new Error(1)') })
    .map((args) => cmd('browser', { action: 'execute_js', ...args })),
  fc.record({ tabId: maybe(tabId) }).map((args) => cmd('browser', { action: 'console_clear', ...args })),
  fc
    .record({ tabId: maybe(tabId), action: fc.constantFrom('read', 'screenshot', 'extract', 'console') })
    .map((args) => cmd('browser_read', args)),
  fc
    .record({ tabId: maybe(tabId), selector: maybe(fc.constantFrom('h1', 'a', 'button', '#log', '((', '')), fields: maybe(fc.record({ attributes: maybe(fc.boolean()), box: maybe(fc.boolean()) })) })
    .map((args) => cmd('browser_read', { action: 'query', ...args })),
  fc
    .record({ tabId: maybe(tabId), navigationId: maybe(fc.constantFrom('nav-1', 'nav-2', 'nav-99')), timeoutMs })
    .map((args) => cmd('browser_read', { action: 'wait', ...args })),
  fc
    .record({
      tabId: maybe(tabId),
      ref: maybe(ref),
      role: maybe(role),
      name: maybe(name),
      text: maybe(fc.constantFrom('Forms', 'Clicks', 'nowhere')),
      urlContains: maybe(fc.constantFrom('/form', 'act', '?token', '#frag', 'localhost')),
      timeoutMs: maybe(fc.integer({ min: 1, max: 200 })),
    })
    .map((args) => cmd('browser_read', { action: 'wait_for', ...args })),
)

const ACT_CLASS = new Set(['act', 'style', 'execute_js'])

/** Every URL an answer states as one: `url` fields at any depth, messages, and the text lines of the content. */
function statedUrls(result: ToolResult): string[] {
  const found: string[] = []
  const walk = (value: unknown, key?: string): void => {
    if (typeof value === 'string') {
      if (key === 'url' || key === 'message') found.push(...(key === 'url' ? [value] : urlsIn(value)))
    } else if (Array.isArray(value)) value.forEach((inner) => walk(inner))
    else if (value !== null && typeof value === 'object') for (const [name, inner] of Object.entries(value)) walk(inner, name)
  }
  walk(result.structured)
  for (const item of result.raw.content) if (item.type === 'text' && (result.isError || item.text.startsWith('Screenshot of '))) found.push(...urlsIn(item.text))
  return found
}

function urlsIn(text: string): string[] {
  return text.match(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()[\]{}]+/gi) ?? []
}

/** The `#log` of every fuzzer tab and person's tab that has one: what the fixture pages' event handlers wrote. */
async function pageLogs(): Promise<string[]> {
  const engine = session.quire.services.browser
  const logs: string[] = []
  for (const tab of await engine.listTabs()) {
    const look = () => engine.query(PRINCIPAL, tab.tabId, '#log')
    // The oracle looks at the person's tabs directly, as the engine lets only an attachment do.
    const found = await (tab.automationMode === 'human' ? engine.attached(PRINCIPAL, tab.tabId, look) : tab.principal === PRINCIPAL ? look() : Promise.resolve(undefined)).catch(() => undefined)
    if (found && found.count > 0) logs.push(found.elements[0]!.text)
  }
  return logs
}

describe('random browser calls', () => {
  it('never answer INTERNAL, never act without a grant, never state a URL with a query or fragment', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PAGES), fc.option(fc.constantFrom(...PAGES), { nil: undefined }), fc.array(command, { minLength: 1, maxLength: 8 }), async (first, persons, commands) => {
        try {
          // Each run starts with a tab of its own on a fixture page, so most calls have something to work on, and
          // sometimes a tab of the person's, whose attachment the person then refuses.
          if (persons !== undefined) await session.quire.services.browser.openHumanTab(site.url(persons))
          expect((await session.call('browser', { action: 'open', url: site.url(first) })).isError).toBe(false)
          for (const [tool, generated] of commands) {
            const args = await resolved(generated)
            const result = await session.call(tool, args)
            const label = `${tool} ${JSON.stringify(args)} → ${result.text.slice(0, 300)}`
            expect(result.text.startsWith('INTERNAL'), label).toBe(false)
            expect((result.structured as { error?: string } | undefined)?.error, label).not.toBe('INTERNAL')
            if (tool === 'browser' && ACT_CLASS.has(String(args.action))) {
              expect(result.isError, label).toBe(true)
              const logs = await pageLogs()
              expect(logs.filter((log) => log !== ''), label).toEqual([])
            }
            for (const stated of statedUrls(result)) {
              if (!URL.canParse(stated)) continue
              const parsed = new URL(stated)
              expect(parsed.search + parsed.hash, `${label}: ${stated}`).toBe('')
              expect(parsed.username + parsed.password, `${label}: ${stated}`).toBe('')
            }
          }
        } finally {
          const engine = session.quire.services.browser
          for (const tab of await engine.listTabs()) {
            await (tab.automationMode === 'human' ? engine.closeHumanTab(tab.tabId) : engine.close(PRINCIPAL, tab.tabId)).catch(() => undefined)
          }
        }
      }),
      fuzzParameters({ numRuns: 25 }),
    )
  }, 240_000)
})
