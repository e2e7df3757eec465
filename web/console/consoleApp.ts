import * as Y from 'yjs'
import type { ConsoleState, ConsoleTab, ConsoleWindow } from '../../adapters/http/consoleApi.js'
import { UnauthorizedError, type ConsoleApi } from './api.js'
import { DocumentSession } from './documentSession.js'
import { mountPanels } from './panels/mountPanels.js'
import { mountBrowser } from './browser/mountBrowser.js'
import { mountCoherence } from './coherence/mountCoherence.js'
import { PanelsApi } from './panels/panelsApi.js'
import { mountHistory } from './history/mountHistory.js'
import { mountComments } from './comments/mountComments.js'
import { mountFiles, type MountedFiles } from './files/mountFiles.js'
import { mountReview } from './review/mountReview.js'
import { WhoIsHere } from './people/whoIsHere.js'
import { showMarkTips } from './highlights/markTip.js'
import { h } from './dom.js'
import type { Shell } from './shell.js'
import { renderStatus } from './statusLine.js'
import { renderRail, renderTabStrip, renderWindowSelect } from './workspaceView.js'

const POLL_MS = 1000
const WINDOW_KEY = 'quire.console.window'

/**
 * The console: polls the state API, shows one window's tabs (and rail), and keeps one document session open on the
 * tab that window shows. The server decides which tab is current: a click asks it to switch, and the editor follows
 * whatever it then reports (so an assistant's `switch_tab` shows here too).
 */
export class ConsoleApp {
  private state: ConsoleState | null = null
  private windowLabel = sessionStorage.getItem(WINDOW_KEY) ?? 'main'
  private session: DocumentSession | null = null
  private apiReachable = true
  private timer: ReturnType<typeof setTimeout> | undefined
  /** Requests issued, and the newest whose answer was applied (answers can arrive out of order). */
  private issued = 0
  private applied = 0
  private renderedWindow = ''
  private renderedModes = ''
  private readonly files: MountedFiles

