import type { HistoryItem } from '../../../adapters/http/consoleHistoryApi.js'
import { h } from '../dom.js'

/** How each kind of entry looks: a glyph and a CSS class, so the person tells saves, AI writes and restores apart. */
const GLYPHS: Record<HistoryItem['kind'] | 'mcp-save', string> = {
  save: '⤓',
  'mcp-save': '⤓',
  'ai-write': '✦',
  restore: '↺',
  reviewed: '✓',
}

const REASONS = { open: 'Opened', save: 'Saved', reload: 'Reloaded from disk' } as const

/** The entry's headline: what happened, and who did it. */
export function entryLabel(entry: HistoryItem): string {
  switch (entry.kind) {
    case 'save':
      return entry.mcp ? `${REASONS[entry.reason]} (mcp)` : REASONS[entry.reason]
    case 'ai-write':
      return `AI ${entry.operation.replace('_', ' ')} by ${entry.agent}`
    case 'restore':
      return `Restored ${entry.restored}`
    case 'reviewed':
      return `Reviewed up to ${entry.revision}`
  }
}

function glyphOf(entry: HistoryItem): string {
  return GLYPHS[entry.kind === 'save' && entry.mcp ? 'mcp-save' : entry.kind]
}

/** The entry's second line: when, which revision, and what an AI write addressed or asked for. */
function details(entry: HistoryItem): Node[] {
  const when = new Date(entry.at).toLocaleTimeString()
  const parts: Node[] = [h('span', { className: 'history-when', text: when }), h('code', { className: 'history-rev', text: entry.revision })]
  if (entry.kind === 'save') parts.push(h('span', { className: 'history-meta', text: `${entry.length} chars · ${entry.actor}` }))
  if (entry.kind === 'ai-write') {
    if (entry.detail) parts.push(h('span', { className: 'history-meta', text: entry.detail }))
    if (!entry.reviewed) parts.push(h('span', { className: 'history-unreviewed', text: 'unreviewed' }))
    for (const comment of entry.addresses) {
      const state = comment.state && comment.state !== 'unknown' ? ` (${comment.state})` : ''
      parts.push(h('span', { className: `history-comment${comment.state === 'deleted' ? ' deleted' : ''}`, text: `addresses ${comment.id}${state}` }))
    }
  }
  return parts
}

export interface EntryActions {
  readonly selected: boolean
  readonly current: boolean
  onSelect(selected: boolean): void
  onRestore(): void
}

/** One row of the sidebar: a checkbox to pick it for a diff, its label and details, and "Restore this revision". */
export function renderEntry(entry: HistoryItem, actions: EntryActions): HTMLElement {
  const kind = entry.kind === 'save' && entry.mcp ? 'mcp-save' : entry.kind
  const checkbox = h('input', { attrs: { type: 'checkbox', 'aria-label': `Compare ${entry.revision}` } })
  checkbox.checked = actions.selected
  checkbox.addEventListener('change', () => actions.onSelect(checkbox.checked))
  const restore = h('button', {
    className: 'history-restore',
    text: 'Restore this revision',
    attrs: { type: 'button' },
    onClick: actions.onRestore,
  })
  restore.disabled = actions.current
  if (actions.current) restore.title = 'This is the current revision'
  return h(
    'li',
    { className: `history-entry kind-${kind}${actions.selected ? ' selected' : ''}`, attrs: { 'data-kind': kind, 'data-revision': entry.revision, 'data-position': String(entry.position) } },
    h('label', { className: 'history-pick' }, checkbox),
    h('span', { className: 'history-glyph', text: glyphOf(entry), attrs: { 'aria-hidden': 'true' } }),
    h('div', { className: 'history-body' }, h('div', { className: 'history-label', text: entryLabel(entry) }), h('div', { className: 'history-details' }, ...details(entry)), restore),
  )
}
