import { describe, expect, test } from 'vitest'
import { useEngine } from './support/engineRig.js'

const rig = useEngine()
const WHO = 'clearer'

describe('BR.CONSOLE_CLEAR.1 and BR.CONSOLE_CLEAR.2 console_clear', () => {
  test('answers the entries exactly as console does, then the next read sees only new output', async () => {
    const { tabId } = await rig.engine.open(WHO, rig.site.url('/act-script.html?token=t'))
    await expect.poll(() => rig.engine.console(WHO, tabId).entries.length, { timeout: 20_000 }).toBe(2)
    const before = rig.engine.console(WHO, tabId)
    const cleared = rig.engine.consoleClear(WHO, tabId)
    expect(cleared).toEqual(before)
    expect(cleared).toEqual({ url: rig.site.url('/act-script.html'), entries: [{ level: 'log', text: 'loaded 1' }, { level: 'warn', text: 'first warning' }] })
    expect(rig.engine.console(WHO, tabId).entries).toEqual([])
    await rig.engine.act(WHO, tabId, { operation: 'click', role: 'button', name: 'Log something' })
    await rig.engine.act(WHO, tabId, { operation: 'click', role: 'button', name: 'Log something' })
    await expect.poll(() => rig.engine.console(WHO, tabId).entries.length, { timeout: 20_000 }).toBe(2)
    expect(rig.engine.consoleClear(WHO, tabId).entries).toEqual([{ level: 'info', text: 'said 1' }, { level: 'info', text: 'said 2' }])
    expect(rig.engine.consoleClear(WHO, tabId).entries).toEqual([])
  })
})
