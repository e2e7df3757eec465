import { afterEach, describe, expect, test } from 'vitest'
import type { ActRefusalData, ActRequest } from '../../adapters/browser/act.js'
import { BrowserError } from '../../adapters/browser/errors.js'
import { useEngine, refusal } from './support/engineRig.js'

const rig = useEngine()
const WHO = 'actor'

afterEach(async () => {
  for (const tab of await rig.engine.tabsOf(WHO)) await rig.engine.close(WHO, tab.tabId)
})

async function tabAt(path: string): Promise<string> {
  return (await rig.engine.open(WHO, rig.site.url(path))).tabId
}

/** What the fixture page's own handlers wrote down, in order. */
async function logOf(tabId: string): Promise<string[]> {
  const [log] = (await rig.engine.query(WHO, tabId, '#log')).elements
  return log!.text.split(' ').filter(Boolean)
}

async function refOf(tabId: string, selector: string): Promise<string> {
  const [element] = (await rig.engine.query(WHO, tabId, selector)).elements
  if (!element) throw new Error(`nothing matches ${selector}`)
  return element.ref
}

async function actRefused(tabId: string, request: ActRequest): Promise<{ error: BrowserError; data: ActRefusalData }> {
  const error = await refusal(rig.engine.act(WHO, tabId, request))
  expect(error.code).toBe('ACT_REFUSED')
  return { error, data: error.data as unknown as ActRefusalData }
}

describe('BR.ACT.1 and BR.ACT.2 the request', () => {
  test('an unknown operation, no target, two targets, half a role target or a field of another operation is INVALID_ARGUMENT', async () => {
    const tabId = await tabAt('/act-click.html')
    const bad: unknown[] = [
      { operation: 'hover', role: 'button', name: 'Save' },
      { operation: 'click' },
      { operation: 'click', ref: 'e1g1', role: 'button', name: 'Save' },
      { operation: 'click', target: { role: 'button', name: 'Save' }, ref: 'e1g1' },
      { operation: 'click', role: 'button' },
      { operation: 'click', name: 'Save' },
      { operation: 'click', role: 'button', name: 'Save', text: 'x' },
      { operation: 'type', role: 'textbox', name: 'Full name' },
      { operation: 'scroll' },
      { operation: 'scroll', dy: 10, ref: 'e1g1' },
      { operation: 'scroll', dy: Number.NaN },
      { operation: 'key' },
      { operation: 'key', key: 'Hyper' },
      { operation: 'key', key: 'a', modifiers: { super: true } },
    ]
    for (const request of bad) {
      const error = await refusal(rig.engine.act(WHO, tabId, request as ActRequest))
      expect(error.code, JSON.stringify(request)).toBe('INVALID_ARGUMENT')
    }
    expect(await logOf(tabId)).toEqual([])
  })

  test('the target may come flat or as target: both click the same button', async () => {
    const tabId = await tabAt('/act-click.html')
    await rig.engine.act(WHO, tabId, { operation: 'click', role: 'button', name: 'Save' })
    await rig.engine.act(WHO, tabId, { operation: 'click', target: { role: 'button', name: 'Save' } })
    expect(await logOf(tabId)).toEqual(['save', 'save'])
  })
})

describe('BR.ACT.8, BR.ACT.14 and BR.ACT.19 a click', () => {
  test('clicks the one visible match and reports its role and name, the counts, the redacted url and the generation', async () => {
    const tabId = await tabAt('/act-click.html?session=s3cret')
    const done = await rig.engine.act(WHO, tabId, { operation: 'click', role: 'button', name: 'Save' })
    expect(done).toEqual({
      ok: true, operation: 'click', matchedTotal: 5, matchedVisible: 1, url: rig.site.url('/act-click.html'), generation: 1,
      target: { ref: expect.stringMatching(/^e\d+g1$/), role: 'button', name: 'Save' }, defaultPrevented: false,
    })
    expect(await logOf(tabId)).toEqual(['save'])
    expect(done.target!.ref).toBe(await refOf(tabId, '#save'))
  })

  test('a ref target is resolved to its role and name; a checkbox click toggles it as a person would', async () => {
    const tabId = await tabAt('/act-click.html')
    const ref = await refOf(tabId, '#agree')
    const done = await rig.engine.act(WHO, tabId, { operation: 'click', ref })
    expect(done).toMatchObject({ matchedTotal: 1, matchedVisible: 1, target: { ref, role: 'checkbox', name: 'Agree' } })
    expect(await logOf(tabId)).toEqual(['agree:true'])
  })

  test('a ref of an earlier generation is STALE_REF; a ref whose element left is REF_NOT_FOUND', async () => {
    const tabId = await tabAt('/act-click.html')
    const ref = await refOf(tabId, '#save')
    await rig.engine.navigate(WHO, tabId, rig.site.url('/act-click.html?again=1'))
    const stale = await refusal(rig.engine.act(WHO, tabId, { operation: 'click', ref }))
    expect(stale.code).toBe('STALE_REF')
    expect(stale.data).toEqual({ matchedTotal: 0, matchedVisible: 0, url: rig.site.url('/act-click.html'), generation: 2 })
    const fresh = await refOf(tabId, '#save')
    await rig.engine.executeJs(WHO, tabId, "document.getElementById('save').remove()")
    expect((await refusal(rig.engine.act(WHO, tabId, { operation: 'click', ref: fresh }))).code).toBe('REF_NOT_FOUND')
    expect(await logOf(tabId)).toEqual([])
  })
})

