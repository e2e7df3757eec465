import type { Awareness } from 'y-protocols/awareness'
import * as Y from 'yjs'
import type { EditorPresenceState, PRESENCE_FIELD as SERVER_PRESENCE_FIELD } from '../../core/presence/editorPresence.js'

/** The awareness field the server reads (typed against the server's constant without bundling its zod schema). */
const PRESENCE_FIELD: typeof SERVER_PRESENCE_FIELD = 'quire'

export type EditorMode = EditorPresenceState['mode']

/** A selection as relative positions in the type the mode edits (Y.Text `source` or Y.XmlFragment `prosemirror`). */
export interface RelativeSelection {
  readonly anchor: Y.RelativePosition
  readonly head: Y.RelativePosition
}

/**
 * Publishes what this editor is doing through the document's awareness (the presence contract in
 * projections/presence/editorPresence.ts): the MCP surface reads it for `selection.*`, `BUSY` while composing,
 * `ABORTED` and `window.focused`. Every change is published at once (awareness sends each local change), so the
 * server always holds the last state; identical states are not re-sent.
 */
export class PresencePublisher {
  private mode: EditorMode
  private editorFocused = false
  private composing = false
  private compositionEndedAt: number | null = null
  private selection: EditorPresenceState['selection'] = null
  private lastPublished = ''
  private readonly refreshFocus = () => this.publish()

  constructor(
    private readonly awareness: Awareness,
    private readonly place: { readonly window: string; readonly tabId: string },
    mode: EditorMode,
  ) {
    this.mode = mode
    window.addEventListener('focus', this.refreshFocus)
    window.addEventListener('blur', this.refreshFocus)
    document.addEventListener('visibilitychange', this.refreshFocus)
    this.publish()
  }

  setMode(mode: EditorMode): void {
    this.mode = mode
    // Positions of one mode mean nothing in the other's type; the new editor reports its own.
    this.selection = null
    this.editorFocused = false
    this.composing = false
    this.publish()
  }

  setEditorFocused(focused: boolean): void {
    this.editorFocused = focused
    this.publish()
  }

  setSelection(selection: RelativeSelection | null): void {
    this.selection = selection && { anchor: toJson(selection.anchor), head: toJson(selection.head) }
    this.publish()
  }

  compositionStarted(): void {
    this.composing = true
    this.publish()
  }

  compositionEnded(): void {
    this.composing = false
    this.compositionEndedAt = Date.now()
    this.publish()
  }

  /** The state as published (for the console's own introspection hook). */
  current(): EditorPresenceState {
    return {
      window: this.place.window,
      tabId: this.place.tabId,
      // The person works here only when the browser window has focus, the page is shown, and this editor has focus.
      focused: this.editorFocused && document.hasFocus() && document.visibilityState === 'visible',
      mode: this.mode,
      composing: this.composing,
      compositionEndedAt: this.compositionEndedAt,
      selection: this.selection,
    }
  }

  destroy(): void {
    window.removeEventListener('focus', this.refreshFocus)
    window.removeEventListener('blur', this.refreshFocus)
    document.removeEventListener('visibilitychange', this.refreshFocus)
  }

  private publish(): void {
    const state = this.current()
    const serialized = JSON.stringify(state)
    if (serialized === this.lastPublished) return
    this.lastPublished = serialized
    this.awareness.setLocalStateField(PRESENCE_FIELD, state)
  }
}

/** `Y.relativePositionToJSON` is typed `any`; the contract wants a plain record. */
function toJson(position: Y.RelativePosition): Record<string, unknown> {
  return Y.relativePositionToJSON(position) as Record<string, unknown>
}
