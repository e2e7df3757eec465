import { h } from './dom.js'

/** The console's fixed layout; the app fills each part in. */
export interface Shell {
  readonly windowSelect: HTMLSelectElement
  readonly modeSwitch: HTMLElement
  readonly rail: HTMLElement
  readonly tabStrip: HTMLElement
  readonly editorHost: HTMLElement
  readonly statusLine: HTMLElement
}

export function renderShell(root: HTMLElement): Shell {
  const windowSelect = h('select', { attrs: { id: 'window-select', 'aria-label': 'Window' } })
  const modeSwitch = h('div', { className: 'mode-switch', attrs: { role: 'group', 'aria-label': 'Editor mode' } })
  const rail = h('nav', { className: 'rail', attrs: { 'aria-label': 'Workspaces' } })
  const tabStrip = h('div', { className: 'tabstrip', attrs: { role: 'tablist' } })
  const editorHost = h('div', { className: 'editor-host', attrs: { id: 'editor' } })
  const statusLine = h('footer', { className: 'statusline', attrs: { role: 'status' } })
  root.replaceChildren(
    h(
      'header',
      { className: 'topbar' },
      h('span', { className: 'brand', text: 'Quire' }),
      h('label', { className: 'window-picker' }, 'Window ', windowSelect),
      h('span', { className: 'spacer' }),
      modeSwitch,
    ),
    h('div', { className: 'body' }, rail, h('main', { className: 'main' }, tabStrip, editorHost)),
    statusLine,
  )
  return { windowSelect, modeSwitch, rail, tabStrip, editorHost, statusLine }
}

/** Shown when this browser is not signed in: how to get the console's link. */
export function renderSignedOut(root: HTMLElement, reason: string): void {
  root.replaceChildren(
    h(
      'div',
      { className: 'signed-out' },
      h('h1', { text: 'Quire console' }),
      h('p', { text: reason }),
      h('p', { text: 'Open the link that `quire serve` printed when it started, the line that begins with:' }),
      h('pre', { text: 'console: http://127.0.0.1:PORT/?code=…' }),
      h('p', { text: 'That link works once. For another browser, use http://127.0.0.1:PORT/?token=TOKEN once, with the port file of the data directory (PORT:TOKEN); the token changes each time the daemon starts. Either way the address bar is cleared at once and the browser keeps a session cookie.' }),
    ),
  )
}