describe('BR.ACT.8 a click that navigates', () => {
  test('a link click follows the link once; the answer still reports the page it acted on', async () => {
    const tabId = await tabAt('/act-click.html')
    const done = await rig.engine.act(WHO, tabId, { operation: 'click', role: 'link', name: 'Onward' })
    expect(done).toMatchObject({ ok: true, target: { role: 'link', name: 'Onward' }, matchedTotal: 1, matchedVisible: 1 })
    await expect.poll(async () => (await rig.engine.tabState(WHO, tabId)).url, { timeout: 20_000 }).toBe(rig.site.url('/later.html'))
    await expect.poll(async () => (await rig.engine.tabState(WHO, tabId)).loading, { timeout: 20_000 }).toBe(false)
    const navigations = rig.events.filter((event) => event.type === 'tab-navigated' && 'tabId' in event && event.tabId === tabId)
    expect(navigations).toHaveLength(2)
  })
})

describe('BR.ACT.9 only visibly rendered elements are targets', () => {
  test('display:none, visibility:hidden, a transparent ancestor and a collapsed ancestor are skipped, not clicked', async () => {
    const tabId = await tabAt('/act-click.html')
    for (const id of ['save-none', 'save-invisible', 'save-faded', 'save-collapsed']) {
      const ref = await refOf(tabId, `#${id}`)
      const { data, error } = await actRefused(tabId, { operation: 'click', ref })
      expect(data, id).toMatchObject({ reason: 'hidden', matchedTotal: 1, matchedVisible: 0, generation: 1 })
      expect(error.message).toContain('not visibly rendered')
    }
    expect(await logOf(tabId)).toEqual([])
  })

  test('a checkbox drawn by its label, the input itself transparent, is clicked through the label as a person would', async () => {
    const tabId = await tabAt('/act-click.html')
    const done = await rig.engine.act(WHO, tabId, { operation: 'click', role: 'checkbox', name: 'Remember me' })
    expect(done).toMatchObject({ matchedTotal: 1, matchedVisible: 1, target: { ref: await refOf(tabId, '#remember'), role: 'checkbox', name: 'Remember me' } })
    expect(await logOf(tabId)).toEqual(['remember:true'])
  })

  test('no element of that role and name at all is hidden with matchedTotal 0', async () => {
    const tabId = await tabAt('/act-click.html')
    const { data, error } = await actRefused(tabId, { operation: 'click', role: 'button', name: 'Nothing like this' })
    expect(data).toMatchObject({ reason: 'hidden', matchedTotal: 0, matchedVisible: 0, url: rig.site.url('/act-click.html'), generation: 1 })
    expect(error.message).toBe('ACT_REFUSED: no button named "Nothing like this" is on the page')
  })

  test('the name is matched exactly, within the role', async () => {
    const tabId = await tabAt('/act-click.html')
    expect((await actRefused(tabId, { operation: 'click', role: 'button', name: 'save' })).data.matchedTotal).toBe(0)
    expect((await actRefused(tabId, { operation: 'click', role: 'button', name: 'Sav' })).data.matchedTotal).toBe(0)
    expect((await actRefused(tabId, { operation: 'click', role: 'link', name: 'Save' })).data.matchedTotal).toBe(0)
    expect(await logOf(tabId)).toEqual([])
  })
})

