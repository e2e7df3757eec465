import { describe, expect, test } from 'vitest'
import { BrowserError } from '../../adapters/browser/errors.js'
import { TAB_LIMIT } from '../../adapters/browser/engine.js'
import { chromiumChildren, eventually, useEngine, refusal } from './support/engineRig.js'

const rig = useEngine()

async function closeAll(principal: string): Promise<void> {
  for (const tab of await rig.engine.tabsOf(principal)) await rig.engine.close(principal, tab.tabId)
}

describe('BR.OPEN.2 open answers with the tab once its page loaded', () => {
  test('tabId, navigationId, redacted URL, title and generation', async () => {
    const opened = await rig.engine.open('alpha', rig.site.url('/index.html?session=secret#top'))
    expect(opened).toEqual({
      status: 'loaded', tabId: expect.stringMatching(/^tab-\d+$/), navigationId: expect.stringMatching(/^nav-\d+$/),
      url: rig.site.url('/index.html'), title: 'Fixture home', generation: 1,
    })
    expect(await rig.engine.tabState('alpha', opened.tabId)).toEqual({
      tabId: opened.tabId, url: rig.site.url('/index.html'), title: 'Fixture home', loading: false, generation: 1,
    })
    await closeAll('alpha')
  })

  test('every committed main-frame navigation bumps the generation and is reported as an event', async () => {
    const opened = await rig.engine.open('alpha', rig.site.url('/index.html'))
    const next = await rig.engine.navigate('alpha', opened.tabId, rig.site.url('/form.html?q=1'))
    expect(next).toMatchObject({ tabId: opened.tabId, url: rig.site.url('/form.html'), title: 'Forms', generation: 2 })
    expect(next.navigationId).not.toBe(opened.navigationId)
    expect(rig.events).toContainEqual({ type: 'tab-navigated', principal: 'alpha', tabId: opened.tabId, url: rig.site.url('/form.html'), generation: 2 })
    await closeAll('alpha')
  })

  test('only http and https pages open; timeoutMs must be 1 to 9,000 ms (BR.OPEN.3)', async () => {
    expect((await refusal(rig.engine.open('alpha', 'file:///etc/passwd'))).code).toBe('INVALID_URL')
    expect((await refusal(rig.engine.open('alpha', 'not a url'))).code).toBe('INVALID_URL')
    expect((await refusal(rig.engine.open('alpha', rig.site.url('/'), { timeoutMs: 0 }))).code).toBe('INVALID_ARGUMENT')
    expect((await refusal(rig.engine.open('alpha', rig.site.url('/'), { timeoutMs: 9_001 }))).code).toBe('INVALID_ARGUMENT')
    expect(await rig.engine.tabsOf('alpha')).toEqual([])
  })
})

describe('BR.OPEN.7 at most 8 AI tabs per principal', () => {
  test('the ninth open is refused with TAB_LIMIT; another principal is not affected; closing one makes room', async () => {
    const tabs: string[] = []
    for (let i = 0; i < TAB_LIMIT; i++) tabs.push((await rig.engine.open('alpha', rig.site.url('/index.html'))).tabId)
    expect((await refusal(rig.engine.open('alpha', rig.site.url('/index.html')))).code).toBe('TAB_LIMIT')
    const other = await rig.engine.open('beta', rig.site.url('/index.html'))
    expect(other.status).toBe('loaded')
    await rig.engine.close('alpha', tabs[0]!)
    expect((await rig.engine.open('alpha', rig.site.url('/index.html'))).status).toBe('loaded')
    await closeAll('alpha')
    await closeAll('beta')
  })
})

describe('BR.OPEN.7 under concurrency', () => {
  test('nine opens at once: eight tabs, one TAB_LIMIT', async () => {
    const results = await Promise.allSettled(Array.from({ length: TAB_LIMIT + 1 }, () => rig.engine.open('gamma', rig.site.url('/index.html'))))
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(TAB_LIMIT)
    const refused = results.filter((result) => result.status === 'rejected')
    expect(refused.map((result) => (result.reason as BrowserError).code)).toEqual(['TAB_LIMIT'])
    expect(await rig.engine.tabsOf('gamma')).toHaveLength(TAB_LIMIT)
    await closeAll('gamma')
  })
})

