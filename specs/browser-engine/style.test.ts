import { afterEach, describe, expect, test } from 'vitest'
import { MAX_CSS_BYTES, type StyleChange, type StyleTarget } from '../../adapters/browser/pageStyle.js'
import { useEngine, refusal } from './support/engineRig.js'

const rig = useEngine()
const WHO = 'stylist'

afterEach(async () => {
  for (const tab of await rig.engine.tabsOf(WHO)) await rig.engine.close(WHO, tab.tabId)
})

async function tabAt(path: string): Promise<string> {
  return (await rig.engine.open(WHO, rig.site.url(path))).tabId
}

async function computed(tabId: string, selector: string, property: string): Promise<string[]> {
  return (await rig.engine.query(WHO, tabId, selector, { styles: [property] })).elements.map((element) => element.styles![property]!)
}

async function classesOf(tabId: string, selector: string): Promise<string[]> {
  return (await rig.engine.query(WHO, tabId, selector, { attributes: true })).elements.map((element) => element.attributes!.class ?? '')
}

describe('BR.STYLE.1 one target and exactly one change', () => {
  test('set writes inline declarations on every element a selector matches, camelCase and !important included', async () => {
    const tabId = await tabAt('/act-script.html?s=1')
    const done = await rig.engine.style(WHO, tabId, { selector: '.note', set: { backgroundColor: 'rgb(1, 2, 3)', 'font-weight': '700 !important' } })
    expect(done).toEqual({ changed: 'set', elements: 2, url: rig.site.url('/act-script.html'), generation: 1 })
    expect(await computed(tabId, '.note', 'background-color')).toEqual(['rgb(1, 2, 3)', 'rgb(1, 2, 3)'])
    expect(await computed(tabId, '.note', 'font-weight')).toEqual(['700', '700'])
    expect(await computed(tabId, '#greeting', 'background-color')).toEqual(['rgba(0, 0, 0, 0)'])
  })

  test('a ref names one element; the target and the change may come as two arguments', async () => {
    const tabId = await tabAt('/act-script.html')
    const [greeting] = (await rig.engine.query(WHO, tabId, '#greeting')).elements
    const done = await rig.engine.style(WHO, tabId, { ref: greeting!.ref }, { addClasses: ['wide', 'marked'] })
    expect(done.elements).toBe(1)
    expect(await classesOf(tabId, '#greeting')).toEqual(['box wide marked'])
    expect(await computed(tabId, '#greeting', 'width')).toEqual(['200px'])
    await rig.engine.style(WHO, tabId, { ref: greeting!.ref, removeClasses: ['box', 'marked'] })
    expect(await classesOf(tabId, '#greeting')).toEqual(['wide'])
  })

  test('injectCss adds one sheet to the document, or to the shadow root its target lives in', async () => {
    const tabId = await tabAt('/act-script.html')
    const inDocument = await rig.engine.style(WHO, tabId, { selector: 'h1', injectCss: 'p.note, .inner { color: rgb(9, 8, 7) }' })
    expect(inDocument).toMatchObject({ changed: 'injectCss', elements: 1 })
    expect(await computed(tabId, '.note', 'color')).toEqual(['rgb(9, 8, 7)', 'rgb(9, 8, 7)'])
    const innerColour = "return getComputedStyle(document.querySelector('styled-card').shadowRoot.querySelector('.inner')).color"
    // A document sheet does not reach into a shadow tree.
    expect((await rig.engine.executeJs(WHO, tabId, innerColour)).result).not.toBe('rgb(9, 8, 7)')
    const card = (await rig.engine.read(WHO, tabId)).snapshot.find((node) => node.role === 'button' && node.name === 'Card')
    await rig.engine.style(WHO, tabId, { ref: card!.ref, injectCss: '.inner { color: rgb(4, 5, 6) }' })
    expect((await rig.engine.executeJs(WHO, tabId, innerColour)).result).toBe('rgb(4, 5, 6)')
  })

  test('no target, two targets, no change or two changes are INVALID_ARGUMENT, and nothing changes', async () => {
    const tabId = await tabAt('/act-script.html')
    const [greeting] = (await rig.engine.query(WHO, tabId, '#greeting')).elements
    const bad: unknown[] = [
      { set: { color: 'red' } },
      { ref: greeting!.ref, selector: 'p', set: { color: 'red' } },
      { selector: 'p' },
      { selector: 'p', set: { color: 'red' }, addClasses: ['x'] },
      { selector: 'p', addClasses: [] },
      { selector: 'p', addClasses: ['two words'] },
      { selector: 'p', set: {} },
      { selector: 'p', colour: 'red' },
      { selector: 'p', injectCss: 'p{}'.padEnd(MAX_CSS_BYTES + 1, ' ') },
    ]
    for (const request of bad) {
      expect((await refusal(rig.engine.style(WHO, tabId, request as StyleTarget & StyleChange))).code, JSON.stringify(request).slice(0, 80)).toBe('INVALID_ARGUMENT')
    }
    expect(await computed(tabId, 'p', 'color')).toEqual(['rgb(0, 0, 0)', 'rgb(0, 0, 0)', 'rgb(0, 0, 0)'])
    expect(await classesOf(tabId, '#greeting')).toEqual(['box'])
  })

  test('a value the CSS engine does not take is INVALID_STYLE and no declaration is applied; a bad selector is INVALID_SELECTOR', async () => {
    const tabId = await tabAt('/act-script.html')
    const error = await refusal(rig.engine.style(WHO, tabId, { selector: 'p', set: { color: 'blue', width: 'very wide' } }))
    expect(error.code).toBe('INVALID_STYLE')
    expect(error.message).toContain('width: very wide')
    expect(await computed(tabId, '#greeting', 'color')).toEqual(['rgb(0, 0, 0)'])
    expect((await refusal(rig.engine.style(WHO, tabId, { selector: 'p[', set: { color: 'blue' } }))).code).toBe('INVALID_SELECTOR')
  })
})

describe('BR.STYLE.3 style runs in the isolated world', () => {
  test("a page that replaced the DOM's style methods in its own world neither sees nor stops the change", async () => {
    const tabId = await tabAt('/act-script.html?sabotage=1')
    await rig.engine.style(WHO, tabId, { selector: '#greeting', addClasses: ['wide'] })
    await rig.engine.style(WHO, tabId, { selector: '#greeting', removeClasses: ['box'] })
    await rig.engine.style(WHO, tabId, { selector: '#greeting', set: { color: 'rgb(7, 7, 7)' } })
    await rig.engine.style(WHO, tabId, { selector: 'h1', injectCss: 'h1 { color: rgb(6, 6, 6) }' })
    expect(await classesOf(tabId, '#greeting')).toEqual(['wide'])
    expect(await computed(tabId, '#greeting', 'color')).toEqual(['rgb(7, 7, 7)'])
    expect(await computed(tabId, 'h1', 'color')).toEqual(['rgb(6, 6, 6)'])
    expect((await rig.engine.tabState(WHO, tabId)).title).toBe('Script page')
    // The page's own world is broken indeed: its handler calling classList.add hits the replacement.
    await rig.engine.act(WHO, tabId, { operation: 'click', role: 'button', name: "Use the page's own methods" })
    expect((await rig.engine.tabState(WHO, tabId)).title).toBe('sabotaged')
  })
})
