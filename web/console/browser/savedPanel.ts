import type { BrowserSaved } from '../../../adapters/http/consoleBrowserApi.js'
import { h } from '../dom.js'

export type SavedKind = 'session' | 'profile'

/**
 * The person's saved browser state: the sessions assistants saved (`browser.session_save`) and the named profiles
 * (`browser.open {profile}`), by name and origin only, each with Delete. Shown beside the live view while the
 * "Saved" button is pressed. Rebuilt only when the lists changed, so a poll never replaces a button under a click.
 */
export class SavedPanel {
  readonly element = h('section', { className: 'browser-saved', attrs: { 'aria-label': 'Saved sessions and profiles', hidden: '' } })
  #renderedKey = ''

  constructor(private readonly onDelete: (kind: SavedKind, name: string) => void) {}

  update(saved: BrowserSaved): void {
    const key = JSON.stringify(saved)
    if (key === this.#renderedKey) return
    this.#renderedKey = key
    this.element.replaceChildren(
      h('h2', { className: 'browser-side-title', text: 'Saved sessions' }),
      saved.sessions.length === 0
        ? h('p', { className: 'browser-saved-empty', text: 'No saved sessions. An assistant saves one with browser.session_save, with your approval.' })
        : h('ul', { className: 'browser-saved-list' }, ...saved.sessions.map((session) => this.#item('session', session.name, [session.origin]))),
      h('h2', { className: 'browser-side-title', text: 'Profiles' }),
      saved.profiles.length === 0
        ? h('p', { className: 'browser-saved-empty', text: 'No named profiles. An assistant opens one with browser.open {profile}, with your approval.' })
        : h('ul', { className: 'browser-saved-list' }, ...saved.profiles.map((profile) => this.#item('profile', profile.name, profile.origins))),
    )
  }

  #item(kind: SavedKind, name: string, origins: readonly string[]): HTMLElement {
    return h(
      'li',
      { className: `browser-saved-item saved-${kind}`, attrs: { 'data-kind': kind, 'data-name': name } },
      h('strong', { className: 'browser-saved-name', text: name }),
      h('button', {
        className: 'browser-saved-delete', text: 'Delete', title: kind === 'session' ? 'Delete this saved session' : 'Delete this profile with its logins',
        attrs: { type: 'button' }, onClick: () => this.onDelete(kind, name),
      }),
      h(
        'div',
        { className: 'browser-saved-origins' },
        ...(origins.length === 0 ? [h('span', { className: 'browser-saved-none', text: 'no site opened yet' })] : origins.map((origin) => h('code', { className: 'browser-saved-origin', text: origin }))),
      ),
    )
  }
}
