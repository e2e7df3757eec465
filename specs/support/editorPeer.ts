import * as Y from 'yjs'
import type { WebsocketProvider } from 'y-websocket'
import { PRESENCE_FIELD, type EditorPresenceState } from '../../core/presence/editorPresence.js'
import { peer } from './collabPeers.js'

/**
 * An editor as the server sees one, without a browser: a real y-websocket peer (collabPeers.ts) on a document that
 * publishes the console's presence (window, tab, focus, mode, composition, selection) through awareness. The
 * selection helpers place it in `source` by character offsets, as the source editor does.
 */
export interface EditorPeer {
  readonly ydoc: Y.Doc
  readonly text: Y.Text
  readonly provider: WebsocketProvider
  /** Publishes presence (merged into what was published before). */
  present(changes: Partial<EditorPresenceState>): void
  /** Selects `from`..`to` of `source` (relative positions, as the source editor reports them). */
  select(from: number, to?: number): void
  /** What it published last. */
  readonly state: EditorPresenceState
  /** Resolves once the provider has synced with the server. */
  synced(): Promise<void>
  close(): void
}

export function editorPeer(baseUrl: string, token: string, docId: string, initial: Partial<EditorPresenceState> & { tabId: string }): EditorPeer {
  // A WYSIWYG editor asks for the mirror before it binds it, as the console does.
  const connection = peer(Number(new URL(baseUrl).port), docId, { token, ...(initial.mode === 'wysiwyg' ? { params: { mirror: '1' } } : {}) })
  const { doc: ydoc, text, provider } = connection
  let state: EditorPresenceState = {
    window: 'main',
    focused: true,
    mode: 'source',
    composing: false,
    compositionEndedAt: null,
    selection: null,
    ...initial,
  }
  const publish = () => provider.awareness.setLocalStateField(PRESENCE_FIELD, state)
  publish()
  const relative = (index: number) => Y.relativePositionToJSON(Y.createRelativePositionFromTypeIndex(text, index)) as Record<string, unknown>
  return {
    ydoc,
    text,
    provider,
    present(changes) {
      state = { ...state, ...changes }
      publish()
    },
    select(from, to = from) {
      state = { ...state, selection: { anchor: relative(from), head: relative(to) } }
      publish()
    },
    get state() {
      return state
    },
    synced: () => connection.synced(),
    close() {
      provider.awareness.setLocalState(null)
      connection.destroy()
    },
  }
}
