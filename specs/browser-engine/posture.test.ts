import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { BrowserEngine } from '../../adapters/browser/engine.js'
import { BrowserError } from '../../adapters/browser/errors.js'
import { chromiumChildren, eventually, useEngineWithProfile } from './support/engineRig.js'

const rig = useEngineWithProfile()
const { directory: profileDir } = rig

/** The cookie the fixture site's /cookie/show saw, as the page's heading says it ("cookie: none" without one). */
async function cookieSeen(engine: BrowserEngine, principal: string, tabId: string): Promise<string> {
  const { elements } = await engine.query(principal, tabId, 'h1')
  return elements[0]!.text
}

describe('BR.GEN.11 Sandbox tabs have their own cookie store; Shared tabs use the person\'s profile', () => {
  test('a cookie the person set in a human tab is seen by a Shared tab and not by a Sandbox tab', async () => {
    const human = await rig.engine.openHumanTab(rig.site.url('/keep-cookie.html?v=person'))
    expect(human).toMatchObject({ automationMode: 'human', title: 'Cookie kept' })

    const shared = await rig.engine.open('claude', rig.site.url('/cookie/show'), { posture: 'shared', approvedOrigin: rig.site.origin })
    expect(await cookieSeen(rig.engine, 'claude', shared.tabId)).toBe('cookie: person')
    const sandbox = await rig.engine.open('claude', rig.site.url('/cookie/show'), { posture: 'sandbox' })
    expect(await cookieSeen(rig.engine, 'claude', sandbox.tabId)).toBe('cookie: none')
    // Without a posture an open is a Sandbox one: the person's profile is never the default.
    const unspecified = await rig.engine.open('claude', rig.site.url('/cookie/show'))
    expect(await cookieSeen(rig.engine, 'claude', unspecified.tabId)).toBe('cookie: none')

    const modes = Object.fromEntries((await rig.engine.listTabs()).map((tab) => [tab.tabId, tab.automationMode]))
    expect(modes).toEqual({ [human.tabId]: 'human', [shared.tabId]: 'ai-shared', [sandbox.tabId]: 'ai-sandbox', [unspecified.tabId]: 'ai-sandbox' })
    for (const tab of [shared, sandbox, unspecified]) await rig.engine.close('claude', tab.tabId)
    await rig.engine.closeHumanTab(human.tabId)
  })

  test('a Shared tab writes into the person\'s profile, which a Sandbox tab never does', async () => {
    const sandbox = await rig.engine.open('gemini', rig.site.url('/cookie/set?v=sandboxed'))
    const shared = await rig.engine.open('gemini', rig.site.url('/cookie/show'), { posture: 'shared', approvedOrigin: rig.site.origin })
    expect(await cookieSeen(rig.engine, 'gemini', shared.tabId)).not.toBe('cookie: sandboxed')
    await rig.engine.close('gemini', sandbox.tabId)
    await rig.engine.close('gemini', shared.tabId)
  })

  test('the person\'s profile outlasts the engine: a new engine on the same folder sees the cookie', async () => {
    const human = await rig.engine.openHumanTab(rig.site.url('/keep-cookie.html?v=kept'))
    await rig.engine.stop()
    expect(await rig.engine.listTabs()).toEqual([])
    const next = new BrowserEngine({ executablePath: process.env.QUIRE_CHROMIUM ?? '/usr/bin/chromium', profileDir })
    try {
      const shared = await next.open('claude', rig.site.url('/cookie/show'), { posture: 'shared', approvedOrigin: rig.site.origin })
      expect(await cookieSeen(next, 'claude', shared.tabId)).toBe('cookie: kept')
      const sandbox = await next.open('claude', rig.site.url('/cookie/show'))
      expect(await cookieSeen(next, 'claude', sandbox.tabId)).toBe('cookie: none')
      expect((await next.listTabs()).map((tab) => tab.tabId)).not.toContain(human.tabId)
    } finally {
      await next.stop()
    }
  })

  test('the person\'s browser crashing closes its tabs only; the Sandbox tabs go on, and the next human tab starts it again', async () => {
    const human = await rig.engine.openHumanTab(rig.site.url('/index.html'))
    const shared = await rig.engine.open('claude', rig.site.url('/index.html'), { posture: 'shared', approvedOrigin: rig.site.origin })
    const sandbox = await rig.engine.open('claude', rig.site.url('/form.html'))
    const profileBrowser = (await chromiumChildren()).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(profileDir))
    expect(profileBrowser).toHaveLength(1)
    process.kill(profileBrowser[0]!, 'SIGKILL')
    for (const tabId of [human.tabId, shared.tabId]) {
      await eventually(rig, (event) => event.type === 'tab-closed' && event.tabId === tabId && event.reason === 'browser-crashed')
    }
    expect((await rig.engine.listTabs()).map((tab) => tab.tabId)).toEqual([sandbox.tabId])
    expect((await rig.engine.read('claude', sandbox.tabId)).url).toBe(rig.site.url('/form.html'))
    const again = await rig.engine.openHumanTab(rig.site.url('/index.html'))
    expect(again).toMatchObject({ automationMode: 'human', title: 'Fixture home' })
    await rig.engine.closeHumanTab(again.tabId)
    await rig.engine.close('claude', sandbox.tabId)
  })

  test('without a profile folder, human tabs and Shared tabs are refused with BROWSER_UNAVAILABLE', async () => {
    const bare = new BrowserEngine({ executablePath: process.env.QUIRE_CHROMIUM ?? '/usr/bin/chromium' })
    try {
      for (const attempt of [bare.openHumanTab(rig.site.url('/')), bare.open('claude', rig.site.url('/'), { posture: 'shared', approvedOrigin: rig.site.origin })]) {
        const error = await attempt.then(() => null, (caught: unknown) => caught)
        expect(error).toBeInstanceOf(BrowserError)
        expect((error as BrowserError).code).toBe('BROWSER_UNAVAILABLE')
      }
    } finally {
      await bare.stop()
    }
  })
})