describe('BR.CLOSE.1 and BR.CLOSE.4 close', () => {
  test('answers closed and destroyed, and the tab is gone', async () => {
    const opened = await rig.engine.open('alpha', rig.site.url('/index.html'))
    expect(await rig.engine.close('alpha', opened.tabId)).toEqual({ tabId: opened.tabId, closed: true, destroyed: true })
    expect((await refusal(rig.engine.read('alpha', opened.tabId))).code).toBe('TAB_NOT_FOUND')
    expect(rig.events).toContainEqual({ type: 'tab-closed', principal: 'alpha', tabId: opened.tabId, reason: 'closed' })
  })

  test("another principal's tab does not exist for them", async () => {
    const opened = await rig.engine.open('alpha', rig.site.url('/index.html'))
    expect((await refusal(rig.engine.read('beta', opened.tabId))).code).toBe('TAB_NOT_FOUND')
    expect((await refusal(rig.engine.close('beta', opened.tabId))).code).toBe('TAB_NOT_FOUND')
    expect(await rig.engine.tabsOf('beta')).toEqual([])
    await closeAll('alpha')
  })
})

describe('BR.GEN.11 each principal has its own non-persistent cookie store', () => {
  test("a cookie one AI's page got is not sent for another AI", async () => {
    const alpha = await rig.engine.open('alpha', rig.site.url('/cookie/set?v=alpha'))
    await rig.engine.navigate('alpha', alpha.tabId, rig.site.url('/cookie/show'))
    expect((await rig.engine.read('alpha', alpha.tabId)).snapshot[0]).toMatchObject({ role: 'heading', name: 'cookie: alpha' })
    const beta = await rig.engine.open('beta', rig.site.url('/cookie/show'))
    expect((await rig.engine.read('beta', beta.tabId)).snapshot[0]).toMatchObject({ role: 'heading', name: 'cookie: none' })
    await closeAll('alpha')
    await closeAll('beta')
  })
})

describe('loading state and popups', () => {
  test('a tab whose page is still loading says so, and stops saying so once it loaded', async () => {
    const opened = await rig.engine.open('alpha', rig.site.url('/index.html'))
    const timedOut = await refusal(rig.engine.navigate('alpha', opened.tabId, rig.site.url('/slow.html?hold=tabs-loading'), { timeoutMs: 300 }))
    expect(timedOut.code).toBe('TIMEOUT')
    await expect.poll(async () => (await rig.engine.tabState('alpha', opened.tabId)).loading, { timeout: 20_000 }).toBe(true)
    rig.site.release('tabs-loading')
    const loaded = await rig.engine.wait('alpha', opened.tabId)
    expect(loaded.title).toBe('Slow')
    await expect.poll(async () => (await rig.engine.tabState('alpha', opened.tabId)).loading, { timeout: 20_000 }).toBe(false)
    await closeAll('alpha')
  })

  test('BR.ACT.15 a window the page opens is closed, never becomes a tab, and its redacted URL is reported', async () => {
    const opened = await rig.engine.open('alpha', rig.site.url('/popup.html'))
    const popups: string[] = []
    await expect.poll(() => popups.push(...rig.engine.takePopups('alpha', opened.tabId)), { timeout: 20_000 }).toBeGreaterThan(0)
    expect(popups).toEqual([rig.site.url('/article.html')])
    expect(rig.engine.takePopups('alpha', opened.tabId)).toEqual([])
    expect((await rig.engine.tabsOf('alpha')).map((tab) => tab.tabId)).toEqual([opened.tabId])
    await closeAll('alpha')
  })
})

describe('one browser per daemon, restarted after a crash', () => {
  test("a browser that dies reports its tabs closed, and the next call starts a new one", async () => {
    const opened = await rig.engine.open('alpha', rig.site.url('/index.html'))
    const startsBefore = rig.events.filter((event) => event.type === 'browser-started').length
    const pids = await chromiumChildren()
    expect(pids.length).toBe(1)
    process.kill(pids[0]!, 'SIGKILL')
    await eventually(rig, (event) => event.type === 'tab-closed' && event.tabId === opened.tabId)
    expect(rig.events).toContainEqual({ type: 'tab-closed', principal: 'alpha', tabId: opened.tabId, reason: 'browser-crashed' })
    expect(rig.events).toContainEqual({ type: 'browser-stopped', reason: 'crashed' })
    expect(rig.engine.running).toBe(false)
    expect((await refusal(rig.engine.read('alpha', opened.tabId))).code).toBe('TAB_NOT_FOUND')
    const again = await rig.engine.open('alpha', rig.site.url('/index.html'))
    expect(again.status).toBe('loaded')
    expect(rig.events.filter((event) => event.type === 'browser-started').length).toBe(startsBefore + 1)
    await closeAll('alpha')
  })
})
