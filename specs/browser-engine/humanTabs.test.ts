import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, test } from 'vitest'
import { useEngineWithProfile, refusal } from './support/engineRig.js'

const rig = useEngineWithProfile()

describe('human tabs: the person\'s own, opened from the console', () => {
  test('open, navigate and close; listed for the person with no principal', async () => {
    const opened = await rig.engine.openHumanTab(rig.site.url('/index.html?session=secret'))
    expect(opened).toEqual({
      tabId: expect.stringMatching(/^tab-\d+$/), automationMode: 'human', url: rig.site.url('/index.html'), title: 'Fixture home',
      loading: false, generation: 1, front: true,
    })
    const moved = await rig.engine.navigateHumanTab(opened.tabId, rig.site.url('/form.html'))
    expect(moved).toMatchObject({ tabId: opened.tabId, url: rig.site.url('/form.html'), title: 'Forms', generation: 2 })
    expect((await refusal(rig.engine.navigateHumanTab(opened.tabId, 'file:///etc/passwd'))).code).toBe('INVALID_URL')
    expect(await rig.engine.closeHumanTab(opened.tabId)).toEqual({ tabId: opened.tabId, closed: true })
    expect(await rig.engine.listTabs()).toEqual([])
    expect((await refusal(rig.engine.closeHumanTab(opened.tabId))).code).toBe('TAB_NOT_FOUND')
  })

  test('the person\'s list holds every tab, the assistants\' with their principal; human-tab calls refuse AI tabs', async () => {
    const ai = await rig.engine.open('claude', rig.site.url('/index.html'))
    const human = await rig.engine.openHumanTab(rig.site.url('/form.html'))
    const listed = await rig.engine.listTabs()
    expect(listed).toEqual(expect.arrayContaining([
      { tabId: ai.tabId, automationMode: 'ai-sandbox', principal: 'claude', url: rig.site.url('/index.html'), title: 'Fixture home', loading: false, generation: 1, front: false },
      { tabId: human.tabId, automationMode: 'human', url: rig.site.url('/form.html'), title: 'Forms', loading: false, generation: 1, front: true },
    ]))
    expect(listed).toHaveLength(2)
    expect((await refusal(rig.engine.closeHumanTab(ai.tabId))).code).toBe('INVALID_ARGUMENT')
    expect((await refusal(rig.engine.navigateHumanTab(ai.tabId, rig.site.url('/')))).code).toBe('INVALID_ARGUMENT')
    // Human tabs are not the assistant's: they count neither in its tabs nor against its TAB_LIMIT.
    expect((await rig.engine.tabsOf('claude')).map((tab) => tab.tabId)).toEqual([ai.tabId])
    await rig.engine.close('claude', ai.tabId)
    await rig.engine.closeHumanTab(human.tabId)
  })
})

describe('popups', () => {
  test('a popup of the person\'s tab becomes another tab of theirs; an AI tab\'s popup is still closed (BR.ACT.15)', async () => {
    const human = await rig.engine.openHumanTab(rig.site.url('/popup.html'))
    let popup = (await rig.engine.listTabs()).find((tab) => tab.tabId !== human.tabId)
    for (let polls = 0; popup?.title !== 'How tides work | Fixture Gazette' && polls < 200; polls++) {
      await sleep(25)
      popup = (await rig.engine.listTabs()).find((tab) => tab.tabId !== human.tabId)
    }
    expect(popup).toMatchObject({ automationMode: 'human', url: rig.site.url('/article.html'), title: 'How tides work | Fixture Gazette', front: true })
    const ai = await rig.engine.open('claude', rig.site.url('/popup.html'))
    expect(rig.engine.takePopups('claude', ai.tabId)).toEqual([rig.site.url('/article.html')])
    expect((await rig.engine.listTabs()).map((tab) => tab.tabId).sort()).toEqual([human.tabId, popup!.tabId, ai.tabId].sort())
    await rig.engine.close('claude', ai.tabId)
    await rig.engine.closeHumanTab(popup!.tabId)
    await rig.engine.closeHumanTab(human.tabId)
  })
})

