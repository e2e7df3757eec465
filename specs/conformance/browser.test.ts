/**
 * The embedded browser on the MCP surface (TOOLS.md §8, §9, §12.1 ERR.5, §13.3): `browser` and `browser_read` as an
 * MCP client calls them over stdio and Streamable HTTP, against the loopback fixture site. One Quire process (and so
 * one Chromium) and one fixture site per transport. The person's side goes through the real CLI (`quire settings`,
 * `quire approvals`).
 */
import { describe, expect, it } from 'vitest'
import type { FixtureSite } from '../browser-engine/support/fixtureSite.js'
import { approvals, cli, decide, TRANSPORTS, type Rig, type ToolResult, type Transport } from '../support/conformance.js'
import { useBrowserRig } from '../support/browserRig.js'

const BROWSER_ACTIONS = ['act', 'open', 'navigate', 'close', 'style', 'execute_js', 'session_save', 'session_load', 'workflow_run', 'workflow_cancel', 'workflow_record', 'console_clear']
const BROWSER_READ_ACTIONS = ['read', 'screenshot', 'query', 'extract', 'console', 'wait', 'workflow_status', 'wait_for']

/** A browser refusal: `"TOKEN: message"` text, and the token, message and data in structuredContent (BR.GEN.5). */
function expectToken(result: ToolResult, token: string): Record<string, unknown> {
  expect(result.isError, result.text).toBe(true)
  expect(result.text.startsWith(`${token}: `), result.text).toBe(true)
  const structured = result.structured as { error: string; message: string; data: Record<string, unknown> }
  expect(structured).toEqual({ error: token, message: result.text.slice(token.length + 2), data: expect.any(Object) })
  return structured.data
}

/**
 * The person approves the next browser request of `kind` while the call that raised it is still waiting (so the call
 * goes ahead without timing out), through `quire approvals approve`.
 */
