import { ACT_LIB_SOURCE } from './actLib.js'

/**
 * The page-side half of the engine, as source text: it is evaluated in the engine's isolated world of a page's main
 * frame (see pageSession.ts), which shares the DOM with the page but none of the page's JavaScript globals, so a
 * page cannot read or forge the ref store. The reads never write to the DOM (BRR.GEN.2); only `act` and `style`
 * (actLib.ts) change the page. It is source text rather than a function because the engine compiles without DOM
 * types and the code runs in another realm anyway.
 *
 * One store per document: the isolated world's global lives exactly as long as the document, so refs are stable for
 * the document's life (BRR.READ.4) and start over when a navigation replaces it.
 */
export const AGENT_LIB_SOURCE = String.raw`(() => {
  if (globalThis.__quireAgent) return 'present'
  const store = { refs: new WeakMap(), byRef: new Map(), n: 0 }
  const refOf = (el) => {
    let ref = store.refs.get(el)
    if (ref === undefined) {
      ref = 'e' + (++store.n)
      store.refs.set(el, ref)
      store.byRef.set(ref, new WeakRef(el))
    }
    return ref
  }
  const elementOf = (ref) => {
    const el = store.byRef.get(ref)?.deref()
    return el && el.isConnected ? el : null
  }
  const normalize = (text) => (text || '').replace(/\s+/g, ' ').trim()
  const textOf = (el) => normalize(el.textContent)
  const BUTTON_INPUTS = new Set(['submit', 'button', 'reset', 'image'])
  // Landmarks and containers are not named by their content (ARIA's "name from content" roles are).
  const NAME_FROM_CONTENT = new Set(['button', 'link', 'heading', 'checkbox', 'radio', 'switch', 'tab', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'option', 'treeitem', 'cell', 'columnheader', 'rowheader', 'gridcell', 'tooltip'])
  // What a person sees of the element's text: innerText leaves out what CSS hides.
  const renderedTextOf = (el) => normalize(typeof el.innerText === 'string' ? el.innerText : el.textContent)

  const roleOf = (el) => {
    const explicit = (el.getAttribute('role') || '').trim().split(/\s+/)[0]
    if (explicit) return explicit === 'presentation' || explicit === 'none' ? null : explicit
    const tag = el.localName
    if (/^h[1-6]$/.test(tag)) return 'heading'
    switch (tag) {
      case 'button': return 'button'
      case 'a': return el.hasAttribute('href') ? 'link' : null
      case 'nav': return 'navigation'
      case 'main': return 'main'
      case 'textarea': return 'textbox'
      case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox'
      case 'img': return 'img'
      case 'input': {
        const type = (el.getAttribute('type') || 'text').toLowerCase()
        if (type === 'checkbox') return 'checkbox'
        if (type === 'radio') return 'radio'
        if (BUTTON_INPUTS.has(type) || type === 'file') return 'button'
        if (type === 'range') return 'slider'
        if (type === 'number') return 'spinbutton'
        if (type === 'search') return 'searchbox'
        if (type === 'hidden') return null
        return 'textbox'
      }
    }
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return 'textbox'
    return null
  }

  const nameOf = (el) => {
    const labelledBy = el.getAttribute('aria-labelledby')
    if (labelledBy) {
      const root = el.getRootNode()
      const text = labelledBy.split(/\s+/).map((id) => root.getElementById?.(id) || document.getElementById(id))
        .filter(Boolean).map(textOf).join(' ')
      if (normalize(text)) return normalize(text)
    }
    const label = normalize(el.getAttribute('aria-label'))
    if (label) return label
    if (el.localName === 'img') return normalize(el.getAttribute('alt'))
    const isControl = ['input', 'select', 'textarea'].includes(el.localName)
    if (isControl) {
      const fromLabels = el.labels ? Array.from(el.labels).map(textOf).join(' ') : ''
      if (normalize(fromLabels)) return normalize(fromLabels)
      const wrapping = el.closest('label')
      if (wrapping && textOf(wrapping)) return textOf(wrapping)
      if (el.getAttribute('type') === 'image' && el.getAttribute('alt')) return normalize(el.getAttribute('alt'))
      const placeholder = normalize(el.getAttribute('placeholder'))
      if (placeholder) return placeholder
      if (el.localName === 'input' && BUTTON_INPUTS.has((el.type || '').toLowerCase())) return normalize(el.value)
      return normalize(el.getAttribute('title'))
    }
    if (NAME_FROM_CONTENT.has(roleOf(el))) return renderedTextOf(el) || normalize(el.getAttribute('title'))
    return normalize(el.getAttribute('title'))
  }

  // Hidden for the accessibility tree: the whole subtree goes (display:none, hidden, aria-hidden, inert).
  const subtreeHidden = (el) => el.hidden || el.inert || el.getAttribute('aria-hidden') === 'true' ||
    getComputedStyle(el).display === 'none'
  // visibility:hidden hides the element itself; a descendant may set visibility:visible again.
  const selfHidden = (el) => getComputedStyle(el).visibility !== 'visible'

  const checkedOf = (el, role) => {
    if (el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio')) return el.indeterminate ? 'mixed' : el.checked
    if (role === 'checkbox' || role === 'radio' || role === 'switch' || role === 'menuitemcheckbox') {
      const aria = el.getAttribute('aria-checked')
      return aria === 'mixed' ? 'mixed' : aria === 'true'
    }
    return undefined
  }
  const disabledOf = (el) => el.getAttribute('aria-disabled') === 'true' || el.matches(':disabled')

  const read = ({ nodeCap, nameCap, walkCap }) => {
    const snapshot = []
    let truncated = false
    let unreachableFrames = 0
    let walked = 0
    const visit = (el) => {
      if (snapshot.length >= nodeCap || walked >= walkCap) { truncated = true; return }
      walked++
      if (subtreeHidden(el)) return
      const role = selfHidden(el) ? null : roleOf(el)
      if (role) {
        let name = nameOf(el)
        if (name.length > nameCap) { name = name.slice(0, nameCap); truncated = true }
        const node = { role, name, ref: refOf(el) }
        if (role === 'heading') {
          const level = Number(el.getAttribute('aria-level')) || Number(el.localName.slice(1))
          if (level) node.level = level
        }
        const checked = checkedOf(el, role)
        if (checked !== undefined) node.checked = checked
        if (disabledOf(el)) node.disabled = true
        if (el.localName === 'input' && el.type === 'file') node.upload = true
        snapshot.push(node)
      }
      if (el.localName === 'iframe' || el.localName === 'frame') {
        let inner = null
        try { inner = el.contentDocument } catch { inner = null }
        if (inner && inner.documentElement) visit(inner.documentElement)
        else unreachableFrames++
        return
      }
      if (el.shadowRoot) for (const child of el.shadowRoot.children) visit(child)
      // A slot shows its assigned nodes, which are walked where they live (the host's light DOM).
      for (const child of el.children) visit(child)
    }
    if (document.documentElement) visit(document.documentElement)
    return { snapshot, truncated, unreachableFrames }
  }

  const query = ({ selector, elementCap, textCap, fields }) => {
    let matched
    try { matched = document.querySelectorAll(selector) } catch (error) { return { invalidSelector: String(error.message || error) } }
    const elements = []
    for (const el of Array.from(matched).slice(0, elementCap)) {
      const text = normalize(el.innerText ?? el.textContent)
      const element = { ref: refOf(el), tag: el.localName, text: text.length > textCap ? text.slice(0, textCap) : text }
      if (fields.attributes) {
        element.attributes = {}
        for (const attribute of el.attributes) element.attributes[attribute.name] = attribute.value.slice(0, textCap)
      }
      if (fields.box) {
        const r = el.getBoundingClientRect()
        element.box = { x: r.x, y: r.y, width: r.width, height: r.height }
      }
      if (fields.styles.length > 0) {
        const style = getComputedStyle(el)
        element.styles = {}
        for (const prop of fields.styles) element.styles[prop] = style.getPropertyValue(prop)
      }
      elements.push(element)
    }
    return { count: matched.length, elements }
  }

  const describe = (ref) => {
    const el = elementOf(ref)
    if (!el) return null
    return { role: roleOf(el), name: nameOf(el), tag: el.localName }
  }

  // Visible for wait_for: rendered (checkVisibility walks display, visibility and content-visibility up the tree).
  const rendered = (el) => el.checkVisibility({ visibilityProperty: true, opacityProperty: false })

  const findRole = ({ role, name, nodeCap, nameCap, walkCap }) => {
    const found = read({ nodeCap, nameCap, walkCap }).snapshot
      .filter((node) => node.role === role && (name === undefined || node.name === name))
    for (const node of found) if (rendered(elementOf(node.ref))) return node.ref
    return null
  }
  const refRendered = (ref) => {
    const el = elementOf(ref)
    return el === null ? null : rendered(el)
  }
  const hasText = (text) => (document.body ? document.body.innerText.includes(text) : false)

  const capture = ({ htmlCap }) => {
    const html = document.documentElement ? document.documentElement.outerHTML : ''
    return { html: html.slice(0, htmlCap), truncated: html.length > htmlCap }
  }

${ACT_LIB_SOURCE}
  Object.defineProperty(globalThis, '__quireAgent', {
    value: Object.freeze({ read, query, describe, findRole, refRendered, hasText, capture, act, afterAct, style }),
  })
  return 'installed'
})()`
