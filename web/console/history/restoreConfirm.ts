import type { HistoryRestorePreview } from '../../../adapters/http/consoleHistoryApi.js'
import { h } from '../dom.js'
import { renderDiff } from './diffView.js'
import { editsLabel } from './historyEntry.js'

/**
 * The question "Restore this revision" asks first: what the text becomes (the diff from the text now to the restored
 * one: red is taken out, green put back), the person's own typing since that revision called out by session, and
 * Restore / Cancel. Nothing is restored until the person says so.
 */
export function renderRestoreConfirm(preview: HistoryRestorePreview, onRestore: () => void, onCancel: () => void): HTMLElement {
  const yours = preview.yourEdits.map((edit) => `${editsLabel(edit)} (at ${new Date(edit.at).toLocaleTimeString()})`)
  return h(
    'section',
    { className: 'restore-confirm', attrs: { role: 'alertdialog', 'aria-label': `Restore ${preview.revision}?` } },
    h('h3', { text: `Restore ${preview.revision}?` }),
    h('p', { text: `The text becomes what it was at ${preview.revision}, as a new change you can undo. Compared with the text now, the red lines are taken out and the green ones put back.` }),
    ...(yours.length > 0
      ? [
          h(
            'p',
            { className: 'restore-yours' },
            h('strong', { text: 'This also takes out your own typing since then: ' }),
            `${yours.join('; ')}. To take back an assistant's change and keep your typing, use Undo on that change instead.`,
          ),
        ]
      : []),
    renderDiff(preview.diff, onCancel),
    h(
      'div',
      { className: 'restore-buttons' },
      h('button', { className: 'restore-ok primary', text: `Restore ${preview.revision}`, attrs: { type: 'button' }, onClick: onRestore }),
      h('button', { className: 'restore-cancel', text: 'Cancel', attrs: { type: 'button' }, onClick: onCancel }),
    ),
  )
}

/** After a restore: what was restored, and "Undo restore" (the restore is a change like any other). */
export function renderRestoreDone(restored: { readonly revision: string; readonly change?: string; readonly undone: boolean }, onUndo: () => void, onDismiss: () => void): HTMLElement {
  return h(
    'section',
    { className: 'restore-done', attrs: { role: 'status' } },
    h('span', { text: restored.undone ? `The restore of ${restored.revision} is undone.` : `Restored ${restored.revision}.` }),
    ...(restored.change !== undefined && !restored.undone ? [h('button', { className: 'restore-undo', text: 'Undo restore', attrs: { type: 'button' }, onClick: onUndo })] : []),
    h('button', { className: 'restore-dismiss', text: '×', title: 'Dismiss', attrs: { type: 'button', 'aria-label': 'Dismiss' }, onClick: onDismiss }),
  )
}
