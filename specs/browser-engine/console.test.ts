import { describe, expect, test } from 'vitest'
import { CONSOLE_RING_SIZE } from '../../adapters/browser/consoleRing.js'
import { useEngine } from './support/engineRig.js'

const rig = useEngine()

const TOP_FRAME_OUTPUT = [
  { level: 'log', text: 'hello 42 Object' },
  { level: 'warn', text: 'careful' },
  { level: 'info', text: 'for your information' },
  { level: 'error', text: 'bad thing' },
]
// The page's uncaught error comes from a timer and its rejection is reported after its script ran: their order
// among themselves is the browser's business, so the tests do not fix it.
const TOP_FRAME_ERRORS = [
  { level: 'error', text: 'Uncaught Error: boom' },
  { level: 'error', text: 'Unhandled rejection: Error: nobody caught me' },
]

describe('BRR.CONSOLE.1, BRR.CONSOLE.2 and BRR.CONSOLE.4 console', () => {
  test("the main frame's console output, uncaught errors and unhandled rejections; nothing from its frames", async () => {
    const { tabId } = await rig.engine.open('listener', rig.site.url('/console.html?token=x'))
    await expect.poll(() => rig.engine.console('listener', tabId).entries.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(6)
    const { entries, url } = rig.engine.console('listener', tabId)
    expect(url).toBe(rig.site.url('/console.html'))
    expect(entries.slice(0, 4)).toEqual(TOP_FRAME_OUTPUT)
    expect(entries.slice(4)).toHaveLength(2)
    expect(entries.slice(4)).toEqual(expect.arrayContaining(TOP_FRAME_ERRORS))
    expect(entries.some((entry) => entry.text.includes('frame'))).toBe(false)
  })
})

describe('BRR.CONSOLE.6 a bounded ring that reading does not clear', () => {
  test('only the newest 200 entries are kept, and reading twice gives the same entries', async () => {
    const { tabId } = await rig.engine.open('listener', rig.site.url('/console.html?flood=300'))
    await expect.poll(() => rig.engine.console('listener', tabId).entries.filter((entry) => entry.level === 'error' && entry.text !== 'bad thing').length, { timeout: 20_000 }).toBe(2)
    const { entries } = rig.engine.console('listener', tabId)
    expect(entries).toHaveLength(CONSOLE_RING_SIZE)
    // 4 lines, 300 flood lines, 2 errors: the oldest 106 went.
    expect(entries[0]).toEqual({ level: 'log', text: 'line 102' })
    expect(entries[CONSOLE_RING_SIZE - 3]).toEqual({ level: 'log', text: 'line 299' })
    expect(rig.engine.console('listener', tabId).entries).toEqual(entries)
  })
})