describe('BR.ACT.10 the click point is hit-tested', () => {
  test('a covered button is refused naming the element over it, and is not clicked', async () => {
    const tabId = await tabAt('/act-click.html')
    const { data, error } = await actRefused(tabId, { operation: 'click', role: 'button', name: 'Covered' })
    expect(error.message).toBe('ACT_REFUSED: covered by div.cmp-overlay')
    expect(data).toMatchObject({ reason: 'obscured', by: 'div.cmp-overlay', matchedTotal: 1, matchedVisible: 1, target: { role: 'button', name: 'Covered' } })
    expect(await logOf(tabId)).toEqual([])
    // Once the overlay is gone the same click goes through.
    await rig.engine.style(WHO, tabId, { selector: '.cmp-overlay', set: { display: 'none' } })
    await rig.engine.act(WHO, tabId, { operation: 'click', role: 'button', name: 'Covered' })
    expect(await logOf(tabId)).toEqual(['covered'])
  })

  test('a button far down the page is scrolled into view first and clicked', async () => {
    const tabId = await tabAt('/act-click.html')
    await rig.engine.act(WHO, tabId, { operation: 'click', role: 'button', name: 'Far away' })
    expect(await logOf(tabId)).toEqual(['far'])
    const [far] = (await rig.engine.query(WHO, tabId, '#far', { box: true })).elements
    expect(far!.box!.y).toBeGreaterThanOrEqual(0)
    expect(far!.box!.y).toBeLessThan(800)
  })

  test('a button no scrolling can bring into the viewport is offscreen', async () => {
    const tabId = await tabAt('/act-click.html')
    const { data } = await actRefused(tabId, { operation: 'click', role: 'button', name: 'Outside' })
    expect(data).toMatchObject({ reason: 'offscreen', matchedTotal: 1, matchedVisible: 1 })
    expect(await logOf(tabId)).toEqual([])
  })
})

describe('BR.ACT.11 several visible matches are ambiguous', () => {
  test('refused with every visible candidate and the text around it, and nothing clicked', async () => {
    const tabId = await tabAt('/act-click.html')
    const { data, error } = await actRefused(tabId, { operation: 'click', role: 'button', name: 'Delete' })
    expect(data).toMatchObject({ reason: 'ambiguous', matchedTotal: 2, matchedVisible: 2 })
    expect(data.candidates).toEqual([
      { ref: await refOf(tabId, '#delete-1'), text: 'Row one\nDelete'.replace('\n', ' ') },
      { ref: await refOf(tabId, '#delete-2'), text: 'Row two Delete' },
    ])
    expect(error.message).toContain('candidates')
    expect(await logOf(tabId)).toEqual([])
    // A candidate's ref picks exactly that one.
    await rig.engine.act(WHO, tabId, { operation: 'click', ref: data.candidates![1]!.ref })
    expect(await logOf(tabId)).toEqual(['delete-2'])
  })
})

describe('BR.ACT.12 disabled targets and file inputs', () => {
  test('a disabled button, a pointer-events:none button and a button in an inert subtree are disabled', async () => {
    const tabId = await tabAt('/act-click.html')
    const archive = await actRefused(tabId, { operation: 'click', role: 'button', name: 'Archive' })
    expect(archive.data.reason).toBe('disabled')
    expect(archive.data.detail).toBeUndefined()
    const ghost = await actRefused(tabId, { operation: 'click', role: 'button', name: 'Ghost' })
    expect(ghost.data).toMatchObject({ reason: 'disabled', detail: 'pointer-events' })
    const frozen = await actRefused(tabId, { operation: 'click', role: 'button', name: 'Frozen' })
    expect(frozen.data).toMatchObject({ reason: 'disabled', detail: 'inert', matchedTotal: 1, matchedVisible: 1 })
    expect(await logOf(tabId)).toEqual([])
  })

  test('a file input is never clicked or typed into: upload (BR.GEN.8)', async () => {
    const tabId = await tabAt('/act-click.html')
    expect((await actRefused(tabId, { operation: 'click', role: 'button', name: 'Attachment' })).data.reason).toBe('upload')
    const typed = await actRefused(tabId, { operation: 'type', ref: await refOf(tabId, '#attachment'), text: '/etc/passwd' })
    expect(typed.data.reason).toBe('upload')
  })
})

