import { afterAll, afterEach, beforeAll } from 'vitest'
import { serveFixtureSite, type FixtureSite } from '../browser-engine/support/fixtureSite.js'
import { rig, type Rig, type Transport } from './conformance.js'

/**
 * The rig of a browser conformance file, per transport: one Quire (so one Chromium) and one loopback fixture site for
 * the whole file, and every test starting with none of this connection's browser tabs open. `started` receives them
 * once they are up; the hooks close them after the file.
 */
export function useBrowserRig(transport: Transport, started: (made: { rig: Rig; site: FixtureSite }) => void): void {
  let made: { rig: Rig; site: FixtureSite } | undefined
  beforeAll(async () => {
    const site = await serveFixtureSite()
    made = { rig: await rig(transport), site }
    started(made)
  })
  afterAll(async () => {
    await made?.rig.close()
    await made?.site.close()
  })
  afterEach(async () => {
    if (!made) return
    const state = await made.rig.session.call('session', { action: 'get_state' })
    const tabs = (state.structured as { windows: { tabs: { id: string; kind: string }[] }[] }).windows.flatMap((window) => window.tabs)
    for (const tab of tabs.filter((entry) => entry.kind === 'browser')) await made.rig.session.call('browser', { action: 'close', tabId: tab.id })
  })
}
