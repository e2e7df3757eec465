import type { CoherenceRow } from '../../../adapters/http/consoleCoherenceApi.js'
import { h } from '../dom.js'
import { FilesApi } from '../files/filesApi.js'
import type { Shell } from '../shell.js'
import { CoherenceApi } from './coherenceApi.js'
import { CoherenceView } from './coherenceView.js'

/** A breakdown query scans the workspace: often enough to see a save land, not so often that it is all it does. */
const POLL_MS = 3000

export interface CoherenceHost {
  /** The window the console shows: Revise opens the document there. */
  window(): string
  refresh(): void
}

/**
 * Adds the Coherence view to the console in one place: a "Coherence" button in the top bar that swaps the editor
 * area for the view (and back), like the Browser view, which it takes the place of when that is shown. While it is
 * shown it re-reads the picked workspace every few seconds; hidden, it asks nothing. Revise opens the stale document
 * in the editor and goes back to it.
 */
export function mountCoherence(shell: Pick<Shell, 'modeSwitch' | 'rail'>, host: CoherenceHost, api = new CoherenceApi(), files = new FilesApi()): void {
  const editorArea = shell.rail.parentElement
  if (!editorArea) return
  let shown = false
  const view = new CoherenceView(api, (row) => void revise(row))
  const button = h('button', {
    className: 'coherence-open', text: 'Coherence', attrs: { type: 'button', 'aria-pressed': 'false' },
    onClick: () => show(!shown),
  })
  const browserShown = () => document.querySelector('.browser-open[aria-pressed="true"]') !== null

  function show(wanted: boolean): void {
    if (wanted && browserShown()) document.querySelector<HTMLButtonElement>('.browser-open')?.click()
    shown = wanted
    button.setAttribute('aria-pressed', String(shown))
    view.element.hidden = !shown
    editorArea!.hidden = shown || browserShown()
    if (shown) void poll()
  }

  async function revise(row: CoherenceRow): Promise<void> {
    if (row.downstreamFile === null) return
    await files.open(row.downstreamFile, host.window())
    show(false)
    host.refresh()
  }

  async function poll(): Promise<void> {
    if (!shown || !button.isConnected) return
    await view.refresh()
    setTimeout(() => void poll(), POLL_MS)
  }

  // The Browser view swaps the same editor area: opening it closes this one (before its own handler runs).
  document.addEventListener('click', (event) => {
    if (shown && event.target instanceof Element && event.target.closest('.browser-open')) {
      shown = false
      button.setAttribute('aria-pressed', 'false')
      view.element.hidden = true
    }
  }, true)

  shell.modeSwitch.before(button)
  editorArea.after(view.element)
}
