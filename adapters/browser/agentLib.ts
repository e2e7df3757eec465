import { ACCESSIBLE_NAME_SOURCE } from './accessibleName.js'
import { ACT_LIB_SOURCE } from './actLib.js'

/**
 * The page-side half of the engine, as source text: it is evaluated in the engine's isolated world of a page's main
 * frame (see pageSession.ts), which shares the DOM with the page but none of the page's JavaScript globals, so a
 * page cannot read or forge the ref store. The reads never write to the DOM (BRR.GEN.2); only `act` and `style`
 * (actLib.ts) change the page. It is source text rather than a function because the engine compiles without DOM
 * types and the code runs in another realm anyway. Its role and name rules are accessibleName.ts's, which the recorder's
 * capture shim names elements by too, so that a recorded step finds its element at replay.
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
${ACCESSIBLE_NAME_SOURCE}
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
