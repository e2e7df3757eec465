import { ACCESSIBLE_NAME_SOURCE } from './accessibleName.js'

/**
 * The capture shim of `workflow_record` (BR.WORKFLOW_RECORD.4), as source text run in an isolated world of its own
 * (RECORDER_WORLD) in the main frame of each document the tab loads while it is armed. It shares the DOM with the page
 * and nothing else: the page cannot see it, call its binding or change what it reports.
 *
 * What it reports, through the binding, is a locator and a kind of event, never what was typed: it listens to the
 * person's trusted `click`, `input` and `submit` events and reads of the element only what names it (its role and
 * accessible name, by the rules the agent library's read uses too, accessibleName.ts) and what kind of field it is (its
 * `type`, its `autocomplete` tokens). It never reads a field's `value`, selection or text content, so no typed value
 * can reach the recording whatever the page does (BR.WORKFLOW_RECORD.7). The one exception is the label of a button
 * input (`<input type=submit value="Log in">`), which is its name: that value is the page's own text, not the
 * person's, and is read only for submit, button, reset and image inputs, which nobody types into.
 *
 * Events the page made itself (`isTrusted` false: `el.click()`, `dispatchEvent`) are not the person's and are ignored,
 * and so are the assistant's own acts (agentLib dispatches synthetic events): only the person's input is recorded.
 * A click into a text field only focuses it (its edit is what counts); a click on a label is taken as the click on
 * its control; an implicit submit (Enter in a field) is taken as a click on the form's default button.
 */

export const RECORDER_WORLD = 'quire-recorder'
export const RECORDER_BINDING = '__quireRecorded'

export const RECORDER_SHIM_SOURCE = String.raw`(() => {
  if (globalThis.__quireRecorder) return 'present'
  // The main frame only: a step names an element of the page, and the replay looks for it there.
  if (window !== window.top) return 'subframe'
  const send = globalThis.${RECORDER_BINDING}
  if (typeof send !== 'function') return 'no-binding'
  const report = (message) => send(JSON.stringify(message))

${ACCESSIBLE_NAME_SOURCE}
  const TEXT_INPUTS = new Set(['text', 'email', 'search', 'tel', 'url', 'number', 'password'])
  const CLICKABLE = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'option', 'treeitem'])

  // What kind of field an edit goes into, from its tag, type and autocomplete tokens; null for what is not typed into.
  const fieldOf = (el) => {
    if (!(el instanceof Element)) return null
    const oneTimeCode = (el.getAttribute('autocomplete') || '').toLowerCase().split(/\s+/).includes('one-time-code')
    if (el.localName === 'select') return 'choice'
    if (el.localName === 'textarea') return oneTimeCode ? 'one-time-code' : 'text'
    if (el.localName === 'input') {
      // The IDL type: an unknown type attribute is a text field, as the browser shows it.
      const type = (el.type || 'text').toLowerCase()
      if (type === 'password') return 'password'
      if (!TEXT_INPUTS.has(type)) return null
      return oneTimeCode ? 'one-time-code' : 'text'
    }
    if (el.isContentEditable) return 'text'
    return null
  }
  const editingHost = (el) => {
    let host = el
    while (host.parentElement && host.parentElement.isContentEditable) host = host.parentElement
    return host
  }
  const located = (el) => ({ role: roleOf(el) || '', name: nameOf(el) })

  let lastClicked = null
  let lastEdited = null
  let labelled = null

  const clicked = (el) => {
    lastClicked = el
    lastEdited = null
    report({ t: 'click', ...located(el) })
  }

  const onClick = (event) => {
    if (!event.isTrusted) return
    for (const node of event.composedPath()) {
      if (!(node instanceof Element)) continue
      if (node === labelled) { labelled = null; return }
      if (fieldOf(node) !== null) return
      if (CLICKABLE.has(roleOf(node))) return clicked(node)
      if (node.localName === 'label' && node.control) {
        // The label passes the click on to its control: that one is recorded, once.
        if (fieldOf(node.control) !== null) return
        labelled = node.control
        setTimeout(() => { if (labelled === node.control) labelled = null }, 0)
        return clicked(node.control)
      }
    }
    // A click on nothing a step could name (the page's background, to leave a field) is no step.
  }

  const onInput = (event) => {
    if (!event.isTrusted) return
    const target = event.composedPath()[0]
    if (!(target instanceof Element)) return
    const el = target.isContentEditable ? editingHost(target) : target
    const field = fieldOf(el)
    if (field === null || el === lastEdited) return
    lastEdited = el
    lastClicked = null
    report({ t: 'edit', ...located(el), field })
  }

  // A submit event is the browser's even when a script asked for it (requestSubmit, a scripted click on a submit
  // button): it is the person's only right after they pressed Enter, in the same task.
  let enterPressed = false
  const onKeydown = (event) => {
    if (!event.isTrusted || event.key !== 'Enter') return
    enterPressed = true
    setTimeout(() => { enterPressed = false }, 0)
  }

  const onSubmit = (event) => {
    if (!event.isTrusted || !enterPressed) return
    const submitter = event.submitter
    if (submitter && submitter === lastClicked) return
    if (submitter) return clicked(submitter)
    report({ t: 'unlocatable' })
  }

  const options = { capture: true, passive: true }
  window.addEventListener('click', onClick, options)
  window.addEventListener('input', onInput, options)
  window.addEventListener('submit', onSubmit, options)
  window.addEventListener('keydown', onKeydown, options)
  Object.defineProperty(globalThis, '__quireRecorder', {
    value: Object.freeze({
      disarm: () => {
        window.removeEventListener('click', onClick, options)
        window.removeEventListener('input', onInput, options)
        window.removeEventListener('submit', onSubmit, options)
        window.removeEventListener('keydown', onKeydown, options)
      },
    }),
  })
  return 'armed'
})()`
