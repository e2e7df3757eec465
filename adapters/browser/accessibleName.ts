/**
 * The role and accessible-name rules of the page-side code, as source text spliced into both isolated worlds that
 * name elements: the agent library's (agentLib.ts: read, describe, act's targets) and the recorder's capture shim
 * (recorderShim.ts). One text for both, because a recorded step is replayed by an act that looks its element up by
 * role and name: were the two worlds to name an element differently, the replay would not find it.
 *
 * It is source text, like the libraries it goes into: the engine compiles without DOM types and the code runs in
 * another realm. It declares, in the scope it is spliced into, `normalize`, `textOf`, `renderedTextOf`,
 * `BUTTON_INPUTS`, `NAME_FROM_CONTENT`, `inputType`, `roleOf` and `nameOf`, and reads the DOM only.
 *
 * It never reads a field's value (the recorder must not, BR.WORKFLOW_RECORD.7): a button input (submit, button, reset,
 * image) is named by its value attribute, which is the page's label for it, not anything a person typed. For those
 * types the IDL value is that same attribute (their value mode is "default"), so the agent side names them exactly as
 * before.
 */
export const ACCESSIBLE_NAME_SOURCE = String.raw`
  const normalize = (text) => (text || '').replace(/\s+/g, ' ').trim()
  const textOf = (el) => normalize(el.textContent)
  const BUTTON_INPUTS = new Set(['submit', 'button', 'reset', 'image'])
  // Landmarks and containers are not named by their content (ARIA's "name from content" roles are).
  const NAME_FROM_CONTENT = new Set(['button', 'link', 'heading', 'checkbox', 'radio', 'switch', 'tab', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'option', 'treeitem', 'cell', 'columnheader', 'rowheader', 'gridcell', 'tooltip'])
  // What a person sees of the element's text: innerText leaves out what CSS hides.
  const renderedTextOf = (el) => normalize(typeof el.innerText === 'string' ? el.innerText : el.textContent)
  // The type attribute as the browser matches it (ASCII case-insensitively); absent, an input is a text field.
  const inputType = (el) => (el.getAttribute('type') || 'text').toLowerCase()

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
        const type = inputType(el)
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
    if (['input', 'select', 'textarea'].includes(el.localName)) {
      const fromLabels = el.labels ? Array.from(el.labels).map(textOf).join(' ') : ''
      if (normalize(fromLabels)) return normalize(fromLabels)
      const wrapping = el.closest('label')
      if (wrapping && textOf(wrapping)) return textOf(wrapping)
      if (el.localName === 'input' && inputType(el) === 'image' && el.getAttribute('alt')) return normalize(el.getAttribute('alt'))
      const placeholder = normalize(el.getAttribute('placeholder'))
      if (placeholder) return placeholder
      if (el.localName === 'input' && BUTTON_INPUTS.has(inputType(el))) return normalize(el.getAttribute('value'))
      return normalize(el.getAttribute('title'))
    }
    if (NAME_FROM_CONTENT.has(roleOf(el))) return renderedTextOf(el) || normalize(el.getAttribute('title'))
    return normalize(el.getAttribute('title'))
  }
`
