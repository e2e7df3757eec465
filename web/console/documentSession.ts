import { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import type { ConsoleTab } from '../../adapters/http/consoleApi.js'
import type { MountedEditor } from './editor.js'
import { receiveAssistantEdits } from './assistantEdits.js'
import { Highlighter } from './highlights/highlighter.js'
import { peerUser } from './identity.js'
import { PresencePublisher, type EditorMode } from './presence.js'
import { ReviewApi } from './review/reviewApi.js'
import { mountSourceEditor } from './sourceEditor.js'
import { mountWysiwygEditor } from './wysiwygEditor.js'

export type ConnectionState = 'connecting' | 'synced' | 'offline'

const MODE_KEY = (tabId: string) => `quire.console.mode.${tabId}`

/** The modes a kind offers: a workflow is YAML, so it has no WYSIWYG view. */
export function modesOf(kind: ConsoleTab['kind']): readonly EditorMode[] {
  return kind === 'yaml-workflow' ? ['source'] : ['wysiwyg', 'source']
}

/**
 * One open document: its Y.Doc, the y-websocket connection to `/collab/<docId>`, the editor showing it, and the
 * presence that editor publishes. The editor mounts after the first sync, so the person never types into an empty
 * copy that would then merge with the real text.
 */
export class DocumentSession {
  readonly ydoc = new Y.Doc()
  /** The assistants' pending changes (as suggestions) and the open threads' anchors, marked in whichever editor is mounted. */
  readonly highlights: Highlighter
  private readonly provider: WebsocketProvider
  private readonly presence: PresencePublisher
  private editor: MountedEditor | undefined
  private mode: EditorMode
  private connection: ConnectionState = 'connecting'
  private kind: ConsoleTab['kind']
  private destroyed = false
  /** Stops waiting for the WYSIWYG mirror (set while WYSIWYG waits for it). */
  private stopWaiting: (() => void) | undefined

  constructor(
    readonly tab: ConsoleTab,
    readonly windowLabel: string,
    private readonly host: HTMLElement,
    private readonly onChange: () => void,
  ) {
    this.kind = tab.kind
    this.highlights = new Highlighter(this.ydoc, tab.docId, () => this.editor, new ReviewApi())
    const remembered = sessionStorage.getItem(MODE_KEY(tab.tabId))
    const modes = modesOf(tab.kind)
    this.mode = modes.find((mode) => mode === remembered) ?? modes[0]!
    const base = `${window.location.protocol === 'https:' ? 'wss' : 'ws'}://${window.location.host}/collab`
    // The server is the only path between peers: no BroadcastChannel shortcut between browser tabs.
    this.provider = new WebsocketProvider(base, tab.docId, this.ydoc, { params: this.connectParams(), disableBc: true })
    this.provider.awareness.setLocalStateField('user', peerUser())
    receiveAssistantEdits(this.provider, this.ydoc, () => this.editor?.undoManager)
    this.presence = new PresencePublisher(this.provider.awareness, { window: windowLabel, tabId: tab.tabId }, this.mode)
    this.provider.on('status', ({ status }) => {
      if (status === 'disconnected') this.setConnection('offline')
      else if (status === 'connecting') this.setConnection('connecting')
    })
    this.provider.on('sync', (synced: boolean) => {
      this.setConnection(synced ? 'synced' : 'connecting')
      if (synced && !this.editor && !this.destroyed) this.mountWhenReady()
    })
    this.renderPlaceholder('Connecting…')
  }

  get connectionState(): ConnectionState {
    return this.connection
  }

  get currentMode(): EditorMode {
    return this.mode
  }

  get modes(): readonly EditorMode[] {
    return modesOf(this.kind)
  }

  get mountedEditor(): MountedEditor | undefined {
    return this.editor
  }

  presenceState() {
    return this.presence.current()
  }

  /** The tab's kind can change (YAML written into an untitled tab): a workflow falls back to source mode. */
  updateTab(tab: ConsoleTab): void {
    if (tab.kind === this.kind) return
    this.kind = tab.kind
    if (!modesOf(tab.kind).includes(this.mode)) this.switchMode('source')
    else if (this.editor) this.remount()
  }

  switchMode(mode: EditorMode): void {
    if (mode === this.mode || !this.modes.includes(mode)) return
    this.mode = mode
    sessionStorage.setItem(MODE_KEY(this.tab.tabId), mode)
    this.presence.setMode(mode)
    if (this.editor || this.stopWaiting) this.remount()
    this.onChange()
  }

  destroy(): void {
    if (this.destroyed) return
    this.destroyed = true
    this.stopWaiting?.()
    this.editor?.destroy()
    this.editor = undefined
    this.presence.destroy()
    this.highlights.destroy()
    // Tells the server this editor is gone (awareness removal) before the socket closes.
    this.provider.awareness.setLocalState(null)
    this.provider.destroy()
    this.ydoc.destroy()
  }

  private remount(): void {
    const hadFocus = this.editor !== undefined && this.host.contains(document.activeElement)
    this.editor?.destroy()
    this.editor = undefined
    this.mountWhenReady(hadFocus)
  }

  /**
   * Mounts the editor for the current mode, except WYSIWYG over an empty mirror: the server's bridge builds the
   * mirror once it sees a WYSIWYG editor's presence, and typing into an empty one first would make the bridge
   * rewrite `source` from that lone paragraph. So WYSIWYG waits, with a note, until the mirror has content.
   */
  private mountWhenReady(focus = false): void {
    this.stopWaiting?.()
    this.stopWaiting = undefined
    const mirror = this.ydoc.getXmlFragment('prosemirror')
    if (this.mode !== 'wysiwyg' || mirror.length > 0) {
      const editor = this.mount()
      if (focus) editor.focus()
      return
    }
    this.renderPlaceholder('Preparing the WYSIWYG view… (Source mode works meanwhile)')
    if (this.provider.params.mirror !== '1') {
      // Opened in source mode, so the server was not asked for the mirror: ask now, on a fresh connection.
      this.provider.params = { ...this.provider.params, mirror: '1' }
      this.provider.disconnect()
      this.provider.connect()
    }
    const ready = () => {
      if (mirror.length === 0 || this.mode !== 'wysiwyg' || this.destroyed) return
      this.stopWaiting?.()
      this.stopWaiting = undefined
      const editor = this.mount()
      if (focus) editor.focus()
    }
    mirror.observe(ready)
    this.stopWaiting = () => mirror.unobserve(ready)
  }

  /**
   * The connection's query (the handshake carries the session cookie, the person's credential): `mirror=1` when the editor starts in WYSIWYG mode, which makes the
   * server build the `prosemirror` mirror before the first sync (a source-only peer never costs the bridge).
   */
  private connectParams(): Record<string, string> {
    return this.mode === 'wysiwyg' ? { mirror: '1', undo: '1' } : {}
  }

  private mount(): MountedEditor {
    this.host.replaceChildren()
    const context = { ydoc: this.ydoc, awareness: this.provider.awareness, presence: this.presence, kind: this.kind, parent: this.host }
    const editor = this.mode === 'source' ? mountSourceEditor(context) : mountWysiwygEditor(context)
    this.editor = editor
    this.highlights.schedule()
    this.onChange()
    return editor
  }

  private renderPlaceholder(text: string): void {
    const note = document.createElement('p')
    note.className = 'editor-placeholder'
    note.textContent = text
    this.host.replaceChildren(note)
  }

  private setConnection(state: ConnectionState): void {
    if (state === this.connection || this.destroyed) return
    this.connection = state
    this.onChange()
  }
}
