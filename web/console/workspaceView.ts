import type { ConsoleState, ConsoleTab, ConsoleWindow } from '../../adapters/http/consoleApi.js'
import { h } from './dom.js'

/** The window selector: every window the server knows, `main` first as the server lists it. */
export function renderWindowSelect(select: HTMLSelectElement, state: ConsoleState, selected: string): void {
  const labels = state.windows.map((window) => window.label)
  const current = [...select.options].map((option) => option.value)
  if (labels.join('\u0000') !== current.join('\u0000')) {
    select.replaceChildren(...labels.map((label) => h('option', { text: label, attrs: { value: label } })))
  }
  select.value = selected
}

/** The tab strip of one window: the tabs on screen (with the rail on, those of the workspace the window shows). */
export function renderTabStrip(strip: HTMLElement, window: ConsoleWindow, onActivate: (tab: ConsoleTab) => void, onClose: (tab: ConsoleTab) => void): void {
  const tabs = window.tabs.filter((tab) => tab.visible)
  if (tabs.length === 0) {
    strip.replaceChildren(h('span', { className: 'tabstrip-empty', text: 'No open tabs in this window' }))
    return
  }
  strip.replaceChildren(
    ...tabs.map((tab) =>
      h(
        'button',
        {
          className: `tab${tab.active ? ' active' : ''}${tab.dirty ? ' dirty' : ''}`,
          title: tab.path ?? `${tab.title} (not saved yet)`,
          attrs: { role: 'tab', 'aria-selected': String(tab.active), 'data-tab-id': tab.tabId, type: 'button' },
          onClick: () => onActivate(tab),
        },
        h('span', { className: 'tab-title', text: tab.title }),
        h('span', { className: `tab-kind kind-${tab.kind}`, text: tab.kind === 'yaml-workflow' ? 'yaml' : 'md' }),
        h('span', { className: 'tab-dirty', text: tab.dirty ? '●' : '', title: tab.dirty ? 'unsaved changes' : '' }),
        closeButton(tab, onClose),
      ),
    ),
  )
}

/**
 * The workspace rail: the window's workspace instances, the one shown marked. Picking another shows it by
 * switching to one of its tabs (the core switches workspaces only through a tab, WS.SWITCH_TAB.3).
 */
export function renderRail(rail: HTMLElement, state: ConsoleState, window: ConsoleWindow, onShow: (tab: ConsoleTab) => void): void {
  rail.hidden = !state.rail || window.instances.length === 0
  if (rail.hidden) {
    rail.replaceChildren()
    return
  }
  rail.replaceChildren(
    h('h2', { className: 'rail-heading', text: 'Workspaces' }),
    ...window.instances.map((instance) => {
      const tabs = window.tabs.filter((tab) => tab.instanceId === instance.instanceId)
      const target = tabs.at(-1)
      const button = h(
        'button',
        {
          className: `rail-item${instance.active ? ' active' : ''}`,
          title: instance.root,
          attrs: { type: 'button', 'data-instance-id': instance.instanceId },
          onClick: () => target && !instance.active && onShow(target),
        },
        h('span', { className: 'rail-name', text: instance.name }),
        h('span', { className: 'rail-count', text: String(tabs.length) }),
      )
      button.disabled = !target && !instance.active
      return button
    }),
  )
}

/** The tab's close control: inside the tab's button, so a span that stops the click from also activating the tab. */
function closeButton(tab: ConsoleTab, onClose: (tab: ConsoleTab) => void): HTMLElement {
  const close = h('span', { className: 'tab-close', text: '×', title: `Close ${tab.title}`, attrs: { role: 'button', 'aria-label': `Close ${tab.title}` } })
  close.addEventListener('click', (event) => {
    event.stopPropagation()
    onClose(tab)
  })
  return close
}
