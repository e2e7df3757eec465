import { describe, expect, test } from 'vitest'
import { READ_NAME_CAP, READ_NODE_CAP } from '../../adapters/browser/engine.js'
import { useEngine, refusal } from './support/engineRig.js'

const rig = useEngine()

async function readPage(path: string) {
  const { tabId } = await rig.engine.open('reader', rig.site.url(path))
  return { tabId, read: await rig.engine.read('reader', tabId) }
}

describe('BRR.READ.1 and BRR.READ.2 an ARIA-oriented list of {role, name, ref}', () => {
  test('headings, links, landmarks and images in document order; hidden and presentational things left out', async () => {
    const { read } = await readPage('/index.html?secret=1')
    expect(read.url).toBe(rig.site.url('/index.html'))
    expect(read.truncated).toBeUndefined()
    expect(read.unreachable).toBeUndefined()
    expect(read.snapshot.map(({ ref: _ref, ...node }) => node)).toEqual([
      { role: 'navigation', name: 'Site' },
      { role: 'link', name: 'Forms' },
      { role: 'link', name: 'Article' },
      { role: 'main', name: '' },
      { role: 'heading', name: 'Fixture home', level: 1 },
      { role: 'heading', name: 'Second level', level: 2 },
      { role: 'heading', name: 'Explicit level four', level: 4 },
      { role: 'button', name: 'Inside presentation' },
      { role: 'img', name: 'A pixel' },
      { role: 'button', name: 'Visible again' },
    ])
    for (const node of read.snapshot) expect(node.ref).toMatch(/^e\d+g1$/)
  })
})

describe('BRR.READ.3 level, checked, disabled and upload', () => {
  test('form controls carry their state, read from live properties', async () => {
    const { read } = await readPage('/form.html')
    const byName = new Map(read.snapshot.map((node) => [node.name, node]))
    expect(byName.get('Forms')).toMatchObject({ role: 'heading', level: 1 })
    expect(byName.get('Your name')).toMatchObject({ role: 'textbox' })
    expect(byName.get('Password')).toMatchObject({ role: 'textbox' })
    expect(byName.get('Search the site')).toMatchObject({ role: 'searchbox' })
    expect(byName.get('Colour')).toMatchObject({ role: 'combobox' })
    expect(byName.get('Toppings')).toMatchObject({ role: 'listbox' })
    expect(byName.get('Notes')).toMatchObject({ role: 'textbox' })
    expect(byName.get('Subscribe')).toMatchObject({ role: 'checkbox', checked: true })
    expect(byName.get('Small')).toMatchObject({ role: 'radio', checked: false })
    expect(byName.get('Mixed')).toMatchObject({ role: 'checkbox', checked: 'mixed' })
    expect(byName.get('Curriculum')).toMatchObject({ role: 'button', upload: true })
    expect(byName.get('Send')).toMatchObject({ role: 'button' })
    expect(byName.get('Send')?.disabled).toBeUndefined()
    for (const name of ['Disabled button', 'Aria disabled', 'In disabled fieldset']) expect(byName.get(name)).toMatchObject({ disabled: true })
    // One of the two "Save" buttons is display:none: only the rendered one is in the tree.
    expect(read.snapshot.filter((node) => node.name === 'Save')).toHaveLength(1)
    // The covered button is in the tree: occlusion is for act to find out, not for the read.
    expect(byName.get('Covered')).toMatchObject({ role: 'button' })
    expect(read.snapshot.some((node) => node.name === 'x' || node.name === 'secret')).toBe(false)
  })
})

describe('BRR.READ.4 refs are stable for the document and bound to its generation', () => {
  test('two reads of one document hand out the same refs, and a query names the same elements by them', async () => {
    const { tabId, read } = await readPage('/form.html')
    const again = await rig.engine.read('reader', tabId)
    expect(again.snapshot).toEqual(read.snapshot)
    const queried = await rig.engine.query('reader', tabId, 'button')
    const buttonRefs = new Map(read.snapshot.filter((node) => node.role === 'button').map((node) => [node.name, node.ref]))
    expect(queried.elements.find((element) => element.text === 'Covered')?.ref).toBe(buttonRefs.get('Covered'))
  })

  test('after a navigation, a ref of the older generation is refused, and the new read hands out new ones', async () => {
    const { tabId, read } = await readPage('/index.html')
    const oldRef = read.snapshot[0]!.ref
    expect(await rig.engine.describeRef('reader', tabId, oldRef)).toEqual({ role: 'navigation', name: 'Site', tag: 'nav' })
    await rig.engine.navigate('reader', tabId, rig.site.url('/index.html'))
    const refused = await refusal(rig.engine.describeRef('reader', tabId, oldRef))
    expect(refused.code).toBe('STALE_REF')
    const fresh = await rig.engine.read('reader', tabId)
    expect(fresh.generation).toBe(read.generation + 1)
    expect(fresh.snapshot[0]!.ref).not.toBe(oldRef)
    expect(await rig.engine.describeRef('reader', tabId, fresh.snapshot[0]!.ref)).toMatchObject({ role: 'navigation' })
    expect((await refusal(rig.engine.describeRef('reader', tabId, 'button.primary'))).code).toBe('INVALID_ARGUMENT')
  })
})

describe('BRR.READ.5 and BRR.READ.6 shadow roots and frames', () => {
  test('open shadow roots and same-origin frames are entered; closed roots and cross-origin frames are counted', async () => {
    const { read } = await readPage('/shadow.html')
    const names = read.snapshot.map((node) => node.name)
    expect(names).toContain('Open shadow button')
    expect(names).toContain('Deep link')
    expect(names).toContain('Button in a frame')
    expect(names).not.toContain('Closed shadow button')
    // Two closed roots, one cross-origin frame.
    expect(read.unreachable).toBe(3)
  })
})

describe('BRR.READ.7 the 2,000-node and 200-character caps', () => {
  test('a page with more nodes than the cap is cut at 2,000 and says truncated', async () => {
    const { read } = await readPage('/many?n=2500')
    expect(read.snapshot).toHaveLength(READ_NODE_CAP)
    expect(read.snapshot.at(-1)?.name).toBe(`Button ${READ_NODE_CAP - 1}`)
    expect(read.truncated).toBe(true)
  })

  test('a name longer than 200 characters is cut and the read says truncated', async () => {
    const { read } = await readPage('/form.html')
    const long = read.snapshot.find((node) => node.name.startsWith('LLL'))
    expect(long?.name).toBe('L'.repeat(READ_NAME_CAP))
    expect(read.truncated).toBe(true)
  })
})

describe('BRR.GEN.2 reading writes nothing to the page and leaves nothing in its world', () => {
  test('read, query and extract cause no DOM mutation, and the page cannot see the engine helpers', async () => {
    const { tabId } = await readPage('/observed.html')
    await rig.engine.read('reader', tabId)
    await rig.engine.query('reader', tabId, 'button, input', { attributes: true, box: true, styles: ['color'] })
    await rig.engine.extract('reader', tabId)
    await rig.engine.screenshot('reader', tabId)
    const tickOf = (title: string): number => Number(/^tick (\d+)/.exec(title)?.[1] ?? -1)
    const after = tickOf((await rig.engine.tabState('reader', tabId)).title)
    let title = ''
    await expect.poll(async () => tickOf((title = (await rig.engine.tabState('reader', tabId)).title)), { timeout: 20_000 }).toBeGreaterThan(after)
    expect(title).toMatch(/ mutations 0 agent undefined$/)
  })
})
