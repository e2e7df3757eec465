import type { PanelDivergence } from '../../../adapters/http/consolePanelsApi.js'
import { h } from '../dom.js'

/**
 * The banner over the editor for documents whose file changed on disk while they had unsaved changes: each offers
 * Keep (the tab's text stays, the next save overwrites the file) or Reload (the file's text replaces the tab's). Tabs
 * of such documents are marked in the tab strip too, re-marked on every update because the strip is rebuilt.
 */
export class DivergenceBanner {
  readonly element = h('div', { className: 'divergence-banner', attrs: { role: 'alert', hidden: '' } })
  private renderedKey = ''

  constructor(
    private readonly tabStrip: HTMLElement,
    private readonly onResolve: (docId: string, choice: 'keep' | 'reload') => void,
  ) {}

  update(divergences: readonly PanelDivergence[]): void {
    const diverged = new Set(divergences.flatMap((divergence) => divergence.tabIds))
    for (const tab of this.tabStrip.querySelectorAll<HTMLElement>('.tab[data-tab-id]')) {
      tab.classList.toggle('diverged', diverged.has(tab.dataset.tabId ?? ''))
    }
    const key = JSON.stringify(divergences)
    if (key === this.renderedKey) return
    this.renderedKey = key
    this.element.hidden = divergences.length === 0
    this.element.replaceChildren(
      ...divergences.map((divergence) =>
        h(
          'div',
          { className: 'divergence', attrs: { 'data-doc-id': divergence.docId } },
          h('span', { className: 'divergence-text' }, h('strong', { text: divergence.title }), ` changed on disk while it has unsaved changes here${divergence.path ? ` (${divergence.path})` : ''}.`),
          h('button', { className: 'keep', text: 'Keep my version', attrs: { type: 'button', 'data-choice': 'keep' }, onClick: () => this.onResolve(divergence.docId, 'keep') }),
          h('button', { className: 'reload primary', text: 'Reload from disk', attrs: { type: 'button', 'data-choice': 'reload' }, onClick: () => this.onResolve(divergence.docId, 'reload') }),
        ),
      ),
    )
  }
}
