import type { HistoryEditsItem, HistoryItem, HistoryReviewActionItem } from '../../../adapters/http/consoleHistoryApi.js'
import { h } from '../dom.js'

/** How each kind of entry looks: a glyph and a CSS class, so the person tells saves, AI writes and restores apart. */
const GLYPHS: Record<HistoryItem['kind'] | 'mcp-save', string> = {
  save: '⤓',
  'mcp-save': '⤓',
  'ai-write': '✦',
  restore: '↺',
  reviewed: '✓',
  review: '⟲',
  edits: '✎',
}

const REASONS = { open: 'Opened', save: 'Saved', reload: 'Reloaded from disk' } as const
const ACTIONS = { kept: 'Kept', undone: 'Undid', redone: 'Redid' } as const
const STATES = { pending: 'unreviewed', kept: 'kept', undone: 'undone', mixed: 'partly undone' } as const

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
    case 'review':
      return reviewLabel(entry)
    case 'edits':
      return editsLabel(entry)
  }
}

/** "Undid claude's change (hunk 2 of 3)", "Undid the restore". */
function reviewLabel(entry: HistoryReviewActionItem): string {
  const whose = entry.agent === 'person' ? 'the restore' : `${entry.agent}'s change`
  const part = entry.hunks.length < entry.of ? ` (hunk${entry.hunks.length === 1 ? '' : 's'} ${entry.hunks.map((index) => index + 1).join(', ')} of ${entry.of})` : ''
  return `${ACTIONS[entry.action]} ${whose}${part}`
}

/** "You edited ¶3 for 4 min": which paragraphs, and for how long. */
export function editsLabel(entry: HistoryEditsItem): string {
  const minutes = Math.round((entry.until - entry.at) / 60_000)
  return `You edited ${paragraphList(entry.paragraphs)} ${minutes < 1 ? 'for less than a minute' : `for ${minutes} min`}`
}

/** ¶3; ¶2 and ¶5; ¶1–¶4, ¶7 and ¶9. */
function paragraphList(paragraphs: readonly number[]): string {
  const runs: string[] = []
  for (let index = 0; index < paragraphs.length; ) {
    let end = index
    while (end + 1 < paragraphs.length && paragraphs[end + 1] === paragraphs[end]! + 1) end++
    if (end - index >= 2) runs.push(`¶${paragraphs[index]}–¶${paragraphs[end]}`)
    else for (let each = index; each <= end; each++) runs.push(`¶${paragraphs[each]}`)
    index = end + 1
  }
  return runs.length <= 1 ? (runs[0] ?? '') : `${runs.slice(0, -1).join(', ')} and ${runs.at(-1)}`
}

function glyphOf(entry: HistoryItem): string {
  return GLYPHS[entry.kind === 'save' && entry.mcp ? 'mcp-save' : entry.kind]
}

/** The entry's second line: when, which revision, and what an AI write addressed or asked for. */
function details(entry: HistoryItem): Node[] {
  const when = new Date(entry.at).toLocaleTimeString()
  const parts: Node[] = [h('span', { className: 'history-when', text: when }), h('code', { className: 'history-rev', text: entry.revision })]
  if (entry.kind === 'save') parts.push(h('span', { className: 'history-meta', text: `${entry.length} chars · ${entry.actor}` }))
  if (entry.kind === 'edits') parts.push(h('span', { className: 'history-meta', text: `${entry.edits} edit${entry.edits === 1 ? '' : 's'}` }))
  if (entry.kind === 'review') parts.push(h('code', { className: 'history-change', text: entry.change }))
  if (entry.kind === 'restore' && entry.state === 'undone') parts.push(h('span', { className: 'history-state', text: 'undone' }))
  if (entry.kind === 'ai-write') {
    parts.push(h('code', { className: 'history-change', text: entry.change }))
    if (entry.detail) parts.push(h('span', { className: 'history-meta', text: entry.detail }))
    if (!entry.reviewed) parts.push(h('span', { className: 'history-unreviewed', text: 'unreviewed' }))
    else parts.push(h('span', { className: `history-state state-${entry.state}`, text: STATES[entry.state] }))
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
  /** Keep, undo or redo the entry's change (an AI write's, or a restore's). */
  onReview(action: 'keep' | 'undo' | 'redo', change: string): void
}

/** The review buttons an entry's change has, by where the review left it. */
function reviewButtons(entry: HistoryItem, onReview: EntryActions['onReview']): HTMLElement[] {
  const made = (action: 'keep' | 'undo' | 'redo', change: string, text: string) =>
    h('button', { className: `history-${action}-change`, text, attrs: { type: 'button' }, onClick: () => onReview(action, change) })
  if (entry.kind === 'ai-write') {
    const { change, state } = entry
    return [
      ...(state === 'pending' ? [made('keep', change, 'Keep')] : []),
      ...(state !== 'undone' ? [made('undo', change, 'Undo')] : []),
      ...(state === 'undone' || state === 'mixed' ? [made('redo', change, 'Redo')] : []),
    ]
  }
  if (entry.kind === 'restore' && entry.change !== undefined) {
    return entry.state === 'undone' ? [made('redo', entry.change, 'Redo restore')] : [made('undo', entry.change, 'Undo restore')]
  }
  return []
}

/**
 * One row of the sidebar: a checkbox to pick it for a diff, its label and details, what an AI write or a restore
 * changed, Keep / Undo / Redo of its change, and "Restore this revision".
 */
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
  const summary = entry.kind === 'ai-write' || entry.kind === 'restore' ? [h('div', { className: 'history-summary', text: entry.summary })] : []
  return h(
    'li',
    { className: `history-entry kind-${kind}${actions.selected ? ' selected' : ''}`, attrs: { 'data-kind': kind, 'data-revision': entry.revision, 'data-position': String(entry.position) } },
    h('label', { className: 'history-pick' }, checkbox),
    h('span', { className: 'history-glyph', text: glyphOf(entry), attrs: { 'aria-hidden': 'true' } }),
    h(
      'div',
      { className: 'history-body' },
      h('div', { className: 'history-label', text: entryLabel(entry) }),
      h('div', { className: 'history-details' }, ...details(entry)),
      ...summary,
      h('div', { className: 'history-actions' }, ...reviewButtons(entry, actions.onReview), restore),
    ),
  )
}