describe('BR.ACT.13 matching traverses open shadow roots', () => {
  test('a button inside an open shadow root is found and clicked', async () => {
    const tabId = await tabAt('/act-click.html')
    const done = await rig.engine.act(WHO, tabId, { operation: 'click', role: 'button', name: 'Shadow action' })
    expect(done).toMatchObject({ matchedTotal: 1, matchedVisible: 1, target: { role: 'button', name: 'Shadow action' } })
    expect(await logOf(tabId)).toEqual(['shadow'])
  })
})

describe('BR.ACT.10 and BR.ACT.12 frames and modal dialogs', () => {
  test('a button in a same-origin frame is clicked; one whose frame is covered in the parent page is obscured', async () => {
    const tabId = await tabAt('/act-frames.html')
    await expect.poll(async () => (await rig.engine.read(WHO, tabId)).snapshot.filter((node) => node.name.startsWith('Inner action')).length, { timeout: 20_000 }).toBe(2)
    await rig.engine.act(WHO, tabId, { operation: 'click', role: 'button', name: 'Inner action 1' })
    const covered = await actRefused(tabId, { operation: 'click', role: 'button', name: 'Inner action 2' })
    expect(covered.data).toMatchObject({ reason: 'obscured', by: 'div.cookie-wall' })
    expect(await logOf(tabId)).toEqual(['inner-1'])
  })

  test('an open modal dialog makes the rest of the page inert: refused as disabled; the dialog itself takes the click', async () => {
    const tabId = await tabAt('/act-frames.html')
    await rig.engine.act(WHO, tabId, { operation: 'click', role: 'button', name: 'Behind the dialog' })
    await rig.engine.executeJs(WHO, tabId, "document.getElementById('dialog').showModal()")
    const behind = await actRefused(tabId, { operation: 'click', role: 'button', name: 'Behind the dialog' })
    expect(behind.data).toMatchObject({ reason: 'disabled', detail: 'inert' })
    await rig.engine.act(WHO, tabId, { operation: 'click', role: 'button', name: 'Answer' })
    expect(await logOf(tabId)).toEqual(['outside-dialog', 'in-dialog'])
  })
})

describe('BR.ACT.15 popups are blocked and reported', () => {
  test('a click that opens a window reports popup with the redacted url; no other page stays open', async () => {
    const tabId = await tabAt('/act-click.html')
    const done = await rig.engine.act(WHO, tabId, { operation: 'click', role: 'button', name: 'Open window' })
    expect(done.popup).toEqual({ url: rig.site.url('/article.html') })
    expect(await logOf(tabId)).toEqual(['opener'])
    const plain = await rig.engine.act(WHO, tabId, { operation: 'click', role: 'button', name: 'Save' })
    expect(plain.popup).toBeUndefined()
    expect((await rig.engine.tabsOf(WHO)).map((tab) => tab.tabId)).toContain(tabId)
  })
})

describe('BR.ACT.4 and BR.ACT.7 scroll', () => {
  test('dy dispatches a synthetic wheel and the page moves by it', async () => {
    const tabId = await tabAt('/act-click.html')
    const done = await rig.engine.act(WHO, tabId, { operation: 'scroll', dy: 400 })
    expect(done).toMatchObject({ ok: true, operation: 'scroll', matchedTotal: 0, matchedVisible: 0, scrolledBy: 400, generation: 1 })
    expect(done.target).toBeUndefined()
    expect((await rig.engine.executeJs(WHO, tabId, 'return scrollY')).result).toBe(400)
    const back = await rig.engine.act(WHO, tabId, { operation: 'scroll', dy: -1000 })
    expect(back.scrolledBy).toBe(-400)
    expect(await logOf(tabId)).toEqual(['wheel:400:false', 'wheel:-1000:false'])
  })

  test('ref brings the element to the viewport; a hidden one is refused', async () => {
    const tabId = await tabAt('/act-click.html')
    const ref = await refOf(tabId, '#far')
    const done = await rig.engine.act(WHO, tabId, { operation: 'scroll', ref })
    expect(done).toMatchObject({ matchedTotal: 1, matchedVisible: 1, target: { ref, role: 'button', name: 'Far away' } })
    const [far] = (await rig.engine.query(WHO, tabId, '#far', { box: true })).elements
    expect(far!.box!.y).toBeGreaterThanOrEqual(0)
    expect(far!.box!.y + far!.box!.height).toBeLessThanOrEqual(800)
    expect((await actRefused(tabId, { operation: 'scroll', ref: await refOf(tabId, '#save-none') })).data.reason).toBe('hidden')
    expect(await logOf(tabId)).toEqual([])
  })
})

