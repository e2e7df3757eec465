import { afterEach, describe, expect, test } from 'vitest'
import { MAX_SCRIPT_BYTES } from '../../adapters/browser/executeJs.js'
import { useEngine, refusal } from './support/engineRig.js'

const rig = useEngine()
const WHO = 'scripter'

afterEach(async () => {
  for (const tab of await rig.engine.tabsOf(WHO)) await rig.engine.close(WHO, tab.tabId)
})

async function tabAt(path: string): Promise<string> {
  return (await rig.engine.open(WHO, rig.site.url(path))).tabId
}

describe('BR.EXECUTE_JS.1 the script runs in an isolated world', () => {
  test("it reads and changes the DOM but sees none of the page's globals", async () => {
    const tabId = await tabAt('/act-script.html?key=k')
    const run = await rig.engine.executeJs(WHO, tabId, `
      const greeting = document.getElementById('greeting')
      greeting.textContent = 'Changed by the script'
      return { secret: typeof window.secret, title: document.title, agent: typeof __quireAgent }`)
    expect(run).toEqual({ result: { secret: 'undefined', title: 'Script page', agent: 'undefined' }, url: rig.site.url('/act-script.html'), generation: 1 })
    expect((await rig.engine.query(WHO, tabId, '#greeting')).elements[0]!.text).toBe('Changed by the script')
    // The page's own world has its global: the script just could not see it.
    const [greeting] = (await rig.engine.query(WHO, tabId, '#greeting', { attributes: true })).elements
    expect(greeting!.attributes!['data-page-sees']).toBe('string')
  })

  test('what one script leaves in its world is gone for the next, and the ref store cannot be replaced', async () => {
    const tabId = await tabAt('/act-script.html')
    await rig.engine.executeJs(WHO, tabId, `
      globalThis.planted = 'mine'
      globalThis.__quireAgent = { query: () => ({ count: 99, elements: [] }) }
      return null`)
    expect((await rig.engine.executeJs(WHO, tabId, 'return [typeof planted, typeof __quireAgent]')).result).toEqual(['undefined', 'undefined'])
    const notes = await rig.engine.query(WHO, tabId, '.note')
    expect(notes.count).toBe(2)
    expect(notes.elements.map((element) => element.text)).toEqual(['One', 'Two'])
  })
})

describe('BR.EXECUTE_JS.2 the value comes back as result', () => {
  test('JSON values, awaited promises, and undefined as null', async () => {
    const tabId = await tabAt('/act-script.html')
    expect((await rig.engine.executeJs(WHO, tabId, 'return 42')).result).toBe(42)
    expect((await rig.engine.executeJs(WHO, tabId, "return await new Promise((resolve) => setTimeout(() => resolve({ a: [1, 'two', null] }), 10))")).result)
      .toEqual({ a: [1, 'two', null] })
    expect((await rig.engine.executeJs(WHO, tabId, 'document.title')).result).toBeNull()
    expect((await rig.engine.executeJs(WHO, tabId, 'return undefined')).result).toBeNull()
    expect((await rig.engine.executeJs(WHO, tabId, 'return document.querySelectorAll("p").length // counted')).result).toBe(3)
  })
})

describe('BR.EXECUTE_JS.3 a throw or a value JSON cannot encode is a failure, never a result', () => {
  test('SCRIPT_ERROR names the error', async () => {
    const tabId = await tabAt('/act-script.html')
    const thrown = await refusal(rig.engine.executeJs(WHO, tabId, "throw new TypeError('not today')"))
    expect(thrown.code).toBe('SCRIPT_ERROR')
    expect(thrown.message).toBe('SCRIPT_ERROR: TypeError: not today')
    expect(thrown.data).toEqual({ url: rig.site.url('/act-script.html'), generation: 1 })
    const rejected = await refusal(rig.engine.executeJs(WHO, tabId, "await Promise.reject(new RangeError('later'))"))
    expect(rejected.message).toBe('SCRIPT_ERROR: RangeError: later')
    const syntax = await refusal(rig.engine.executeJs(WHO, tabId, 'return ((('))
    expect(syntax.code).toBe('SCRIPT_ERROR')
    expect(syntax.message).toContain('SyntaxError')
  })

  test('functions, symbols, cycles and BigInts are refused', async () => {
    const tabId = await tabAt('/act-script.html')
    for (const script of ['return () => 1', "return Symbol('s')", 'const a = {}; a.self = a; return a', 'return 10n']) {
      const error = await refusal(rig.engine.executeJs(WHO, tabId, script))
      expect(error.code, script).toBe('SCRIPT_ERROR')
      expect(error.message, script).toContain('cannot be returned as JSON')
    }
  })
})

describe('BR.GEN.6 EVAL_TIMEOUT is indeterminate', () => {
  test('a script that never settles, and one that never yields (at once or after an await), time out; the tab still answers afterwards', async () => {
    const tabId = await tabAt('/act-script.html')
    for (const script of ['await new Promise(() => {})', 'while (true) {}', 'await null; while (true) {}']) {
      const error = await refusal(rig.engine.executeJs(WHO, tabId, script, { timeoutMs: 300 }))
      expect(error.code, script).toBe('EVAL_TIMEOUT')
      expect(error.data, script).toMatchObject({ detail: { indeterminate: true } })
    }
    expect((await rig.engine.executeJs(WHO, tabId, 'return document.title')).result).toBe('Script page')
  })
})

describe('execute_js limits', () => {
  test('a script over 65,536 UTF-8 bytes, an empty one, or a timeout out of range is INVALID_ARGUMENT', async () => {
    const tabId = await tabAt('/act-script.html')
    // 'é' is two bytes: this script is within the character count but over the byte count.
    const overBytes = `return 1 // ${'é'.repeat(MAX_SCRIPT_BYTES / 2)}`
    expect((await refusal(rig.engine.executeJs(WHO, tabId, overBytes))).code).toBe('INVALID_ARGUMENT')
    const atLimit = `return 1 //${'x'.repeat(MAX_SCRIPT_BYTES - 'return 1 //'.length)}`
    expect((await rig.engine.executeJs(WHO, tabId, atLimit)).result).toBe(1)
    expect((await refusal(rig.engine.executeJs(WHO, tabId, '  '))).code).toBe('INVALID_ARGUMENT')
    expect((await refusal(rig.engine.executeJs(WHO, tabId, 'return 1', { timeoutMs: 9_001 }))).code).toBe('INVALID_ARGUMENT')
  })
})
