import { describe, expect, test } from 'vitest'
import { BrowserError } from '../../adapters/browser/errors.js'
import { useEngine } from './support/engineRig.js'

/**
 * BR.CLOSE.5: `close` answers `destroyed: true` once Chromium confirms the page is gone (BR.CLOSE.4, proven in
 * tabs.test.ts and through MCP); when it does not confirm
 * within its retries, the tab record is removed all the same and the answer is TAB_TEARDOWN_FAILED with
 * `destroyed: false`. The slow page's own pagehide handler is what keeps Chromium from confirming.
 */
const rig = useEngine(() => ({ teardownMs: 100 }))

describe('BR.CLOSE.5 a teardown Chromium does not confirm', () => {
  test('is TAB_TEARDOWN_FAILED with destroyed: false, and the tab is gone from the engine anyway', async () => {
    const { tabId } = await rig.engine.open('closer', rig.site.url('/slow-unload.html'))
    const error = await rig.engine.close('closer', tabId).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(BrowserError)
    expect((error as BrowserError).code).toBe('TAB_TEARDOWN_FAILED')
    expect((error as BrowserError).data).toEqual({ tabId, destroyed: false })
    expect((await rig.engine.tabsOf('closer')).map((tab) => tab.tabId)).not.toContain(tabId)
    await expect(rig.engine.close('closer', tabId)).rejects.toMatchObject({ code: 'TAB_NOT_FOUND' })
  })

})
