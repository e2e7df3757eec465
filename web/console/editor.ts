import type { Awareness } from 'y-protocols/awareness'
import type * as Y from 'yjs'
import type { ConsoleTab } from '../../adapters/http/consoleApi.js'
import type { EditorMode, PresencePublisher } from './presence.js'

/** What a document session hands an editor: the shared document, its awareness, and where to report presence. */
export interface EditorContext {
  readonly ydoc: Y.Doc
  readonly awareness: Awareness
  readonly presence: PresencePublisher
  readonly kind: ConsoleTab['kind']
  readonly parent: HTMLElement
}

export interface ScreenRect {
  readonly left: number
  readonly right: number
  readonly top: number
  readonly bottom: number
}

/** A run of Yjs item ids (one client's consecutive clocks): what an assistant's change inserted. */
export interface IdRun {
  readonly client: number
  readonly clock: number
  readonly length: number
}

/** A marked range of the editor's text: an assistant's change, or a comment's anchor. */
export interface EditorHighlight {
  readonly from: number
  readonly to: number
  /** `ai-change`, `comment-anchor`, `comment-anchor active`. */
  readonly className: string
  /** Shown on hover: who, when, which revision; or the comment. */
  readonly title: string
}

/** One mounted editor (source or WYSIWYG) on a document; the session swaps them on a mode switch. */
export interface MountedEditor {
  readonly mode: EditorMode
  focus(): void
  /** The selection in the editor's own positions: character offsets (source), ProseMirror positions (WYSIWYG). */
  selection(): { readonly anchor: number; readonly head: number }
  /** The text the editor shows (source: the whole text; WYSIWYG: the document's text content). */
  text(): string
  /** Where a position is on screen (viewport pixels), null when it is not drawn. */
  coordsAt(pos: number): ScreenRect | null
  /** The undo history that holds assistants' writes as steps of their own (WYSIWYG). */
  readonly undoManager?: Y.UndoManager
  /** The selection as a range of the Markdown `source` (what comments anchor to); null when it cannot be placed. */
  selectionInSource(source: string): { readonly from: number; readonly to: number } | null
  /** Where the characters of these item runs are in this editor (those still there), merged where adjacent. */
  rangesOfItems(runs: readonly IdRun[]): Array<{ readonly from: number; readonly to: number }>
  /** A range of the Markdown `source` in this editor's positions; null when it cannot be placed. */
  rangeOfSource(source: string, from: number, to: number): { readonly from: number; readonly to: number } | null
  /** Replaces the marked ranges (kept in place as the text changes until the next call). */
  setHighlights(highlights: readonly EditorHighlight[]): void
  destroy(): void
}

/**
 * Reports composition and focus from an editor's DOM to presence. Capture phase, so the editor's own handlers
 * cannot hide an event from it; returns the function that detaches the listeners.
 */
export function watchEditorDom(dom: HTMLElement, presence: PresencePublisher): () => void {
  const listeners: Array<[string, () => void]> = [
    ['compositionstart', () => presence.compositionStarted()],
    ['compositionend', () => presence.compositionEnded()],
    ['focusin', () => presence.setEditorFocused(true)],
    ['focusout', () => presence.setEditorFocused(false)],
  ]
  for (const [type, listener] of listeners) dom.addEventListener(type, listener, true)
  return () => {
    for (const [type, listener] of listeners) dom.removeEventListener(type, listener, true)
  }
}