describe('BR.GEN.10, BRR.GEN.3 an AI principal reaches a human tab only through an attachment', () => {
  test('without one, every call on the human tab is TAB_NOT_AI_OWNED', async () => {
    const human = await rig.engine.openHumanTab(rig.site.url('/form.html'))
    const { tabId } = human
    for (const call of [
      () => rig.engine.read('claude', tabId),
      () => rig.engine.query('claude', tabId, 'h1'),
      () => rig.engine.screenshot('claude', tabId),
      () => rig.engine.extract('claude', tabId),
      () => rig.engine.tabState('claude', tabId),
      () => rig.engine.waitFor('claude', tabId, { text: 'Forms' }),
      () => rig.engine.takePopups('claude', tabId),
    ]) {
      expect((await refusal(call)).code).toBe('TAB_NOT_AI_OWNED')
    }
    await rig.engine.closeHumanTab(tabId)
  })

  test('inside attached(), reads reach it for that principal and tab only; after it, they are refused again', async () => {
    const human = await rig.engine.openHumanTab(rig.site.url('/form.html'))
    const other = await rig.engine.openHumanTab(rig.site.url('/index.html'))
    const read = await rig.engine.attached('claude', human.tabId, () => rig.engine.query('claude', human.tabId, 'h1'))
    expect(read.elements.map((element) => element.text)).toEqual(['Forms'])
    await rig.engine.attached('claude', human.tabId, async () => {
      // The attachment is for one principal and one tab.
      expect((await refusal(rig.engine.read('gemini', human.tabId))).code).toBe('TAB_NOT_AI_OWNED')
      expect((await refusal(rig.engine.read('claude', other.tabId))).code).toBe('TAB_NOT_AI_OWNED')
    })
    expect((await refusal(rig.engine.read('claude', human.tabId))).code).toBe('TAB_NOT_AI_OWNED')
    await rig.engine.closeHumanTab(human.tabId)
    await rig.engine.closeHumanTab(other.tabId)
  })

  test('BR.CLOSE.3, BR.NAVIGATE.1, BRR.CONSOLE.3 close, navigate, wait and console refuse a human tab even when attached', async () => {
    const human = await rig.engine.openHumanTab(rig.site.url('/form.html'))
    const { tabId } = human
    await rig.engine.attached('claude', tabId, async () => {
      for (const call of [
        () => rig.engine.close('claude', tabId),
        () => rig.engine.navigate('claude', tabId, rig.site.url('/')),
        () => rig.engine.wait('claude', tabId),
        () => rig.engine.console('claude', tabId),
      ]) {
        const error = await refusal(call)
        expect(error.code).toBe('TAB_NOT_AI_OWNED')
        expect(error.message).toMatch(/^TAB_NOT_AI_OWNED: /)
      }
    })
    expect((await rig.engine.listTabs()).map((tab) => tab.tabId)).toContain(tabId)
    await rig.engine.closeHumanTab(tabId)
  })

  test('an attachment is for human tabs that exist: an AI tab or a closed tab is refused', async () => {
    const ai = await rig.engine.open('claude', rig.site.url('/index.html'))
    expect((await refusal(rig.engine.attached('claude', ai.tabId, async () => undefined))).code).toBe('INVALID_ARGUMENT')
    expect((await refusal(rig.engine.attached('claude', 'tab-999', async () => undefined))).code).toBe('TAB_NOT_FOUND')
    // Another principal's AI tab stays missing, attachment or not.
    expect((await refusal(rig.engine.read('gemini', ai.tabId))).code).toBe('TAB_NOT_FOUND')
    await rig.engine.close('claude', ai.tabId)
  })
})

describe('foregroundTab: the tab a call without tabId means', () => {
  test('the principal\'s or the person\'s tab last brought to the front, never another principal\'s', async () => {
    expect(rig.engine.foregroundTab('claude')).toBeNull()
    const first = await rig.engine.open('claude', rig.site.url('/index.html'))
    const second = await rig.engine.open('claude', rig.site.url('/form.html'))
    expect(rig.engine.foregroundTab('claude')).toEqual({ tabId: second.tabId, automationMode: 'ai-sandbox' })
    await rig.engine.navigate('claude', first.tabId, rig.site.url('/later.html'))
    expect(rig.engine.foregroundTab('claude')).toEqual({ tabId: first.tabId, automationMode: 'ai-sandbox' })
    const theirs = await rig.engine.open('gemini', rig.site.url('/index.html'))
    expect(rig.engine.foregroundTab('claude')).toEqual({ tabId: first.tabId, automationMode: 'ai-sandbox' })
    expect(rig.engine.foregroundTab('gemini')).toEqual({ tabId: theirs.tabId, automationMode: 'ai-sandbox' })
    // The person brings a tab of theirs forward: it is the foreground, and reading it still needs an attachment.
    const human = await rig.engine.openHumanTab(rig.site.url('/form.html'))
    expect(rig.engine.foregroundTab('claude')).toEqual({ tabId: human.tabId, automationMode: 'human' })
    await rig.engine.bringToFront(second.tabId)
    expect(rig.engine.foregroundTab('claude')).toEqual({ tabId: second.tabId, automationMode: 'ai-sandbox' })
    expect(rig.engine.foregroundTab('gemini')).toEqual({ tabId: human.tabId, automationMode: 'human' })
    await rig.engine.closeHumanTab(human.tabId)
    for (const tab of [first, second]) await rig.engine.close('claude', tab.tabId)
    await rig.engine.close('gemini', theirs.tabId)
  })
})
