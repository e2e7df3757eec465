import type { HistoryDiff } from '../../../adapters/http/consoleHistoryApi.js'
import { h } from '../dom.js'

const MARKS = { same: ' ', removed: '−', added: '+' } as const

/** A unified line diff of two revisions: removed lines red, added lines green, with both sides' line numbers. */
export function renderDiff(diff: HistoryDiff, onClose: () => void): HTMLElement {
  const rows = diff.lines.map((line) =>
    h(
      'div',
      { className: `diff-line diff-${line.kind}` },
      h('span', { className: 'diff-num', text: line.fromLine === undefined ? '' : String(line.fromLine) }),
      h('span', { className: 'diff-num', text: line.toLine === undefined ? '' : String(line.toLine) }),
      h('span', { className: 'diff-mark', text: MARKS[line.kind] }),
      h('span', { className: 'diff-text', text: line.text }),
    ),
  )
  return h(
    'section',
    { className: 'history-diff', attrs: { 'aria-label': 'Diff' } },
    h(
      'header',
      { className: 'diff-head' },
      h('span', { text: `${diff.from} → ${diff.to}` }),
      h('span', { className: 'diff-stat', text: `+${diff.added} −${diff.removed}` }),
      h('button', { className: 'diff-close', text: '×', title: 'Close the diff', attrs: { type: 'button', 'aria-label': 'Close the diff' }, onClick: onClose }),
    ),
    rows.length === 0 ? h('p', { className: 'diff-empty', text: 'The two revisions hold the same text.' }) : h('div', { className: 'diff-lines' }, ...rows),
  )
}
