/**
 * The capture shim of `workflow_record` on real Chromium (adapters/browser/recorderCapture.ts, recorderShim.ts): what
 * the person's input becomes, as the engine's own input path sends it (the console's live view), against the names
 * the agent's read gives the same elements (a recorded step must find its element at replay: both worlds name elements
 * by accessibleName.ts, and every element of everyName.html gets the same role and name in each); the page's own events
 * ignored; nothing left behind once disarmed.
 */
import { describe, expect, test } from 'vitest'
import { ACCESSIBLE_NAME_SOURCE } from '../../adapters/browser/accessibleName.js'
import { AGENT_LIB_SOURCE } from '../../adapters/browser/agentLib.js'
import { RECORDER_SHIM_SOURCE } from '../../adapters/browser/recorderShim.js'
import type { CapturedEvent } from '../../core/browser/workflow/recordDraft.js'
import { useEngine } from './support/engineRig.js'

const rig = useEngine()
const AGENT = 'recording-agent'

type Seen = CapturedEvent | { kind: 'unlocatable' } | { kind: 'page'; url: string; byPage: boolean }

async function armed(path: string) {
  const tab = await rig.engine.open(AGENT, rig.site.url(path))
  const seen: Seen[] = []
  const capture = await rig.engine.armCapture(AGENT, tab.tabId, {
    page: (url, byPage) => seen.push({ kind: 'page', url, byPage }),
    event: (event) => seen.push(event),
    unlocatable: () => seen.push({ kind: 'unlocatable' }),
  })
  return { tabId: tab.tabId, seen, capture }
}

async function center(tabId: string, selector: string): Promise<{ x: number; y: number }> {
  const { elements } = await rig.engine.query(AGENT, tabId, selector, { box: true })
  const box = elements[0]!.box!
  return { x: box.x + Math.min(box.width / 2, 8), y: box.y + box.height / 2 }
}

async function personClick(tabId: string, selector: string): Promise<void> {
  const at = await center(tabId, selector)
  await rig.engine.dispatchInput(tabId, { kind: 'mouse', action: 'down', ...at, button: 'left', clickCount: 1 })
  await rig.engine.dispatchInput(tabId, { kind: 'mouse', action: 'up', ...at, button: 'left', clickCount: 1 })
}

/** The role and name the agent's read gives the element `selector` finds. */
async function readLocator(tabId: string, selector: string): Promise<{ role: string; name: string }> {
  const { elements } = await rig.engine.query(AGENT, tabId, selector)
  const { snapshot } = await rig.engine.read(AGENT, tabId)
  const node = snapshot.find((entry) => entry.ref === elements[0]!.ref)
  expect(node, selector).toBeDefined()
  return { role: node!.role, name: node!.name }
}