describe('BR.ACT.16 and BR.ACT.12 type', () => {
  test('a text field takes the text through the native setter, with input and change events a value tracker sees', async () => {
    const tabId = await tabAt('/act-type.html')
    const done = await rig.engine.act(WHO, tabId, { operation: 'type', role: 'textbox', name: 'Full name', text: 'Ada Lovelace' })
    expect(done).toMatchObject({ ok: true, operation: 'type', matchedTotal: 1, matchedVisible: 1, isPassword: false, target: { role: 'textbox', name: 'Full name' } })
    await rig.engine.act(WHO, tabId, { operation: 'type', role: 'textbox', name: 'Email', text: 'ada@example.org' })
    expect(await logOf(tabId)).toEqual(['full-change', 'email-changed:ada@example.org'])
    expect((await rig.engine.executeJs(WHO, tabId, "return [document.getElementById('full').value, document.getElementById('email').value]")).result)
      .toEqual(['Ada Lovelace', 'ada@example.org'])
  })

  test('typing replaces what the field held; a password field says so', async () => {
    const tabId = await tabAt('/act-type.html')
    await rig.engine.act(WHO, tabId, { operation: 'type', role: 'textbox', name: 'Bio', text: 'first' })
    await rig.engine.act(WHO, tabId, { operation: 'type', role: 'textbox', name: 'Bio', text: 'second\nline' })
    const password = await rig.engine.act(WHO, tabId, { operation: 'type', role: 'textbox', name: 'Password', text: 'hunter2' })
    expect(password.isPassword).toBe(true)
    // A refusal says so too, so a log of the request can keep only the text's length.
    const refused = await actRefused(tabId, { operation: 'type', role: 'textbox', name: 'Old password', text: 'hunter1' })
    expect(refused.data).toMatchObject({ reason: 'hidden', isPassword: true, matchedTotal: 1, matchedVisible: 0 })
    expect((await rig.engine.executeJs(WHO, tabId, "return [document.getElementById('bio').value, document.getElementById('password').value]")).result)
      .toEqual(['second\nline', 'hunter2'])
  })

  test('a field that strips digits, at once or a moment later, is rejected-value', async () => {
    const tabId = await tabAt('/act-type.html')
    const now = await actRefused(tabId, { operation: 'type', role: 'textbox', name: 'Nickname', text: 'agent007' })
    expect(now.data).toMatchObject({ reason: 'rejected-value', matchedTotal: 1, matchedVisible: 1, target: { role: 'textbox', name: 'Nickname' } })
    const later = await actRefused(tabId, { operation: 'type', role: 'textbox', name: 'Handle', text: 'quiet' })
    expect(later.data.reason).toBe('rejected-value')
    expect((await rig.engine.executeJs(WHO, tabId, "return [document.getElementById('nick').value, document.getElementById('handle').value]")).result)
      .toEqual(['agent', 'QUIET'])
    // Text the field keeps as typed is accepted.
    await rig.engine.act(WHO, tabId, { operation: 'type', role: 'textbox', name: 'Nickname', text: 'agent' })
  })

  test('a select takes an option by label or by value; no such option is refused with the labels (BR.ACT.17)', async () => {
    const tabId = await tabAt('/act-type.html')
    await rig.engine.act(WHO, tabId, { operation: 'type', role: 'combobox', name: 'Country', text: 'Germany' })
    await rig.engine.act(WHO, tabId, { operation: 'type', role: 'combobox', name: 'Country', text: 'fr' })
    const missing = await actRefused(tabId, { operation: 'type', role: 'combobox', name: 'Country', text: 'Spain' })
    expect(missing.data).toMatchObject({ reason: 'no-such-option', options: ['Choose', 'France', 'Germany', 'Atlantis'] })
    expect((await actRefused(tabId, { operation: 'type', role: 'combobox', name: 'Country', text: 'Atlantis' })).data.reason).toBe('no-such-option')
    expect(await logOf(tabId)).toEqual(['country:de', 'country:fr'])
  })

  test('a contenteditable region takes the text in place of its content', async () => {
    const tabId = await tabAt('/act-type.html')
    await rig.engine.act(WHO, tabId, { operation: 'type', role: 'textbox', name: 'Notes', text: 'New notes' })
    expect((await rig.engine.query(WHO, tabId, '#notes')).elements[0]!.text).toBe('New notes')
    expect(await logOf(tabId)).toContain('notes-input')
  })

  test('a read-only field is readonly; a checkbox is not-editable; neither changes', async () => {
    const tabId = await tabAt('/act-type.html')
    expect((await actRefused(tabId, { operation: 'type', role: 'textbox', name: 'Member id', text: 'M-2' })).data.reason).toBe('readonly')
    expect((await actRefused(tabId, { operation: 'type', role: 'checkbox', name: 'Newsletter', text: 'yes' })).data.reason).toBe('not-editable')
    expect((await rig.engine.executeJs(WHO, tabId, "return [document.getElementById('member').value, document.getElementById('newsletter').checked]")).result)
      .toEqual(['M-1', false])
  })
})

