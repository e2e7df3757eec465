import { h } from '../dom.js'
import type { PanelsApi } from '../panels/panelsApi.js'
import type { Shell } from '../shell.js'
import { BrowserApi } from './browserApi.js'
import { BrowserView } from './browserView.js'

const POLL_MS = 1000

/**
 * Adds the Browser view to the console in one place: a "Browser" button in the top bar that swaps the editor area
 * for the view (and back). While it is shown, it polls the tab list, the workflow runs, the recordings, the pending
 * approvals (the banner over the live view) and, while they are shown, the saved sessions and profiles; hidden, it polls nothing and streams no frames.
 */
export function mountBrowser(shell: Pick<Shell, 'modeSwitch' | 'rail'>, panels: PanelsApi, api = new BrowserApi()): void {
  const editorArea = shell.rail.parentElement
  if (!editorArea) return
  const view = new BrowserView(
    api,
    () => document.querySelector<HTMLButtonElement>('.panel-open[data-panel="approvals"]:not([aria-pressed="true"])')?.click(),
    // The Record button allows the assistant's one recording request, as Approve in the Approvals panel does.
    (approvalId) => panels.decide(approvalId, 'approve'),
  )
  let shown = false
  const button = h('button', {
    className: 'browser-open', text: 'Browser', attrs: { type: 'button', 'aria-pressed': 'false' },
    onClick: () => toggle(),
  })

  function toggle(): void {
    shown = !shown
    button.setAttribute('aria-pressed', String(shown))
    view.element.hidden = !shown
    editorArea!.hidden = shown
    if (shown) void poll()
    else view.hide()
  }

  async function poll(): Promise<void> {
    if (!shown || !button.isConnected) return
    await Promise.all([
      view.refresh(),
      view.refreshRuns(),
      view.refreshSaved(),
      view.refreshRecordings(),
      panels.approvals().then((answer) => view.showApprovals(answer.pending)),
    ]).catch(() => undefined)
    setTimeout(() => void poll(), POLL_MS)
  }

  shell.modeSwitch.before(button)
  editorArea.after(view.element)
}
