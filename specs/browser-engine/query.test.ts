import { describe, expect, test } from 'vitest'
import { BrowserError } from '../../adapters/browser/errors.js'
import { QUERY_ELEMENT_CAP, QUERY_TEXT_CAP, SCREENSHOT_MAX_QUALITY } from '../../adapters/browser/engine.js'
import { useEngine } from './support/engineRig.js'

const rig = useEngine()

async function tabAt(path: string): Promise<string> {
  return (await rig.engine.open('querier', rig.site.url(path))).tabId
}

describe('BRR.QUERY.1 to BRR.QUERY.4 query', () => {
  test('each element carries ref, tag and text, plus the fields asked for', async () => {
    const tabId = await tabAt('/form.html?x=1')
    const result = await rig.engine.query('querier', tabId, 'h1', { attributes: true, box: true, styles: ['display', 'font-weight'] })
    expect(result.url).toBe(rig.site.url('/form.html'))
    expect(result.count).toBe(1)
    expect(result.truncated).toBeUndefined()
    const [heading] = result.elements
    expect(heading).toMatchObject({ ref: expect.stringMatching(/^e\d+g1$/), tag: 'h1', text: 'Forms', attributes: {}, styles: { display: 'block', 'font-weight': '700' } })
    expect(heading!.box!.width).toBeGreaterThan(0)
    expect(heading!.box!.height).toBeGreaterThan(0)
    const bare = await rig.engine.query('querier', tabId, '#name')
    expect(bare.elements).toEqual([{ ref: expect.any(String), tag: 'input', text: '' }])
    const withAttributes = await rig.engine.query('querier', tabId, '#name', { attributes: true })
    expect(withAttributes.elements[0]!.attributes).toEqual({ id: 'name', type: 'text', placeholder: 'Jane' })
  })

  test('at most 50 elements come back; count tells how many matched and truncated says some were left out', async () => {
    const tabId = await tabAt('/many?n=120')
    const result = await rig.engine.query('querier', tabId, 'button')
    expect(result.count).toBe(120)
    expect(result.elements).toHaveLength(QUERY_ELEMENT_CAP)
    expect(result.elements.at(-1)!.text).toBe(`Button ${QUERY_ELEMENT_CAP - 1}`)
    expect(result.truncated).toBe(true)
  })

  test("an element's text is capped at 500 characters", async () => {
    const tabId = await tabAt('/article.html')
    const [article] = (await rig.engine.query('querier', tabId, 'article')).elements
    expect(article!.text).toHaveLength(QUERY_TEXT_CAP)
    expect(article!.text.startsWith('How tides work')).toBe(true)
  })

  test('a selector the page cannot parse is refused with INVALID_SELECTOR', async () => {
    const tabId = await tabAt('/index.html')
    const error = await rig.engine.query('querier', tabId, 'button[').catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(BrowserError)
    expect((error as BrowserError).code).toBe('INVALID_SELECTOR')
  })
})

describe('BRR.SCREENSHOT.1 screenshot', () => {
  test('a JPEG of the rendering, with the page it shows, at a capped quality', async () => {
    const tabId = await tabAt('/index.html?secret=1')
    const shot = await rig.engine.screenshot('querier', tabId)
    expect(shot.url).toBe(rig.site.url('/index.html'))
    expect(shot.title).toBe('Fixture home')
    const bytes = Buffer.from(shot.jpegBase64, 'base64')
    expect([...bytes.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff])
    expect(bytes.length).toBeGreaterThan(1_000)
    // Asking for more than the cap gets the cap: the same rendering, byte for byte.
    const atCap = await rig.engine.screenshot('querier', tabId, { quality: SCREENSHOT_MAX_QUALITY })
    const overCap = await rig.engine.screenshot('querier', tabId, { quality: 100 })
    expect(overCap.jpegBase64).toBe(atCap.jpegBase64)
    const low = await rig.engine.screenshot('querier', tabId, { quality: 5 })
    expect(Buffer.from(low.jpegBase64, 'base64').length).toBeLessThan(Buffer.from(atCap.jpegBase64, 'base64').length)
  })
})
