import { z } from 'zod'

/**
 * What an editor tells the server about itself through Yjs awareness (DESIGN §5): which window and tab it shows,
 * whether that window has focus, WYSIWYG or source mode, IME composition, and the selection as Yjs relative
 * positions. Ephemeral by design: it is never logged; it lives as long as the peer's awareness state.
 *
 * The web console publishes it under the awareness field {@link PRESENCE_FIELD}; any y-websocket peer may (a peer
 * without it is a plain collaborator, not an editor the MCP surface can see).
 */
export const PRESENCE_FIELD = 'quire'

/** A Yjs relative position as `Y.relativePositionToJSON` writes it (opaque here; Yjs decodes it). */
const relativePosition = z.record(z.string(), z.unknown())

export const editorPresenceSchema = z.object({
  /** The Quire window the editor belongs to (`main`, ...). */
  window: z.string().min(1),
  /** The tab the editor shows; its document is the awareness room's document. */
  tabId: z.string().min(1),
  /** The browser window has focus (`document.hasFocus()`), and this editor is the one the person works in. */
  focused: z.boolean(),
  mode: z.enum(['wysiwyg', 'source']),
  /** An IME composition is in progress (compositionstart … compositionend). */
  composing: z.boolean(),
  /** When the last composition ended (ms since the epoch), for the source editor's grace period (DOC.WRITE.16). */
  compositionEndedAt: z.number().nullable(),
  /**
   * The selection, as relative positions in the type the mode edits: the Y.Text `source` in source mode, the
   * Y.XmlFragment `prosemirror` in WYSIWYG mode. Null when the editor has no selection (never focused).
   */
  selection: z.object({ anchor: relativePosition, head: relativePosition }).nullable(),
})
export type EditorPresenceState = z.infer<typeof editorPresenceSchema>

/** One editor seen through one collaboration connection. */
export interface EditorPresence extends EditorPresenceState {
  readonly docId: string
  /** The collaboration connection that carries it, and the awareness client id within it. */
  readonly connection: string
  readonly clientId: number
  /** When the server last received it (ms since the epoch). */
  readonly updatedAt: number
}

/** How long after a composition ends the source editor still counts as composing (DOC.WRITE.16). */
export const COMPOSITION_GRACE_MS = 500

/** Reads one awareness state; undefined when it carries no (valid) presence. */
export function presenceOf(awarenessState: unknown): EditorPresenceState | undefined {
  if (typeof awarenessState !== 'object' || awarenessState === null) return undefined
  const parsed = editorPresenceSchema.safeParse((awarenessState as Record<string, unknown>)[PRESENCE_FIELD])
  return parsed.success ? parsed.data : undefined
}

/** Whether an editor counts as composing at `now`: composing, or a source editor within the grace period. */
export function isComposing(presence: EditorPresenceState, now: number): boolean {
  if (presence.composing) return true
  return presence.mode === 'source' && presence.compositionEndedAt !== null && now - presence.compositionEndedAt < COMPOSITION_GRACE_MS
}
