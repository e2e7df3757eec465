import type { EditorDeletion } from '../editor.js'

/**
 * The element that shows text an assistant's pending change deleted, where it was: struck through, never editable,
 * line breaks as ↵ (so it never splits the line it is drawn in), with who and when on hover and its change and hunk
 * for the suggestion's card. Both editors draw it as a widget.
 */
export function deletedTextElement(deletion: EditorDeletion): HTMLElement {
  const element = document.createElement('span')
  element.className = 'suggestion-deleted'
  element.textContent = deletion.text.replace(/\r?\n/g, '↵')
  element.contentEditable = 'false'
  element.setAttribute('data-tip', deletion.title)
  for (const [name, value] of Object.entries(deletion.data)) element.setAttribute(`data-${name}`, value)
  return element
}

/** Whether two deletions draw the same element (an editor keeps the one it has). */
export const sameDeletion = (a: EditorDeletion, b: EditorDeletion): boolean =>
  a.text === b.text && a.title === b.title && JSON.stringify(a.data) === JSON.stringify(b.data)
