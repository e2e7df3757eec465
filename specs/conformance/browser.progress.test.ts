/**
 * While the person decides a browser request (issue 27, item 3): an act waiting for its approval sends MCP progress
 * notifications when the client asked for them, naming the request and where the person answers; it acts as soon as
 * they approve; a client that cancels the call withdraws the request, and nothing reaches the page. A real SDK client
 * over stdio and HTTP against Chromium, the person deciding through the real CLI.
 */
import { describe, expect, it } from 'vitest'
import type { FixtureSite } from '../browser-engine/support/fixtureSite.js'
import { useBrowserRig } from '../support/browserRig.js'
import { TRANSPORTS, approvals, cli, decide, type Rig, type Transport } from '../support/conformance.js'
import { callWithProgress, until } from '../support/toolProgress.js'

describe.each<Transport>(TRANSPORTS)('browser approvals with progress over %s', (transport) => {
  let r: Rig
  let site: FixtureSite
  useBrowserRig(transport, (made) => {
    r = made.rig
    site = made.site
  })
  const open = async (path: string): Promise<string> => {
    const result = await r.session.call('browser', { action: 'open', url: site.url(path) })
    expect(result.isError, result.text).toBe(false)
    return (result.structured as { tabId: string }).tabId
  }
  const logOf = async (tabId: string): Promise<string[]> => {
    const queried = await r.session.call('browser_read', { action: 'query', tabId, selector: '#log' })
    return (queried.structured as { elements: { text: string }[] }).elements[0]!.text.split(' ').filter(Boolean)
  }
  const pendingAct = async (earlier: Set<string>) =>
    (await approvals(r.home)).find((entry) => entry.kind === 'browser_act' && entry.status === 'pending' && !earlier.has(entry.id))

  it('ISSUE27.3 an act waiting for its approval notifies progress past the 9 s it waits without a token, naming the request and the CLI command, and clicks once approved', async () => {
    const tabId = await open('/act-click.html')
    const earlier = new Set((await approvals(r.home)).map((entry) => entry.id))
    const { notes, result } = callWithProgress(r.session, 'browser', { action: 'act', tabId, operation: 'click', role: 'button', name: 'Save' })
    const request = await until('the request', () => pendingAct(earlier))
    await until('progress past 10 s of waiting', () => (notes.length >= 6 ? true : undefined), 30_000)
    for (const note of notes) expect(note.message).toContain(`quire approvals approve ${request.id}`)
    await decide(r.home, 'approve', request.id)
    const answer = await result
    expect(answer.isError, JSON.stringify(answer.content)).toBe(false)
    expect(await logOf(tabId)).toEqual(['save'])
  })

  it('ISSUE27.3 cancelling an act waiting for its approval withdraws the request; the page is never touched', async () => {
    const tabId = await open('/act-click.html')
    const earlier = new Set((await approvals(r.home)).map((entry) => entry.id))
    const controller = new AbortController()
    const { notes, result } = callWithProgress(r.session, 'browser', { action: 'act', tabId, operation: 'click', role: 'button', name: 'Covered' }, controller.signal)
    const request = await until('the request', () => pendingAct(earlier))
    await until('a progress notification', () => (notes.length >= 1 ? true : undefined))
    controller.abort('the assistant gave up')
    await expect(result).rejects.toThrow()
    await until('the withdrawal', async () => ((await approvals(r.home)).find((entry) => entry.id === request.id)?.status === 'withdrawn' ? true : undefined))
    expect((await cli(r.home, 'approvals', 'approve', request.id)).code).not.toBe(0)
    expect(await logOf(tabId)).toEqual([])
  })
})
