/**
 * The page-side half of `browser.act` and `browser.style`, as source text spliced into the agent library's closure
 * (agentLib.ts), so it shares roleOf, nameOf and the ref store and runs in the same isolated world: the page's own
 * scripts can neither see these functions nor replace the DOM prototypes they call (the world has pristine ones).
 *
 * `act` is synchronous on purpose: it resolves, checks and acts in one turn of the page's event loop, so nothing the
 * page does can come between the hit test and the click, and the answer leaves before any navigation it caused can
 * replace the document. What only settles later (a framework re-rendering a field, a sanitizer on a timer) is looked at
 * by `afterAct`, a separate, read-only call.
 *
 * The refusal reasons are those of BR.ACT.12 plus `obscured` (BR.ACT.10), `ambiguous` (BR.ACT.11), `no-such-option`
 * (BR.ACT.17), `not-editable` and `readonly`. Expects in scope: normalize, textOf, roleOf, nameOf, refOf, elementOf,
 * NAME_FROM_CONTENT.
 */
export const ACT_LIB_SOURCE = String.raw`
  const composedParent = (node) => {
    if (node.parentElement) return node.parentElement
    const parent = node.parentNode
    return parent && parent.host ? parent.host : null
  }
  const frameOwner = (el) => {
    try { return el.ownerDocument.defaultView.frameElement } catch { return null }
  }
  // Ancestor-or-self in the composed tree (through shadow roots, not through frames).
  const composedContains = (ancestor, node) => {
    for (let n = node; n; n = composedParent(n)) if (n === ancestor) return true
    return false
  }
  const walkAll = (visit, walkCap) => {
    let walked = 0
    const go = (el) => {
      if (walked++ >= walkCap) return
      visit(el)
      if (el.localName === 'iframe' || el.localName === 'frame') {
        let inner = null
        try { inner = el.contentDocument } catch { inner = null }
        if (inner && inner.documentElement) go(inner.documentElement)
        return
      }
      if (el.shadowRoot) for (const child of el.shadowRoot.children) go(child)
      for (const child of el.children) go(child)
    }
    if (document.documentElement) go(document.documentElement)
  }

  // Exact name within the role. A hidden element's rendered text is empty, so its content counts too: an invisible
  // duplicate is still a match (it shows in matchedTotal), only never a target. A name read back capped to nameCap
  // characters matches the element whose full name starts with it.
  const nameMatches = (el, wanted, nameCap) => {
    const same = (name) => name === wanted || (wanted.length === nameCap && name.startsWith(wanted))
    if (same(nameOf(el))) return true
    return NAME_FROM_CONTENT.has(roleOf(el)) && same(textOf(el))
  }

  // Visibly rendered (BR.ACT.9): a box, not hidden by CSS, not fully transparent through its ancestors, not inside a
  // collapsed (zero-size, clipping) ancestor, not clipped to nothing; the same for every frame it sits in.
  const visiblyRendered = (target) => {
    for (let el = target; el; el = frameOwner(el)) {
      if (!el.isConnected) return false
      if (!el.checkVisibility({ checkVisibilityCSS: true, checkOpacity: true })) return false
      const own = el.getBoundingClientRect()
      if (own.width <= 1 && own.height <= 1) return false
      let opacity = 1
      for (let n = el; n; n = composedParent(n)) {
        const style = getComputedStyle(n)
        opacity *= Number(style.opacity)
        if (opacity < 0.05) return false
        if (style.clip === 'rect(0px, 0px, 0px, 0px)' || style.clipPath === 'inset(50%)') return false
        if (n !== el && style.display !== 'contents' && (style.overflowX !== 'visible' || style.overflowY !== 'visible')) {
          const box = n.getBoundingClientRect()
          if (box.width === 0 || box.height === 0) return false
        }
      }
    }
    return true
  }

  // A custom checkbox or radio draws its own box and hides the input itself: a person clicks the visible label, which
  // toggles the input, so the label stands in for it. Nothing else is reached through a stand-in.
  const standInOf = (el) => {
    if (el.localName !== 'input' || (el.type !== 'checkbox' && el.type !== 'radio') || !el.labels) return null
    return Array.from(el.labels).find(visiblyRendered) || null
  }
  const shownAs = (el) => (visiblyRendered(el) ? el : standInOf(el))

  // Inert: under an inert attribute, or outside the open modal dialog, which makes the rest of its document inert.
  const inInert = (target) => {
    for (let el = target; el; el = frameOwner(el)) {
      for (let n = el; n; n = composedParent(n)) if (n.inert) return true
      const modal = el.ownerDocument.querySelector('dialog:modal')
      if (modal !== null && !composedContains(modal, el)) return true
    }
    return false
  }
  const disabledDetail = (el) => {
    if (el.matches(':disabled') || el.getAttribute('aria-disabled') === 'true') return 'disabled'
    if (inInert(el)) return 'inert'
    if (getComputedStyle(el).pointerEvents === 'none') return 'pointer-events'
    return null
  }
  const isUpload = (el) =>
    (el.localName === 'input' && el.type === 'file') ||
    (el.localName === 'label' && el.control !== null && el.control.localName === 'input' && el.control.type === 'file')

  // What a person would call the covering element: tag, id and the first two classes (page data, capped).
  const describeElement = (el) => {
    let text = el.localName
    if (el.id) text += '#' + el.id
    for (const name of Array.from(el.classList).slice(0, 2)) text += '.' + name
    return text.slice(0, 80)
  }
  const deepHit = (root, x, y) => {
    let hit = root.elementFromPoint(x, y)
    for (let guard = 0; hit && hit.shadowRoot && guard < 32; guard++) {
      const inner = hit.shadowRoot.elementFromPoint(x, y)
      if (!inner || inner === hit) break
      hit = inner
    }
    return hit
  }
  const inViewport = (el, x, y) => {
    const view = el.ownerDocument.defaultView
    return x >= 0 && y >= 0 && x < view.innerWidth && y < view.innerHeight
  }
  const center = (el) => {
    const r = el.getBoundingClientRect()
    return { x: r.left + r.width / 2, y: r.top + r.height / 2 }
  }
  // BR.ACT.10: what the pointer would land on at the target's centre. The target, something inside it, an ancestor
  // of it or one of its labels is fine; anything else covers it. Each frame the target sits in is tested in its parent.
  const hitTest = (el) => {
    let { x, y } = center(el)
    if (!inViewport(el, x, y)) return { reason: 'offscreen' }
    const hit = deepHit(el.ownerDocument, x, y)
    if (!hit) return { reason: 'offscreen' }
    const ours = hit === el || composedContains(el, hit) || composedContains(hit, el) ||
      (el.labels ? Array.from(el.labels).some((label) => composedContains(label, hit)) : false)
    if (!ours) return { reason: 'obscured', by: describeElement(hit) }
    const point = { hit, x, y }
    for (let frame = frameOwner(el); frame; frame = frameOwner(frame)) {
      const box = frame.getBoundingClientRect()
      x += box.left + frame.clientLeft
      y += box.top + frame.clientTop
      if (!inViewport(frame, x, y)) return { reason: 'offscreen' }
      const outer = deepHit(frame.ownerDocument, x, y)
      if (!outer) return { reason: 'offscreen' }
      if (outer !== frame) return { reason: 'obscured', by: describeElement(outer) }
    }
    return point
  }
  const scrollToCenter = (el) => el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' })

  const targetOf = (el) => ({ ref: refOf(el), role: roleOf(el), name: nameOf(el) })
  // A candidate's text: the nearest surrounding text that says more than the shared name, so the caller can tell them apart.
  const contextText = (el, name) => {
    for (let n = el; n; n = composedParent(n)) {
      const text = normalize(typeof n.innerText === 'string' ? n.innerText : n.textContent)
      if (text && text !== name) return text.slice(0, 120)
    }
    return name
  }

  // The one element a click, type, key or scroll works on, or why there is none.
  const resolve = (args) => {
    if (args.ref !== undefined) {
      const el = elementOf(args.ref)
      if (!el) return { missingRef: true }
      return { el, matches: [el], visible: shownAs(el) ? [el] : [] }
    }
    const matches = []
    walkAll((el) => {
      if (roleOf(el) === args.role && nameMatches(el, args.name, args.nameCap)) matches.push(el)
    }, args.walkCap)
    const visible = matches.filter(shownAs)
    return { el: visible.length === 1 ? visible[0] : null, matches, visible }
  }

  const TEXT_LESS_INPUTS = new Set(['checkbox', 'radio', 'submit', 'button', 'reset', 'image', 'file', 'hidden', 'range', 'color'])
  const editKind = (el) => {
    if (el.localName === 'select') return 'select'
    if (el.localName === 'textarea') return 'value'
    if (el.localName === 'input') return TEXT_LESS_INPUTS.has(el.type) ? null : 'value'
    return el.isContentEditable ? 'editable' : null
  }
  const isReadOnly = (el) => el.readOnly === true || el.getAttribute('aria-readonly') === 'true'
  const optionFor = (select, text) => {
    const options = Array.from(select.options).filter((option) => !option.disabled)
    return options.find((option) => normalize(option.label) === normalize(text)) || options.find((option) => option.value === text) || null
  }
  const fireInput = (el, data) => {
    el.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertText', data }))
  }
  const fireChange = (el) => el.dispatchEvent(new Event('change', { bubbles: true }))
  const editableText = (el) => normalize(el.innerText)

  // After a change: the reading a later afterAct compares with the page's own second thoughts.
  let pending = null
  const typeInto = (el, kind, text) => {
    el.focus({ preventScroll: true })
    if (kind === 'value') {
      // The prototype's setter, not the element's: a framework's value tracker on the element then sees a change.
      const proto = el.localName === 'textarea' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype
      Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, text)
      fireInput(el, text)
      fireChange(el)
      pending = { check: () => el.value === text }
    } else if (kind === 'select') {
      const option = optionFor(el, text)
      if (el.multiple) for (const other of el.options) other.selected = other === option
      else el.selectedIndex = option.index
      el.dispatchEvent(new Event('input', { bubbles: true, composed: true }))
      fireChange(el)
      pending = { check: () => option.selected && (el.multiple || el.value === option.value) }
    } else {
      const doc = el.ownerDocument
      const selection = doc.getSelection()
      const range = doc.createRange()
      range.selectNodeContents(el)
      selection.removeAllRanges()
      selection.addRange(range)
      // execCommand goes through the editing machinery (beforeinput, input, undo) as typing would.
      const done = text === '' ? doc.execCommand('delete') : doc.execCommand('insertText', false, text)
      if (!done) {
        el.textContent = text
        fireInput(el, text)
      }
      pending = { check: () => editableText(el) === normalize(text) }
    }
    return pending.check()
  }

  const mouseInit = (el, x, y, buttons) => ({
    bubbles: true, cancelable: true, composed: true, clientX: x, clientY: y, button: 0, buttons, detail: 1,
    view: el.ownerDocument.defaultView,
  })
  const focusableFrom = (el) => {
    for (let n = el; n; n = composedParent(n)) if (n.tabIndex >= 0 || n.isContentEditable) return n
    return null
  }
  // The pointer sequence a person's click makes, ending in the click whose activation behaviour follows links,
  // toggles checkboxes and submits forms.
  const clickAt = (el, point) => {
    const into = point.hit === el || composedContains(el, point.hit) ? point.hit : el
    const pointer = (type, buttons) => into.dispatchEvent(new PointerEvent(type, { ...mouseInit(into, point.x, point.y, buttons), pointerId: 1, pointerType: 'mouse', isPrimary: true }))
    pointer('pointerdown', 1)
    if (into.dispatchEvent(new MouseEvent('mousedown', mouseInit(into, point.x, point.y, 1)))) {
      const focusable = focusableFrom(into)
      if (focusable) focusable.focus({ preventScroll: true })
    }
    pointer('pointerup', 0)
    into.dispatchEvent(new MouseEvent('mouseup', mouseInit(into, point.x, point.y, 0)))
    const notPrevented = into.dispatchEvent(new MouseEvent('click', mouseInit(into, point.x, point.y, 0)))
    return { defaultPrevented: !notPrevented }
  }

  const deepActive = () => {
    let active = document.activeElement
    for (let guard = 0; active && guard < 32; guard++) {
      if (active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement
      else if ((active.localName === 'iframe' || active.localName === 'frame') && active.contentDocument && active.contentDocument.activeElement) active = active.contentDocument.activeElement
      else break
    }
    return active && active !== document.documentElement ? active : document.body
  }
  // The sequential focus order: positive tabindex first in ascending order, then the rest in tree order.
  const focusOrder = (walkCap) => {
    const found = []
    walkAll((el) => {
      if (el.tabIndex >= 0 && !el.matches(':disabled') && !(el.localName === 'iframe' || el.localName === 'frame') && !inInert(el) && visiblyRendered(el)) found.push(el)
    }, walkCap)
    const positive = found.filter((el) => el.tabIndex > 0).sort((a, b) => a.tabIndex - b.tabIndex)
    return [...positive, ...found.filter((el) => el.tabIndex === 0)]
  }
  const ACTIVATED_BY_KEYS = (el) => el.localName === 'button' || (el.localName === 'a' && el.hasAttribute('href')) || el.localName === 'summary' ||
    (el.localName === 'input' && ['submit', 'button', 'reset', 'image'].includes(el.type))
  const ACTIVATED_BY_SPACE = (el) => ACTIVATED_BY_KEYS(el) && el.localName !== 'a' ||
    (el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio'))
  const isTextField = (el) => el.localName === 'textarea' || (el.localName === 'input' && !TEXT_LESS_INPUTS.has(el.type))
  const insertText = (el, text) => {
    if (isTextField(el)) {
      if (el.readOnly || el.matches(':disabled')) return false
      try {
        el.setRangeText(text, el.selectionStart, el.selectionEnd, 'end')
      } catch {
        // Types without a selection (email, number) take the text at the end.
        Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(el, el.value + text)
      }
      fireInput(el, text)
      return true
    }
    if (el.isContentEditable) return el.ownerDocument.execCommand('insertText', false, text)
    return false
  }
  const deleteText = (el, forward) => {
    if (isTextField(el)) {
      if (el.readOnly || el.matches(':disabled')) return false
      let start, end
      try { start = el.selectionStart; end = el.selectionEnd } catch { return false }
      if (start === end) {
        if (forward) end = Math.min(el.value.length, end + 1)
        else start = Math.max(0, start - 1)
      }
      if (start === end) return false
      el.setRangeText('', start, end, 'end')
      el.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType: forward ? 'deleteContentForward' : 'deleteContentBackward' }))
      return true
    }
    if (el.isContentEditable) return el.ownerDocument.execCommand(forward ? 'forwardDelete' : 'delete')
    return false
  }
  // Implicit submission: the form's default button is clicked, or with none the form is submitted; a disabled
  // default button blocks it (HTML's rules, which a synthetic Enter does not trigger by itself).
  const submitImplicitly = (field) => {
    const form = field.form
    if (!form) return false
    const button = Array.from(form.elements).find((el) => el.type === 'submit' && (el.localName === 'button' || el.localName === 'input'))
    if (button && button.matches(':disabled')) return false
    form.requestSubmit(button || undefined)
    return true
  }
  const CODES = { Enter: 'Enter', Tab: 'Tab', Escape: 'Escape', Backspace: 'Backspace', Delete: 'Delete', ' ': 'Space',
    ArrowUp: 'ArrowUp', ArrowDown: 'ArrowDown', ArrowLeft: 'ArrowLeft', ArrowRight: 'ArrowRight', Home: 'Home', End: 'End',
    PageUp: 'PageUp', PageDown: 'PageDown' }
  const codeOf = (key) => {
    if (CODES[key]) return CODES[key]
    if (/^F\d{1,2}$/.test(key)) return key
    if (/^[a-z]$/i.test(key)) return 'Key' + key.toUpperCase()
    if (/^\d$/.test(key)) return 'Digit' + key
    return ''
  }
  // BR.ACT.18: what the browser would have done for a trusted key press, done here since a synthetic one does nothing.
  const keyDefault = (el, key, mods, walkCap) => {
    const plain = !mods.ctrl && !mods.alt && !mods.meta
    if (key === 'Tab' && plain) {
      const order = focusOrder(walkCap)
      if (order.length === 0) return { action: 'none' }
      const at = order.indexOf(el)
      const next = mods.shift ? order[at <= 0 ? order.length - 1 : at - 1] : order[at < 0 ? 0 : (at + 1) % order.length]
      next.focus()
      return { action: mods.shift ? 'focus-previous' : 'focus-next', focused: next }
    }
    if (!plain) return { action: 'none' }
    if (key === 'Enter') {
      if (el.localName === 'input' && isTextField(el)) return { action: submitImplicitly(el) ? 'submit' : 'none' }
      if (ACTIVATED_BY_KEYS(el) && !el.matches(':disabled')) { el.click(); return { action: 'activate' } }
      if (el.localName === 'textarea' || el.isContentEditable) return { action: insertText(el, '\n') ? 'insert-text' : 'none' }
      return { action: 'none' }
    }
    if (key === 'Backspace' || key === 'Delete') return { action: deleteText(el, key === 'Delete') ? 'delete-text' : 'none' }
    if ([...key].length === 1) {
      if (key === ' ' && ACTIVATED_BY_SPACE(el) && !el.matches(':disabled')) return { action: 'activate', onKeyUp: true }
      return { action: insertText(el, key) ? 'insert-text' : 'none' }
    }
    return { action: 'none' }
  }
  const pressKey = (el, key, mods, walkCap) => {
    const init = { key, code: codeOf(key), bubbles: true, cancelable: true, composed: true, ctrlKey: mods.ctrl, shiftKey: mods.shift,
      altKey: mods.alt, metaKey: mods.meta, view: el.ownerDocument.defaultView }
    let proceed = el.dispatchEvent(new KeyboardEvent('keydown', init))
    const printable = [...key].length === 1 && !mods.ctrl && !mods.meta && !mods.alt
    if (proceed && (printable || key === 'Enter')) proceed = el.dispatchEvent(new KeyboardEvent('keypress', init))
    const outcome = proceed ? keyDefault(el, key, mods, walkCap) : { action: 'prevented' }
    const upTarget = outcome.focused ?? el
    const upProceeds = upTarget.dispatchEvent(new KeyboardEvent('keyup', init))
    if (outcome.onKeyUp) {
      if (upProceeds) el.click()
      else outcome.action = 'prevented'
    }
    return outcome
  }

  // A wheel at the viewport's centre; unless the page cancels it, the innermost box there that can still move that
  // way scrolls, as a person's wheel would (a synthetic wheel scrolls nothing itself).
  const wheel = (dy) => {
    const x = innerWidth / 2
    const y = innerHeight / 2
    const at = deepHit(document, x, y) || document.documentElement
    const proceed = at.dispatchEvent(new WheelEvent('wheel', { ...mouseInit(at, x, y, 0), deltaX: 0, deltaY: dy, deltaMode: 0 }))
    if (!proceed) return { scrolledBy: 0, defaultPrevented: true }
    const boxes = []
    for (let n = at; n; n = composedParent(n)) {
      const style = getComputedStyle(n)
      if ((style.overflowY === 'auto' || style.overflowY === 'scroll') && n.scrollHeight > n.clientHeight) boxes.push(n)
    }
    boxes.push(document.scrollingElement || document.documentElement)
    for (const box of boxes) {
      const before = box.scrollTop
      box.scrollBy({ top: dy, behavior: 'instant' })
      if (box.scrollTop !== before) return { scrolledBy: box.scrollTop - before, defaultPrevented: false }
    }
    return { scrolledBy: 0, defaultPrevented: false }
  }

  const act = (args) => {
    pending = null
    const op = args.operation
    if (op === 'scroll' && args.ref === undefined) return { ok: true, matchedTotal: 0, matchedVisible: 0, ...wheel(args.dy) }
    if (op === 'key' && args.ref === undefined) {
      const el = deepActive()
      const outcome = pressKey(el, args.key, args.modifiers, args.walkCap)
      return { ok: true, matchedTotal: 0, matchedVisible: 0, target: targetOf(el), defaultAction: outcome.action,
        ...(outcome.focused ? { focused: targetOf(outcome.focused) } : {}) }
    }
    const found = resolve(args)
    if (found.missingRef) return { missingRef: true }
    const counts = { matchedTotal: found.matches.length, matchedVisible: found.visible.length }
    // For type, whether the text would have gone into a password field, so a log of the request keeps only its
    // length; before a single target is known, any match being one counts.
    const isPassword = (el) => el.localName === 'input' && el.type === 'password'
    const passwordFlag = op === 'type' ? { isPassword: found.matches.some(isPassword) } : {}
    const refuse = (reason, extra) => ({ ok: false, reason, ...counts, ...passwordFlag, ...extra })
    if (found.visible.length === 0) {
      // File inputs are often drawn invisible under a styled label: still an upload, never automated (BR.GEN.8).
      const upload = op === 'scroll' ? undefined : found.matches.find(isUpload)
      if (upload) return refuse('upload', { target: targetOf(upload) })
      return refuse('hidden', found.matches.length === 1 ? { target: targetOf(found.matches[0]) } : {})
    }
    if (found.visible.length > 1) {
      return refuse('ambiguous', { candidates: found.visible.map((el) => ({ ref: refOf(el), text: contextText(el, args.name) })) })
    }
    const el = found.visible[0]
    const target = { target: targetOf(el), ...(op === 'type' ? { isPassword: isPassword(el) } : {}) }
    // Bringing an element into view neither uses nor uploads it; the other operations do.
    if (op !== 'scroll') {
      if (isUpload(el)) return refuse('upload', target)
      const disabled = disabledDetail(el)
      if (disabled !== null) return refuse('disabled', { ...target, ...(disabled === 'disabled' ? {} : { detail: disabled }) })
    }
    let kind = null
    if (op === 'type') {
      kind = editKind(el)
      if (kind === null) return refuse('not-editable', target)
      if (kind !== 'select' && isReadOnly(el)) return refuse('readonly', target)
      if (kind === 'select' && optionFor(el, args.text) === null) {
        return refuse('no-such-option', { ...target, options: Array.from(el.options).slice(0, 20).map((option) => normalize(option.label)) })
      }
    }
    // What the pointer goes to: the element, or the label standing in for a hidden checkbox or radio.
    const shown = shownAs(el)
    scrollToCenter(shown)
    if (op === 'scroll') {
      const { x, y } = center(shown)
      return inViewport(shown, x, y) ? { ok: true, ...counts, ...target } : refuse('offscreen', target)
    }
    if (op === 'key') {
      el.focus({ preventScroll: true })
      const outcome = pressKey(el, args.key, args.modifiers, args.walkCap)
      return { ok: true, ...counts, ...target, defaultAction: outcome.action, ...(outcome.focused ? { focused: targetOf(outcome.focused) } : {}) }
    }
    const point = hitTest(shown)
    if (point.reason) return refuse(point.reason, { ...target, ...(point.by ? { by: point.by } : {}) })
    if (op === 'click') return { ok: true, ...counts, ...target, ...clickAt(shown, point) }
    return typeInto(el, kind, args.text) ? { ok: true, ...counts, ...target } : refuse('rejected-value', target)
  }

  // Two hops through the task queue let what the page scheduled in reaction (a framework's re-render, a sanitizer)
  // run; then the typed value is read back once more (BR.ACT.12 rejected-value).
  const nextTask = () => new Promise((done) => {
    const channel = new MessageChannel()
    channel.port1.onmessage = () => done()
    channel.port2.postMessage(0)
  })
  const afterAct = async () => {
    const check = pending
    pending = null
    await nextTask()
    await nextTask()
    return check === null ? null : { valueKept: check.check() }
  }

  const style = (args) => {
    let elements
    if (args.ref !== undefined) {
      const el = elementOf(args.ref)
      if (!el) return { missingRef: true }
      elements = [el]
    } else {
      try { elements = Array.from(document.querySelectorAll(args.selector)) } catch (error) { return { invalidSelector: String(error.message || error) } }
    }
    if (args.set) {
      const entries = Object.entries(args.set).map(([prop, raw]) => {
        const property = prop.startsWith('--') ? prop : prop.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())
        const important = /!\s*important\s*$/i.test(raw)
        const value = raw.replace(/!\s*important\s*$/i, '').trim()
        return { property, value, priority: important ? 'important' : '' }
      })
      const refused = entries.find((entry) => !entry.property.startsWith('--') && !CSS.supports(entry.property, entry.value))
      if (refused) return { invalidStyle: refused.property + ': ' + refused.value }
      for (const el of elements) for (const entry of entries) el.style.setProperty(entry.property, entry.value, entry.priority)
    } else if (args.addClasses) {
      for (const el of elements) el.classList.add(...args.addClasses)
    } else if (args.removeClasses) {
      for (const el of elements) el.classList.remove(...args.removeClasses)
    } else {
      // One sheet per document or shadow root the targets live in, so a sheet for a shadow tree's element applies there.
      const roots = new Set(elements.map((el) => el.getRootNode()))
      for (const root of roots) {
        const sheet = (root.ownerDocument || root).createElement('style')
        sheet.setAttribute('data-quire-style', '')
        sheet.textContent = args.injectCss
        const parent = root.nodeType === 9 ? (root.head || root.documentElement) : root
        parent.appendChild(sheet)
      }
    }
    return { elements: elements.length }
  }
`
