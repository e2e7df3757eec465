import { describe, expect, test } from 'vitest'
import { useEngine, refusal } from './support/engineRig.js'

const rig = useEngine()

describe('BR.NAVIGATE.3 and BRR.WAIT.5 navigation tickets', () => {
  test('a TIMEOUT carries the ticket, and wait later fetches its outcome', async () => {
    const { tabId } = await rig.engine.open('waiter', rig.site.url('/index.html'))
    const timedOut = await refusal(rig.engine.navigate('waiter', tabId, rig.site.url('/slow.html?hold=ticket-1'), { timeoutMs: 200 }))
    expect(timedOut.code).toBe('TIMEOUT')
    const navigationId = timedOut.data?.navigationId as string
    expect(timedOut.data).toEqual({ tabId, navigationId: expect.stringMatching(/^nav-\d+$/) })
    expect((await refusal(rig.engine.wait('waiter', tabId, { navigationId, timeoutMs: 200 }))).code).toBe('TIMEOUT')
    rig.site.release('ticket-1')
    const outcome = await rig.engine.wait('waiter', tabId, { navigationId })
    expect(outcome).toEqual({ status: 'loaded', navigationId, tabId, url: rig.site.url('/slow.html'), title: 'Slow', generation: 2 })
    // The buffered outcome is given again, and waiting starts nothing (BRR.WAIT.3).
    expect(await rig.engine.wait('waiter', tabId, { navigationId })).toEqual(outcome)
    expect((await rig.engine.tabState('waiter', tabId)).generation).toBe(2)
  })

  test('BRR.WAIT.1 without a navigationId, wait takes the latest ticket', async () => {
    const opened = await rig.engine.open('waiter', rig.site.url('/index.html'))
    expect(await rig.engine.wait('waiter', opened.tabId)).toEqual(opened)
  })

  test('a navigation replaced by a later one ends as NAVIGATION_SUPERSEDED', async () => {
    const { tabId } = await rig.engine.open('waiter', rig.site.url('/index.html'))
    const first = await refusal(rig.engine.navigate('waiter', tabId, rig.site.url('/slow.html?hold=ticket-2'), { timeoutMs: 200 }))
    const second = await rig.engine.navigate('waiter', tabId, rig.site.url('/form.html'))
    expect(second.title).toBe('Forms')
    const superseded = await refusal(rig.engine.wait('waiter', tabId, { navigationId: first.data?.navigationId as string }))
    expect(superseded.code).toBe('NAVIGATION_SUPERSEDED')
    expect(superseded.data).toEqual({ tabId, navigationId: first.data?.navigationId })
    rig.site.release('ticket-2')
  })

  test('a page that cannot load ends as NAVIGATION_FAILED; unknown tickets and bad bounds are refused (BRR.WAIT.2)', async () => {
    const { tabId } = await rig.engine.open('waiter', rig.site.url('/index.html'))
    expect((await refusal(rig.engine.navigate('waiter', tabId, 'http://127.0.0.1:1/nothing-listens-here'))).code).toBe('NAVIGATION_FAILED')
    expect((await refusal(rig.engine.wait('waiter', tabId, { navigationId: 'nav-999999' }))).code).toBe('NAVIGATION_NOT_FOUND')
    expect((await refusal(rig.engine.wait('waiter', tabId, { timeoutMs: 0 }))).code).toBe('INVALID_ARGUMENT')
    expect((await refusal(rig.engine.wait('waiter', tabId, { timeoutMs: 9_001 }))).code).toBe('INVALID_ARGUMENT')
  })
})

describe('BRR.WAIT_FOR wait_for', () => {
  test('BRR.WAIT_FOR.1, .2 and .7 exactly one condition, a bounded timeout, no ? or # in urlContains', async () => {
    const { tabId } = await rig.engine.open('waiter', rig.site.url('/index.html'))
    for (const condition of [{}, { text: 'a', urlContains: 'b' }, { name: 'Save' }, { ref: 'e1g1', role: 'button' }]) {
      expect((await refusal(rig.engine.waitFor('waiter', tabId, condition as never))).code).toBe('INVALID_ARGUMENT')
    }
    expect((await refusal(rig.engine.waitFor('waiter', tabId, { urlContains: 'done?token' }))).code).toBe('INVALID_ARGUMENT')
    expect((await refusal(rig.engine.waitFor('waiter', tabId, { urlContains: 'done#x' }))).code).toBe('INVALID_ARGUMENT')
    expect((await refusal(rig.engine.waitFor('waiter', tabId, { text: 'x' }, { timeoutMs: 9_001 }))).code).toBe('INVALID_ARGUMENT')
  })

  test('BRR.WAIT_FOR.3 to .6 role, text, ref and urlContains conditions, polled until they hold or time runs out', async () => {
    const { tabId } = await rig.engine.open('waiter', rig.site.url('/later.html'))
    const goes = (await rig.engine.read('waiter', tabId)).snapshot.find((node) => node.name === 'Goes away')!
    // A condition that holds answers at the first probe; the default bound, since under load a probe alone can take
    // longer than a short one.
    expect(await rig.engine.waitFor('waiter', tabId, { ref: goes.ref })).toEqual({ matched: true, ref: goes.ref })
    expect(await rig.engine.waitFor('waiter', tabId, { role: 'button', name: 'Ready' }, { timeoutMs: 200 })).toEqual({ matched: false })
    const ready = rig.engine.waitFor('waiter', tabId, { role: 'button', name: 'Ready' })
    const text = rig.engine.waitFor('waiter', tabId, { text: 'All loaded' })
    const url = rig.engine.waitFor('waiter', tabId, { urlContains: '/later/done' })
    rig.site.release('later')
    const found = await ready
    expect(found).toEqual({ matched: true, ref: expect.stringMatching(/^e\d+g\d+$/) })
    expect(await rig.engine.describeRef('waiter', tabId, found.ref!)).toEqual({ role: 'button', name: 'Ready', tag: 'button' })
    expect(await text).toEqual({ matched: true })
    expect(await url).toEqual({ matched: true })
    // The page's URL now has ?token=abc#fragment, which an assistant never sees and so cannot match on.
    expect(await rig.engine.waitFor('waiter', tabId, { urlContains: 'token' }, { timeoutMs: 200 })).toEqual({ matched: false })
    // history.pushState is a committed main-frame navigation: the refs read before it are of an older generation.
    expect((await refusal(rig.engine.waitFor('waiter', tabId, { ref: goes.ref }))).code).toBe('STALE_REF')
  })
})

describe('a tab closed under a call', () => {
  test('a wait_for in progress ends with TAB_CLOSED when its tab is closed', async () => {
    const { tabId } = await rig.engine.open('waiter', rig.site.url('/index.html'))
    const waiting = refusal(rig.engine.waitFor('waiter', tabId, { text: 'never on this page' }))
    await rig.engine.close('waiter', tabId)
    expect((await waiting).code).toBe('TAB_CLOSED')
  })
})
