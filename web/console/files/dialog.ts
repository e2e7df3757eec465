import { h } from '../dom.js'

export interface DialogChoice<T extends string> {
  readonly value: T
  readonly label: string
  /** The button Enter presses. */
  readonly primary?: boolean
}

export interface DialogOptions<T extends string> {
  readonly title: string
  readonly message: string
  readonly choices: readonly DialogChoice<T>[]
  /** A text field (a path, a name), prefilled; its value comes back with the choice. */
  readonly input?: { readonly label: string; readonly value: string }
}

/**
 * A small modal question (the console's own, not the browser's `confirm`, so a test and a person see the same
 * thing): resolves with the button pressed and the text field's value; Escape or a click outside is `cancel`.
 */
export function ask<T extends string>(options: DialogOptions<T>): Promise<{ choice: T | 'cancel'; text: string }> {
  return new Promise((resolve) => {
    const field = options.input ? h('input', { className: 'dialog-input', attrs: { type: 'text', 'aria-label': options.input.label, spellcheck: 'false' } }) : null
    if (field && options.input) field.value = options.input.value
    const finish = (choice: T | 'cancel') => {
      backdrop.remove()
      document.removeEventListener('keydown', onKey, true)
      resolve({ choice, text: field?.value ?? '' })
    }
    const buttons = options.choices.map((choice) =>
      h('button', {
        className: `dialog-button${choice.primary ? ' primary' : ''}`,
        text: choice.label,
        attrs: { type: 'button', 'data-choice': choice.value },
        onClick: () => finish(choice.value),
      }),
    )
    const cancel = h('button', { className: 'dialog-button', text: 'Cancel', attrs: { type: 'button', 'data-choice': 'cancel' }, onClick: () => finish('cancel') })
    const dialog = h(
      'div',
      { className: 'dialog', attrs: { role: 'dialog', 'aria-modal': 'true', 'aria-label': options.title } },
      h('h2', { className: 'dialog-title', text: options.title }),
      h('p', { className: 'dialog-message', text: options.message }),
      ...(field && options.input ? [h('label', { className: 'dialog-label', text: options.input.label }, field)] : []),
      h('div', { className: 'dialog-buttons' }, ...buttons, cancel),
    )
    const backdrop = h('div', { className: 'dialog-backdrop' }, dialog)
    backdrop.addEventListener('mousedown', (event) => {
      if (event.target === backdrop) finish('cancel')
    })
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        event.preventDefault()
        finish('cancel')
      } else if (event.key === 'Enter') {
        const primary = options.choices.find((choice) => choice.primary)
        if (primary) {
          event.preventDefault()
          finish(primary.value)
        }
      }
    }
    document.addEventListener('keydown', onKey, true)
    document.body.append(backdrop)
    if (field) {
      field.focus()
      // The name without its extension selected, as file managers do.
      const dot = field.value.lastIndexOf('.')
      const slash = field.value.lastIndexOf('/')
      field.setSelectionRange(slash + 1, dot > slash ? dot : field.value.length)
    } else {
      buttons.find((_button, index) => options.choices[index]?.primary)?.focus()
    }
  })
}
