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

/** A marked range of the editor's text: an assistant's pending insertion, or a comment's anchor. */
export interface EditorHighlight {
  readonly from: number
  readonly to: number
  /** `ai-change suggestion-inserted`, `comment-anchor`, `comment-anchor active`. */
  readonly className: string
  /** Shown on hover: who, when, which revision; or the comment. */
  readonly title: string
  /** `data-` attributes of the mark (a suggestion's change and hunk, for its card). */
  readonly data?: Readonly<Record<string, string>>
}

/** Text an assistant's pending change deleted, drawn struck through where it was (never part of the editor's text). */
export interface EditorDeletion {
  readonly at: number
  readonly text: string
  readonly title: string
  readonly data: Readonly<Record<string, string>>
}

/** Where offsets of the Markdown `source` are in an editor's own positions. */
export interface SourcePositions {
  /** `end`: the end of a range, kept in the text it ends. */
  position(index: number, end?: boolean): number
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
  /** How offsets of the Markdown `source` (the Y.Text's text now) map to this editor's positions; null while they cannot. */
  mapSource(source: string): SourcePositions | null
  /** Replaces the marked ranges and the drawn deletions (kept in place as the text changes until the next call). */
  setHighlights(highlights: readonly EditorHighlight[], deletions?: readonly EditorDeletion[]): void
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

/** `data-` attributes from their names without the prefix. */
export function dataAttributes(data: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(data ?? {}).map(([name, value]) => [`data-${name}`, value]))
}