describe('BR.ACT.5, BR.ACT.7 and BR.ACT.18 key', () => {
  test('Enter in a form field submits the form through its default button, with a synthetic keydown', async () => {
    const tabId = await tabAt('/act-type.html')
    await rig.engine.act(WHO, tabId, { operation: 'type', role: 'textbox', name: 'Full name', text: 'Grace' })
    const ref = await refOf(tabId, '#full')
    const done = await rig.engine.act(WHO, tabId, { operation: 'key', key: 'Enter', ref })
    expect(done).toMatchObject({ ok: true, operation: 'key', defaultAction: 'submit', matchedTotal: 1, matchedVisible: 1, target: { ref, role: 'textbox', name: 'Full name' } })
    expect(await logOf(tabId)).toEqual(['full-change', 'keydown:Enter:false', 'submitted:Grace:by:send'])
  })

  test('Tab moves the focus to the next focusable element, shift+Tab back; the focused element gets the next key', async () => {
    const tabId = await tabAt('/act-type.html')
    const forward = await rig.engine.act(WHO, tabId, { operation: 'key', key: 'Tab', ref: await refOf(tabId, '#full') })
    expect(forward).toMatchObject({ defaultAction: 'focus-next', focused: { role: 'textbox', name: 'Password' } })
    const typed = await rig.engine.act(WHO, tabId, { operation: 'key', key: 'x' })
    expect(typed).toMatchObject({ defaultAction: 'insert-text', matchedTotal: 0, target: { role: 'textbox', name: 'Password' } })
    const back = await rig.engine.act(WHO, tabId, { operation: 'key', key: 'Tab', modifiers: { shift: true } })
    expect(back).toMatchObject({ defaultAction: 'focus-previous', focused: { role: 'textbox', name: 'Full name' } })
    expect((await rig.engine.executeJs(WHO, tabId, "return document.getElementById('password').value")).result).toBe('x')
  })

  test('Enter on a button and Space on a checkbox activate them, as a trusted key would', async () => {
    const tabId = await tabAt('/act-click.html')
    const enter = await rig.engine.act(WHO, tabId, { operation: 'key', key: 'Enter', ref: await refOf(tabId, '#save') })
    expect(enter).toMatchObject({ defaultAction: 'activate', target: { role: 'button', name: 'Save' } })
    const space = await rig.engine.act(WHO, tabId, { operation: 'key', key: 'Space', ref: await refOf(tabId, '#agree') })
    expect(space).toMatchObject({ defaultAction: 'activate', target: { role: 'checkbox', name: 'Agree' } })
    expect(await logOf(tabId)).toEqual(['save', 'agree:true'])
    // A key on a disabled button does nothing and says why.
    expect((await actRefused(tabId, { operation: 'key', key: 'Enter', ref: await refOf(tabId, '#archive') })).data.reason).toBe('disabled')
    expect(await logOf(tabId)).toEqual(['save', 'agree:true'])
  })

  test('Escape has no default action; a key with ctrl held inserts nothing', async () => {
    const tabId = await tabAt('/act-type.html')
    const ref = await refOf(tabId, '#bio')
    expect((await rig.engine.act(WHO, tabId, { operation: 'key', key: 'Escape', ref })).defaultAction).toBe('none')
    expect((await rig.engine.act(WHO, tabId, { operation: 'key', key: 'a', ref, modifiers: { ctrl: true } })).defaultAction).toBe('none')
    expect((await rig.engine.executeJs(WHO, tabId, "return document.getElementById('bio').value")).result).toBe('')
    expect(await logOf(tabId)).toEqual(['keydown:Escape:false', 'keydown:a:false'])
  })
})