  constructor(
    private readonly api: ConsoleApi,
    private readonly shell: Shell,
    private readonly onSignedOut: () => void,
  ) {
    shell.windowSelect.addEventListener('change', () => {
      this.windowLabel = shell.windowSelect.value
      sessionStorage.setItem(WINDOW_KEY, this.windowLabel)
      this.render()
    })
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible') void this.refresh()
    })
    mountPanels(shell, new PanelsApi())
    mountBrowser(shell, new PanelsApi())
    mountCoherence(shell, { window: () => this.currentWindow()?.label ?? 'main', refresh: () => void this.refresh() })
    mountHistory(shell, () => this.session?.tab.docId ?? null)
    mountComments(shell, () => this.session)
    mountReview(shell, {
      session: () => this.session,
      changesKey: () => {
        const tabs = this.state?.windows.flatMap((window) => window.tabs)
        return tabs ? [...new Set(tabs.map((tab) => `${tab.docId}@${tab.changesPosition}`))].sort().join(' ') : null
      },
      openTab: (tabId) => this.activateTabId(tabId),
    })
    this.files = mountFiles(shell, {
      window: () => this.currentWindow()?.label ?? 'main',
      activeTab: () => this.activeTab(),
      editorState: (tabId) => {
        const session = this.session
        if (session?.tab.tabId !== tabId) return null
        return btoa(String.fromCharCode(...Y.encodeStateVector(session.ydoc)))
      },
      refresh: () => void this.refresh(),
    })
    const who = new WhoIsHere(
      () => this.session?.ydoc.clientID ?? null,
      (label) => {
        shell.windowSelect.value = label
        shell.windowSelect.dispatchEvent(new Event('change'))
      },
    )
    this.files.tree.element.append(who.element)
    who.start()
    showMarkTips(shell.editorHost)
  }

  /** The tab the shown window is on, as the last state said. */
  private activeTab(): ConsoleTab | null {
    return this.currentWindow()?.tabs.find((tab) => tab.active && tab.visible) ?? null
  }

  /** The open document session, for the introspection hook. */
  get openSession(): DocumentSession | null {
    return this.session
  }

  async start(): Promise<void> {
    await this.refresh()
  }

  async refresh(): Promise<void> {
    clearTimeout(this.timer)
    const ticket = ++this.issued
    try {
      this.apply(await this.api.state(), ticket)
      this.apiReachable = true
    } catch (error) {
      if (error instanceof UnauthorizedError) return this.signOut()
      this.apiReachable = false
    }
    this.render()
    this.timer = setTimeout(() => void this.refresh(), POLL_MS)
  }

  /** Shows a tab, whichever window it is in (the Review list opens a document this way). */
  private async activateTabId(tabId: string): Promise<void> {
    // The Review list is read apart from the console's state: a tab an assistant opened a moment ago can be in the
    // list before the state names it, so the state is read again before the tab is taken for gone.
    if (!this.findTab(tabId)) await this.refresh()
    const found = this.findTab(tabId)
    if (!found) return
    const { window, tab } = found
    if (window.label !== this.windowLabel) {
      this.windowLabel = window.label
      sessionStorage.setItem(WINDOW_KEY, window.label)
    }
    await this.activate(tab)
  }

  private findTab(tabId: string): { window: ConsoleWindow; tab: ConsoleTab } | null {
    for (const window of this.state?.windows ?? []) {
      const tab = window.tabs.find((candidate) => candidate.tabId === tabId)
      if (tab) return { window, tab }
    }
    return null
  }

  private async activate(tab: ConsoleTab): Promise<void> {
    const ticket = ++this.issued
    try {
      const outcome = await this.api.activate(tab.tabId)
      this.apply(outcome.state, ticket)
      this.render()
      this.session?.mountedEditor?.focus()
    } catch (error) {
      if (error instanceof UnauthorizedError) this.signOut()
    }
  }

  /**
   * Takes a state unless a newer request's answer was already taken: a poll that left before a tab switch and
   * answers after it would otherwise flip the editor back to the old tab for a second.
   */
  private apply(state: ConsoleState, ticket: number): void {
    if (ticket < this.applied) return
    this.applied = ticket
    this.state = state
  }

  private signOut(): void {
    clearTimeout(this.timer)
    const session = this.session
    this.session = null
    session?.destroy()
    this.onSignedOut()
  }

  private currentWindow(): ConsoleWindow | undefined {
    if (!this.state) return undefined
    const window = this.state.windows.find((candidate) => candidate.label === this.windowLabel)
    if (window) return window
    this.windowLabel = 'main'
    return this.state.windows.find((candidate) => candidate.label === 'main') ?? this.state.windows[0]
  }

  private render(): void {
    const window = this.currentWindow()
    const activeTab = window?.tabs.find((tab) => tab.active && tab.visible) ?? null
    if (this.state && window) {
      renderWindowSelect(this.shell.windowSelect, this.state, window.label)
      // Rebuilt only when something changed, so a poll never swaps a tab out from under a click.
      const key = JSON.stringify([this.state.rail, window])
      if (key !== this.renderedWindow) {
        this.renderedWindow = key
        renderTabStrip(this.shell.tabStrip, window, (tab) => void this.activate(tab), (tab) => void this.files.actions.close(tab))
        renderRail(this.shell.rail, this.state, window, (tab) => void this.activate(tab))
      }
    }
    if (this.state) this.follow(window?.label ?? 'main', activeTab)
    this.files.tree.render()
    this.renderModeSwitch()
    renderStatus(this.shell.statusLine, {
      apiReachable: this.apiReachable,
      connection: this.session?.connectionState ?? null,
      tab: activeTab,
    })
  }

  /** Keeps the editor on the window's current tab: a new session when the tab (or window) changed. */
  private follow(windowLabel: string, tab: ConsoleTab | null): void {
    const session = this.session
    if (session && tab && session.tab.tabId === tab.tabId && session.windowLabel === windowLabel) {
      session.updateTab(tab)
      session.highlights.changesSeen(tab.changesPosition)
      return
    }
    // Detached first: closing a session reports its connection going offline, which re-renders.
    this.session = null
    session?.destroy()
    if (!tab) {
      this.shell.editorHost.replaceChildren(h('p', { className: 'editor-placeholder', text: 'No tab is open in this window.' }))
      return
    }
    this.session = new DocumentSession(tab, windowLabel, this.shell.editorHost, () => this.render())
    this.session.highlights.changesSeen(tab.changesPosition)
  }

  private renderModeSwitch(): void {
    const session = this.session
    const key = session ? `${session.tab.tabId}:${session.currentMode}:${session.modes.join(',')}` : ''
    if (key === this.renderedModes) return
    this.renderedModes = key
    if (!session) {
      this.shell.modeSwitch.replaceChildren()
      return
    }
    const labels = { wysiwyg: 'WYSIWYG', source: 'Source' } as const
    this.shell.modeSwitch.replaceChildren(
      ...session.modes.map((mode) => {
        const button = h('button', {
          className: `mode${session.currentMode === mode ? ' active' : ''}`,
          text: labels[mode],
          attrs: { type: 'button', 'data-mode': mode, 'aria-pressed': String(session.currentMode === mode) },
          onClick: () => {
            session.switchMode(mode)
            session.mountedEditor?.focus()
          },
        })
        return button
      }),
    )
  }
}