async function approveWhenAsked(home: string, kind: string): Promise<void> {
  for (;;) {
    const pending = (await approvals(home)).find((approval) => approval.kind === kind && approval.status === 'pending')
    if (pending) return decide(home, 'approve', pending.id)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** A plain-string argument refusal (ERR.3): no structured content. */
function expectPlain(result: ToolResult, pattern: RegExp): void {
  expect(result.isError).toBe(true)
  expect(result.structured).toBeUndefined()
  expect(result.text).toMatch(pattern)
}

describe.each<Transport>(TRANSPORTS)('browser tools over %s', (transport) => {
  let r: Rig
  let site: FixtureSite
  const call = (tool: string, args: Record<string, unknown>) => r.session.call(tool, args)
  const open = async (path: string): Promise<string> => {
    const opened = await call('browser', { action: 'open', url: site.url(path) })
    expect(opened.isError, opened.text).toBe(false)
    return (opened.structured as { tabId: string }).tabId
  }

  useBrowserRig(transport, (made) => {
    r = made.rig
    site = made.site
  })

  it('GEN.2 the two tools offer exactly the actions built: all twelve of VMark\'s browser actions', async () => {
    const { tools } = await r.session.client.listTools()
    const actions = (name: string) => (tools.find((tool) => tool.name === name)!.inputSchema.properties as Record<string, { enum: string[] }>).action!.enum
    expect(actions('browser')).toEqual(BROWSER_ACTIONS)
    expect(actions('browser_read')).toEqual(BROWSER_READ_ACTIONS)
  })

  it('BR.GEN.4 / BRR.GEN.1 / ANN.2 / ANN.4 / ANN.7 annotations: browser_read read-only and open-world, browser destructive; console_clear in browser', async () => {
    const { tools } = await r.session.client.listTools()
    const hints = (name: string) => tools.find((tool) => tool.name === name)!.annotations
    expect(hints('browser_read')).toMatchObject({ readOnlyHint: true, openWorldHint: true, destructiveHint: false, idempotentHint: true })
    expect(hints('browser')).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true })
  })

  it('BR.OPEN.2 open answers tabId, navigationId, url, title and generation after the load; BR.GEN.3 no userinfo, query or fragment', async () => {
    const withSecrets = site.url('/index.html?session=s3cret#frag').replace('http://', 'http://user:pass@')
    const opened = await call('browser', { action: 'open', url: withSecrets })
    expect(opened.isError, opened.text).toBe(false)
    expect(opened.structured).toEqual({
      tabId: expect.stringMatching(/^tab-\d+$/), navigationId: expect.any(String), url: site.url('/index.html'), title: 'Fixture home', generation: 1,
    })
    expect(opened.text).not.toMatch(/s3cret|frag|user|pass/)
  })

  it('BR.OPEN.3 / BRR.WAIT.2 / BRR.WAIT_FOR.2 timeoutMs must be 1–9000', async () => {
    for (const timeoutMs of [0, 9_001, 1.5]) {
      expectPlain(await call('browser', { action: 'open', url: site.url('/index.html'), timeoutMs }), /timeoutMs/)
      expectPlain(await call('browser_read', { action: 'wait', timeoutMs }), /timeoutMs/)
      expectPlain(await call('browser_read', { action: 'wait_for', text: 'x', timeoutMs }), /timeoutMs/)
    }
    expect((await call('browser', { action: 'open', url: site.url('/index.html'), timeoutMs: 9_000 })).isError).toBe(false)
  })

  it('BR.OPEN.7 at most 8 AI-owned tabs: the ninth open is TAB_LIMIT', async () => {
    for (let i = 0; i < 8; i++) await open('/index.html')
    expectToken(await call('browser', { action: 'open', url: site.url('/index.html') }), 'TAB_LIMIT')
  })

  it('BR.NAVIGATE.2 navigate answers the ticket\'s outcome; BRR.WAIT.1 / BRR.WAIT.5 wait without navigationId gives the latest ticket\'s outcome', async () => {
    const tabId = await open('/index.html')
    const moved = await call('browser', { action: 'navigate', tabId, url: site.url('/form.html?x=1') })
    expect(moved.structured).toEqual({ tabId, navigationId: expect.any(String), url: site.url('/form.html'), title: 'Forms', generation: 2 })
    const waited = await call('browser_read', { action: 'wait', tabId })
    expect(waited.structured).toEqual(moved.structured)
  })

  it('BR.NAVIGATE.3 a TIMEOUT carries the ticket, and wait on it later gives the final outcome (BRR.WAIT.5)', async () => {
    const tabId = await open('/index.html')
    const hold = `nav-${transport}`
    const timedOut = await call('browser', { action: 'navigate', tabId, url: site.url(`/slow.html?hold=${hold}`), timeoutMs: 50 })
    const data = expectToken(timedOut, 'TIMEOUT')
    expect(data).toEqual({ tabId, navigationId: expect.any(String) })
    site.release(hold)
    const waited = await call('browser_read', { action: 'wait', tabId, navigationId: data.navigationId })
    expect(waited.structured).toMatchObject({ tabId, navigationId: data.navigationId, url: site.url('/slow.html'), title: 'Slow' })
  })

  it('BRR.WAIT.5 a superseded ticket is NAVIGATION_SUPERSEDED', async () => {
    const tabId = await open('/index.html')
    const hold = `superseded-${transport}`
    const first = expectToken(await call('browser', { action: 'navigate', tabId, url: site.url(`/slow.html?hold=${hold}`), timeoutMs: 50 }), 'TIMEOUT')
    expect((await call('browser', { action: 'navigate', tabId, url: site.url('/form.html') })).isError).toBe(false)
    expectToken(await call('browser_read', { action: 'wait', tabId, navigationId: first.navigationId }), 'NAVIGATION_SUPERSEDED')
    site.release(hold)
  })

  it('BR.CLOSE.1 / BR.CLOSE.4 close answers {tabId, closed, destroyed}; BR.CLOSE.2 it asks no approval', async () => {
    const tabId = await open('/index.html')
    const before = (await approvals(r.home)).length
    expect((await call('browser', { action: 'close', tabId })).structured).toEqual({ tabId, closed: true, destroyed: true })
    expect((await approvals(r.home)).length).toBe(before)
    expectToken(await call('browser_read', { action: 'read', tabId }), 'TAB_NOT_FOUND')
  })

  it('BRR.READ.1 read answers {url, snapshot} of the foreground tab when tabId is left out', async () => {
    await open('/index.html')
    const read = await call('browser_read', { action: 'read' })
    expect(read.isError, read.text).toBe(false)
    const { url, snapshot } = read.structured as { url: string; snapshot: { role: string; name: string; ref: string }[] }
    expect(url).toBe(site.url('/index.html'))
    expect(snapshot).toContainEqual({ role: 'heading', name: 'Fixture home', ref: expect.any(String), level: 1 })
  })

  it('BRR.SCREENSHOT.1 screenshot answers a text line naming the page and a JPEG image block', async () => {
    const tabId = await open('/index.html?token=t0ken')
    const shot = await call('browser_read', { action: 'screenshot', tabId })
    expect(shot.isError).toBe(false)
    const [text, image] = shot.raw.content as [{ type: string; text: string }, { type: string; data: string; mimeType: string }]
    expect(text).toEqual({ type: 'text', text: `Screenshot of ${site.url('/index.html')}` })
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/jpeg' })
    expect([...Buffer.from(image.data, 'base64').subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff])
  })

  it('BRR.QUERY.1 query answers {count, elements} with ref, tag and text, plus the fields asked for', async () => {
    await open('/form.html')
    const queried = await call('browser_read', { action: 'query', selector: 'h1', fields: { attributes: true } })
    expect(queried.structured).toEqual({ count: 1, elements: [{ ref: expect.any(String), tag: 'h1', text: 'Forms', attributes: {} }] })
    expectPlain(await call('browser_read', { action: 'query' }), /browser_read\.query needs selector/)
    expectToken(await call('browser_read', { action: 'query', selector: '((' }), 'INVALID_SELECTOR')
  })

  it('BRR.EXTRACT.1 extract answers {title, byline, url, markdown, textLength, truncated}', async () => {
    await open('/article.html')
    const extracted = await call('browser_read', { action: 'extract' })
    expect(extracted.isError, extracted.text).toBe(false)
    expect(Object.keys(extracted.structured!).sort()).toEqual(['byline', 'markdown', 'textLength', 'title', 'truncated', 'url'])
    expect(extracted.structured).toMatchObject({ url: site.url('/article.html'), truncated: false })
  })

  it('BRR.CONSOLE.1 console answers {entries: [{level, text}], url}; BR.CONSOLE_CLEAR.1 console_clear answers the same, then the buffer is empty', async () => {
    const tabId = await open('/console.html')
    await call('browser_read', { action: 'wait_for', tabId, text: 'Noisy page' })
    const read = await call('browser_read', { action: 'console', tabId })
    const { entries, url } = read.structured as { entries: { level: string; text: string }[]; url: string }
    expect(url).toBe(site.url('/console.html'))
    expect(entries).toContainEqual({ level: 'warn', text: 'careful' })
    const cleared = await call('browser', { action: 'console_clear', tabId })
    expect(cleared.structured).toEqual({ entries: expect.arrayContaining([{ level: 'warn', text: 'careful' }]), url })
    expect((await call('browser_read', { action: 'console', tabId })).structured).toEqual({ entries: [], url })
  })

  it('BRR.WAIT_FOR.1 exactly one condition; BRR.WAIT_FOR.7 urlContains with ? or # is refused outright', async () => {
    const tabId = await open('/form.html')
    expectPlain(await call('browser_read', { action: 'wait_for', tabId }), /exactly one of ref, role/)
    expectPlain(await call('browser_read', { action: 'wait_for', tabId, text: 'Forms', urlContains: 'form' }), /exactly one of/)
    expectPlain(await call('browser_read', { action: 'wait_for', tabId, name: 'Forms' }), /exactly one of|name only together with role/)
    expectPlain(await call('browser_read', { action: 'wait_for', tabId, urlContains: 'form.html?x' }), /cannot contain \? or #/)
    expectPlain(await call('browser_read', { action: 'wait_for', tabId, urlContains: 'form#x' }), /cannot contain \? or #/)
    expect((await call('browser_read', { action: 'wait_for', tabId, urlContains: '/form.html' })).structured).toEqual({ matched: true })
    expect((await call('browser_read', { action: 'wait_for', tabId, role: 'heading', name: 'Forms' })).structured).toEqual({ matched: true, ref: expect.any(String) })
    expect((await call('browser_read', { action: 'wait_for', tabId, text: 'never on this page', timeoutMs: 100 })).structured).toEqual({ matched: false })
  })

  it('BR.GEN.5 an engine refusal is "TOKEN: message" with the token and data in structuredContent', async () => {
    const tabId = await open('/index.html')
    const refused = await call('browser', { action: 'navigate', tabId, url: 'file:///etc/passwd' })
    expectToken(refused, 'INVALID_URL')
    expectToken(await call('browser_read', { action: 'read', tabId: 'tab-999' }), 'TAB_NOT_FOUND')
  })

  it('the session lists browser tabs as VMark does; workspace.close on one is an INVALID_TAB envelope', async () => {
    const tabId = await open('/form.html?q=1')
    const state = await call('session', { action: 'get_state' })
    const tabs = (state.structured as { windows: { tabs: Record<string, unknown>[] }[] }).windows.flatMap((window) => window.tabs)
    expect(tabs).toContainEqual({
      id: tabId, kind: 'browser', active: true, title: 'Forms', url: site.url('/form.html'), loading: false, generation: 1, automationMode: 'ai-sandbox',
    })
    const closed = await call('workspace', { action: 'close', tabId })
    expect(closed.isError).toBe(true)
    expect(closed.structured).toMatchObject({ error: 'INVALID_TAB', message: expect.stringContaining('browser.close') })
  })

  it('BR.ACT.3 a ref target without a standing grant is NOT_GRANTED at once, telling the AI to use role and name', async () => {
    const tabId = await open('/act-click.html')
    const read = await call('browser_read', { action: 'read', tabId })
    const save = (read.structured as { snapshot: { role: string; name: string; ref: string }[] }).snapshot.find((node) => node.name === 'Save')!
    const refused = await call('browser', { action: 'act', tabId, operation: 'click', ref: save.ref })
    expectToken(refused, 'NOT_GRANTED')
    expect(refused.text).toMatch(/role and name/)
    expect((await call('browser_read', { action: 'query', tabId, selector: '#log' })).structured).toMatchObject({ elements: [{ text: '' }] })
  })

  it('BR.GEN.7 / APPR.3 an ungranted act waits, answers NOT_GRANTED naming the approval; once the person approves (quire approvals), the retry clicks', async () => {
    const tabId = await open('/act-click.html')
    const click = { action: 'act', tabId, operation: 'click', role: 'button', name: 'Save' }
    const refused = await call('browser', click)
    const data = expectToken(refused, 'NOT_GRANTED')
    expect(data.approvalId).toMatch(/^ap-/)
    expect(refused.text).toContain(String(data.approvalId))
    const log = async () => ((await call('browser_read', { action: 'query', tabId, selector: '#log' })).structured as { elements: { text: string }[] }).elements[0]!.text
    expect(await log()).toBe('')
    expect(await approvals(r.home)).toContainEqual(expect.objectContaining({ id: data.approvalId, status: 'pending', kind: 'browser_act' }))
    await decide(r.home, 'approve', String(data.approvalId))
    const clicked = await call('browser', click)
    expect(clicked.isError, clicked.text).toBe(false)
    expect(clicked.structured).toMatchObject({ ok: true, operation: 'click', matchedVisible: 1, url: site.url('/act-click.html'), generation: 1 })
    expect(await log()).toBe('save')
  })

  it('BR.EXECUTE_JS.4 every script is approved on its own; BR.GEN.6 EVAL_TIMEOUT carries data.detail.indeterminate: true', async () => {
    const tabId = await open('/index.html')
    const run = (script: string) => {
      const answer = call('browser', { action: 'execute_js', tabId, script })
      return approveWhenAsked(r.home, 'browser_execute_js').then(() => answer)
    }
    const ran = await run('return document.title')
    expect(ran.structured).toEqual({ result: 'Fixture home', untrusted: true })
    const data = expectToken(await run('await new Promise(() => {})'), 'EVAL_TIMEOUT')
    expect(data).toMatchObject({ detail: { indeterminate: true }, url: site.url('/index.html') })
  })

  it('BR.GEN.2 / BRR.GEN.4 with the embedded browser off, every action of both tools is BROWSER_DISABLED; BR.GEN.1 on again, they work', async () => {
    const tabId = await open('/index.html')
    expect((await cli(r.home, 'settings', 'set', 'embeddedBrowser', 'false')).code).toBe(0)
    try {
      const calls: [string, Record<string, unknown>][] = [
        ['browser', { action: 'open', url: site.url('/index.html') }],
        ['browser', { action: 'navigate', tabId, url: site.url('/form.html') }],
        ['browser', { action: 'close', tabId }],
        ['browser', { action: 'act', tabId, operation: 'click', role: 'button', name: 'Save' }],
        ['browser', { action: 'style', tabId, selector: 'h1', set: { color: 'red' } }],
        ['browser', { action: 'execute_js', tabId, script: 'return 1' }],
        ['browser', { action: 'console_clear', tabId }],
        ['browser_read', { action: 'read', tabId }],
        ['browser_read', { action: 'screenshot', tabId }],
        ['browser_read', { action: 'query', tabId, selector: 'h1' }],
        ['browser_read', { action: 'extract', tabId }],
        ['browser_read', { action: 'console', tabId }],
        ['browser_read', { action: 'wait', tabId }],
        ['browser_read', { action: 'wait_for', tabId, text: 'x' }],
      ]
      for (const [tool, args] of calls) expectToken(await call(tool, args), 'BROWSER_DISABLED')
    } finally {
      expect((await cli(r.home, 'settings', 'set', 'embeddedBrowser', 'true')).code).toBe(0)
    }
    expect((await call('browser_read', { action: 'read', tabId })).isError).toBe(false)
  })
})
