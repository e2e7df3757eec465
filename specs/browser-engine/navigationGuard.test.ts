import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, test } from 'vitest'
import type { PersonTabEntry } from '../../adapters/browser/personSide.js'
import { useEngineWithProfile } from './support/engineRig.js'

/**
 * The engine's side of where assistants' tabs may go (navigationGuard.ts): windows an assistant's page opens never
 * load, in any posture, while the person's own windows still do, even while an assistant's tab is open in their
 * profile (the guard stops every window's first request there, and the person's is loaded once it is their tab).
 */
const rig = useEngineWithProfile()

/** The person's window once it has loaded, polled for up to 15 s (a loaded machine is slow to open windows). */
async function personsWindow(opener: string): Promise<PersonTabEntry | undefined> {
  for (const deadline = Date.now() + 15_000; Date.now() < deadline;) {
    const popup = (await rig.engine.listTabs()).find((tab) => tab.tabId !== opener && tab.automationMode === 'human')
    // Title and URL come from two DevTools sessions: both must have seen the article.
    if (popup?.title === 'How tides work | Fixture Gazette' && popup.url === rig.site.url('/article.html')) return popup
    await sleep(25)
  }
  return undefined
}

describe('windows opened by pages', () => {
  test('an assistant\'s tab\'s window sends no request, in the Sandbox posture too; it is still reported (BR.ACT.15)', async () => {
    const from = rig.site.requests.length
    const ai = await rig.engine.open('claude', rig.site.url('/popup.html'))
    await sleep(500)
    expect(rig.engine.takePopups('claude', ai.tabId)).toEqual([rig.site.url('/article.html')])
    expect(rig.site.requests.slice(from).map((request) => request.path)).not.toContain('/article.html')
    expect((await rig.engine.listTabs()).map((tab) => tab.tabId)).toEqual([ai.tabId])
    await rig.engine.close('claude', ai.tabId)
  })

  test('the person\'s window loads while an assistant\'s Shared tab is open in their profile, and after it closed', async () => {
    const shared = await rig.engine.open('claude', rig.site.url('/popup.html'), { posture: 'shared', approvedOrigin: rig.site.origin })
    await sleep(500)
    expect((await rig.engine.listTabs()).map((tab) => tab.tabId)).toEqual([shared.tabId])
    const human = await rig.engine.openHumanTab(rig.site.url('/popup.html'))
    const popup = await personsWindow(human.tabId)
    expect(popup).toMatchObject({ automationMode: 'human', url: rig.site.url('/article.html') })
    await rig.engine.close('claude', shared.tabId)
    await rig.engine.closeHumanTab(popup!.tabId)

    await rig.engine.navigateHumanTab(human.tabId, rig.site.url('/popup.html'))
    const after = await personsWindow(human.tabId)
    expect(after).toMatchObject({ automationMode: 'human', url: rig.site.url('/article.html') })
    await rig.engine.closeHumanTab(after!.tabId)
    await rig.engine.closeHumanTab(human.tabId)
  })
})