describe('the recorder\'s capture shim', () => {
  test('BR.WORKFLOW_RECORD.7 by construction: the shim never reads a value; the one value attribute it reads is a button input\'s label', () => {
    expect(RECORDER_SHIM_SOURCE).not.toMatch(/\.value\b/)
    expect(RECORDER_SHIM_SOURCE).not.toMatch(/\b(?:textContent|innerText|selectionStart|getSelection)\b[^\n]*(?:target|field|edit)/)
    const reads = RECORDER_SHIM_SOURCE.match(/getAttribute\('value'\)/g) ?? []
    expect(reads).toHaveLength(1)
    expect(RECORDER_SHIM_SOURCE).toContain("if (el.localName === 'input' && BUTTON_INPUTS.has(inputType(el))) return normalize(el.getAttribute('value'))")
  })

  test('BR.WORKFLOW_RECORD.11 by construction: the shim and the agent library splice one text of role and name rules, and neither has rules of its own', () => {
    for (const source of [RECORDER_SHIM_SOURCE, AGENT_LIB_SOURCE]) {
      expect(source).toContain(ACCESSIBLE_NAME_SOURCE)
      expect(source.match(/\bconst (?:roleOf|nameOf)\b/g)).toEqual(['const roleOf', 'const nameOf'])
    }
  })

  test('BR.WORKFLOW_RECORD.4 / BR.WORKFLOW_RECORD.11 each click and edit of the person\'s is its element\'s role and name, the same the agent\'s read gives', async () => {
    const { tabId, seen, capture } = await armed('/record/names.html')
    const clicks = ['#b-text', '#b-aria', '#b-labelledby', '#b-submit', '#a-link', '#a-img', '#d-role', '#c-box']
    const fields: Array<[string, Extract<CapturedEvent, { kind: 'edit' }>['field']]> = [
      ['#f-wrapped', 'text'], ['#f-for', 'text'], ['#f-placeholder', 'text'], ['#f-title', 'text'], ['#f-area', 'text'],
      ['#f-editable', 'text'], ['#f-secret', 'password'], ['#f-code', 'one-time-code'],
    ]
    // Read before anything is clicked: a link's click moves the page on to a new generation of refs.
    const expected: Seen[] = []
    for (const selector of clicks) expected.push({ kind: 'click', ...(await readLocator(tabId, selector)) })
    for (const [selector, field] of fields) expected.push({ kind: 'edit', ...(await readLocator(tabId, selector)), field })
    expected.push({ kind: 'edit', ...(await readLocator(tabId, '#f-select')), field: 'choice' })
    for (const selector of clicks) await personClick(tabId, selector)
    for (const [selector] of fields) {
      await personClick(tabId, selector)
      await rig.engine.dispatchInput(tabId, { kind: 'text', text: 'typed-SECRET-value' })
      await rig.engine.dispatchInput(tabId, { kind: 'text', text: 'more' })
    }
    // A select changed from the keyboard is an edit of a choice.
    await rig.engine.executeJs(AGENT, tabId, "document.getElementById('f-select').focus()")
    await rig.engine.dispatchInput(tabId, { kind: 'key', action: 'down', key: 'ArrowDown', code: 'ArrowDown' })
    await rig.engine.dispatchInput(tabId, { kind: 'key', action: 'up', key: 'ArrowDown', code: 'ArrowDown' })
    await capture.disarm()
    expect(seen).toEqual(expected)
    expect(JSON.stringify(seen)).not.toContain('SECRET')
  })

  test('BR.WORKFLOW_RECORD.11 the recorder\'s world and the agent\'s world name every element of a page alike, and as the fixture says', async () => {
    const { tabId, seen, capture } = await armed('/record/everyName.html')
    const { elements } = await rig.engine.query(AGENT, tabId, '[data-role]', { attributes: true, box: true })
    const { snapshot } = await rig.engine.read(AGENT, tabId)
    const fixtureSays = elements.map(({ attributes }) => ({ role: attributes!['data-role']!, name: attributes!['data-name']! }))
    const agentSays = elements.map(({ ref, attributes }) => {
      // A shadow root's element has no ref of the host's: it is the read's node of that role and name.
      const node = 'data-in-shadow' in attributes!
        ? snapshot.find((entry) => entry.role === attributes!['data-role'] && entry.name === attributes!['data-name'])
        : snapshot.find((entry) => entry.ref === ref)
      return { role: node?.role ?? '(not in the read)', name: node?.name ?? '' }
    })
    expect(agentSays).toEqual(fixtureSays)

    for (const { box, attributes } of elements) {
      const at = { x: box!.x + Math.min(box!.width / 2, 8), y: box!.y + box!.height / 2 }
      await rig.engine.dispatchInput(tabId, { kind: 'mouse', action: 'down', ...at, button: 'left', clickCount: 1 })
      await rig.engine.dispatchInput(tabId, { kind: 'mouse', action: 'up', ...at, button: 'left', clickCount: 1 })
      if (attributes!['data-field'] !== undefined) await rig.engine.dispatchInput(tabId, { kind: 'text', text: '7' })
    }
    await capture.disarm()
    expect(seen).toEqual(elements.map(({ attributes }, index) => {
      const field = attributes!['data-field']
      return field === undefined ? { kind: 'click', ...agentSays[index] } : { kind: 'edit', ...agentSays[index], field }
    }))
  })

  test('BR.WORKFLOW_RECORD.1 the page\'s own clicks and edits are not the person\'s; a click on nothing nameable is no event', async () => {
    const { tabId, seen, capture } = await armed('/record/names.html')
    await rig.engine.executeJs(AGENT, tabId, `
      document.getElementById('b-text').click()
      const field = document.getElementById('f-wrapped')
      field.value = 'page typed'
      field.dispatchEvent(new Event('input', { bubbles: true }))
      document.querySelector('h1').click()
    `)
    await personClick(tabId, 'h1')
    await personClick(tabId, '#b-aria')
    // The assistant's own acts are not the person's either, nor a form the page's script sends.
    await rig.engine.navigate(AGENT, tabId, rig.site.url('/record/login.html'))
    await rig.engine.act(AGENT, tabId, { operation: 'click', target: { role: 'checkbox', name: 'Remember me' } })
    await rig.engine.act(AGENT, tabId, { operation: 'type', target: { role: 'textbox', name: 'Email' }, text: 'agent@example.com' })
    await rig.engine.executeJs(AGENT, tabId, "document.getElementById('login').requestSubmit()")
    await rig.engine.waitFor(AGENT, tabId, { text: 'New post' })
    await capture.disarm()
    expect(seen).toEqual([
      { kind: 'click', role: 'button', name: 'By aria-label' },
      { kind: 'page', url: rig.site.url('/record/login.html'), byPage: false },
      { kind: 'page', url: expect.stringContaining(rig.site.url('/record/compose.html?')), byPage: true },
    ])
  })

  test('BR.WORKFLOW_RECORD.12 the shim comes back in every document the tab loads, and tells the page\'s own loads from the browser\'s; disarmed, nothing is left', async () => {
    const { tabId, seen, capture } = await armed('/record/names.html')
    await rig.engine.navigate(AGENT, tabId, rig.site.url('/record/login.html?from=browser'))
    await personClick(tabId, 'label:has(input[name=remember])')
    await personClick(tabId, 'button[type=submit]')
    await rig.engine.waitFor(AGENT, tabId, { text: 'New post' })
    await personClick(tabId, '#draft')
    await capture.disarm()
    expect(seen).toEqual([
      { kind: 'page', url: rig.site.url('/record/login.html?from=browser'), byPage: false },
      { kind: 'click', role: 'checkbox', name: 'Remember me' },
      { kind: 'click', role: 'button', name: 'Log in' },
      { kind: 'page', url: expect.stringContaining(rig.site.url('/record/compose.html?')), byPage: true },
      { kind: 'click', role: 'button', name: 'Save draft' },
    ])
    const before = seen.length
    await personClick(tabId, '#draft')
    await rig.engine.navigate(AGENT, tabId, rig.site.url('/record/names.html'))
    await personClick(tabId, '#b-text')
    expect(seen).toHaveLength(before)
  })
})
