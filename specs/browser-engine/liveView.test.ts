import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, test } from 'vitest'
import { BrowserError } from '../../adapters/browser/errors.js'
import type { ScreencastFrame } from '../../adapters/browser/personSide.js'
import { useEngineWithProfile } from './support/engineRig.js'

const rig = useEngineWithProfile()

/** Polls the person's tab list until the tab's title is `title` (a page reacts to input asynchronously). */
async function titleBecomes(tabId: string, title: string): Promise<void> {
  for (let polls = 0; ; polls++) {
    const tab = (await rig.engine.listTabs()).find((entry) => entry.tabId === tabId)
    if (tab?.title === title) return
    if (polls > 200) throw new Error(`the title is still ${JSON.stringify(tab?.title)}, not ${JSON.stringify(title)}`)
    await sleep(25)
  }
}

async function firstFrame(tabId: string): Promise<{ frame: ScreencastFrame; stop: () => Promise<void> }> {
  let resolve!: (frame: ScreencastFrame) => void
  const arrived = new Promise<ScreencastFrame>((done) => (resolve = done))
  const stop = await rig.engine.screencast(tabId, (frame) => resolve(frame))
  return { frame: await arrived, stop }
}

describe('the person\'s live view and takeover', () => {
  test('a screencast sends JPEG frames of the tab\'s viewport', async () => {
    const human = await rig.engine.openHumanTab(rig.site.url('/takeover.html'))
    const { frame, stop } = await firstFrame(human.tabId)
    expect(Buffer.from(frame.jpegBase64, 'base64').subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]))
    expect({ width: frame.width, height: frame.height }).toEqual({ width: 1280, height: 800 })
    await stop()
    await stop()
    await rig.engine.closeHumanTab(human.tabId)
  })

  test('frames keep coming after the tab navigates to another site (a new renderer process)', async () => {
    const human = await rig.engine.openHumanTab(rig.site.url('/index.html'))
    const seen: ScreencastFrame[] = []
    let waiter: (() => void) | undefined
    const stop = await rig.engine.screencast(human.tabId, (frame) => {
      seen.push(frame)
      waiter?.()
    })
    const nextFrame = (after: number) => new Promise<void>((resolve) => {
      waiter = () => seen.length > after && resolve()
      waiter()
    })
    await nextFrame(0)
    const before = seen.length
    await rig.engine.navigateHumanTab(human.tabId, `${rig.site.otherOrigin}/takeover.html`)
    await nextFrame(before)
    await stop()
    await rig.engine.closeHumanTab(human.tabId)
  })

  test('a click at the button\'s viewport coordinates presses it; keys type into the focused field', async () => {
    const human = await rig.engine.openHumanTab(rig.site.url('/takeover.html'))
    const inputs: string[] = []
    const unsubscribe = rig.engine.onEvent((event) => {
      if (event.type === 'person-input') inputs.push(event.tabId)
    })
    // The button covers x 100–300, y 100–180.
    await rig.engine.dispatchInput(human.tabId, { kind: 'mouse', action: 'move', x: 200, y: 140 })
    await rig.engine.dispatchInput(human.tabId, { kind: 'mouse', action: 'down', x: 200, y: 140, button: 'left' })
    await rig.engine.dispatchInput(human.tabId, { kind: 'mouse', action: 'up', x: 200, y: 140, button: 'left' })
    await titleBecomes(human.tabId, 'Pressed 1')
    // Beside the button, nothing is pressed.
    await rig.engine.dispatchInput(human.tabId, { kind: 'mouse', action: 'down', x: 600, y: 140 })
    await rig.engine.dispatchInput(human.tabId, { kind: 'mouse', action: 'up', x: 600, y: 140 })

    await rig.engine.dispatchInput(human.tabId, { kind: 'mouse', action: 'down', x: 150, y: 310 })
    await rig.engine.dispatchInput(human.tabId, { kind: 'mouse', action: 'up', x: 150, y: 310 })
    for (const key of ['h', 'i']) {
      await rig.engine.dispatchInput(human.tabId, { kind: 'key', action: 'down', key, code: `Key${key.toUpperCase()}` })
      await rig.engine.dispatchInput(human.tabId, { kind: 'key', action: 'up', key, code: `Key${key.toUpperCase()}` })
    }
    await titleBecomes(human.tabId, 'Typed hi')
    await rig.engine.dispatchInput(human.tabId, { kind: 'key', action: 'down', key: 'Backspace', code: 'Backspace' })
    await rig.engine.dispatchInput(human.tabId, { kind: 'key', action: 'up', key: 'Backspace', code: 'Backspace' })
    await titleBecomes(human.tabId, 'Typed h')
    await rig.engine.dispatchInput(human.tabId, { kind: 'text', text: 'ello' })
    await titleBecomes(human.tabId, 'Typed hello')
    const count = await rig.engine.attached('claude', human.tabId, () => rig.engine.query('claude', human.tabId, '#count'))
    expect(count.elements[0]!.text).toBe('pressed 1')
    expect(new Set(inputs)).toEqual(new Set([human.tabId]))
    unsubscribe()
    await rig.engine.closeHumanTab(human.tabId)
  })

  test('the person watches and takes over an assistant\'s tab too; the page reacts and the run hears of it', async () => {
    const ai = await rig.engine.open('claude', rig.site.url('/takeover.html'))
    const { frame, stop } = await firstFrame(ai.tabId)
    expect(frame.width).toBe(1280)
    let heard = false
    const unsubscribe = rig.engine.onEvent((event) => {
      if (event.type === 'person-input' && event.tabId === ai.tabId) heard = true
    })
    await rig.engine.dispatchInput(ai.tabId, { kind: 'mouse', action: 'down', x: 120, y: 170 })
    await rig.engine.dispatchInput(ai.tabId, { kind: 'mouse', action: 'up', x: 120, y: 170 })
    expect(heard).toBe(true)
    const { elements } = await rig.engine.query('claude', ai.tabId, '#count')
    expect(elements[0]!.text).toBe('pressed 1')
    unsubscribe()
    await stop()
    await rig.engine.close('claude', ai.tabId)
  })

  test('locateForPerson: the live-view box of an element named by role and exact name, for outlining it', async () => {
    const ai = await rig.engine.open('claude', rig.site.url('/takeover.html'))
    const still = { scrollX: 0, scrollY: 0, scale: 1 }
    expect(await rig.engine.locateForPerson(ai.tabId, 'button', 'Press me')).toEqual({ boxes: [{ x: 100, y: 100, width: 200, height: 80 }], viewport: still })
    expect(await rig.engine.locateForPerson(ai.tabId, 'button', 'Press')).toEqual({ boxes: [], viewport: still })
    expect(await rig.engine.locateForPerson(ai.tabId, 'no-such-role', 'Press me')).toEqual({ boxes: [], viewport: still })
    await rig.engine.close('claude', ai.tabId)
  })

  test('bad input is refused and changes nothing', async () => {
    const human = await rig.engine.openHumanTab(rig.site.url('/takeover.html'))
    const refused = async (input: Parameters<typeof rig.engine.dispatchInput>[1]) => {
      const error = await rig.engine.dispatchInput(human.tabId, input).then(() => null, (caught: unknown) => caught)
      expect(error).toBeInstanceOf(BrowserError)
      expect((error as BrowserError).code).toBe('INVALID_ARGUMENT')
    }
    await refused({ kind: 'mouse', action: 'down', x: Number.NaN, y: 1 })
    await refused({ kind: 'mouse', action: 'down', x: 1, y: 1, modifiers: 99 })
    await refused({ kind: 'key', action: 'down', key: '', code: '' })
    await refused({ kind: 'text', text: 'x'.repeat(10_001) })
    const error = await rig.engine.dispatchInput('tab-999', { kind: 'text', text: 'x' }).then(() => null, (caught: unknown) => caught)
    expect((error as BrowserError).code).toBe('TAB_NOT_FOUND')
    expect((await rig.engine.listTabs()).find((tab) => tab.tabId === human.tabId)?.title).toBe('Takeover')
    await rig.engine.closeHumanTab(human.tabId)
  })
})
