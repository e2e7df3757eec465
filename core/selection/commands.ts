import * as Y from 'yjs'
import type { DocumentCommands, PlannedChange } from '../documents/commands.js'
import type { EditorGuards } from '../edits/editorGuards.js'
import type { EditHooks } from '../documents/editHooks.js'
import { tabWrite } from '../edits/tabWrite.js'
import { QuireError } from '../errors.js'
import { replaceSourceSelection, replaceWysiwygSelection, SelectionOutsideDocument, sourceSelection, wysiwygSelection } from '../markdown/selection.js'
import { syncSourceFromMirror } from '../documents/bridge.js'
import type { Caller } from '../workspace/commands.js'
import { resolveTab } from '../workspace/tabs.js'
import type { DocumentState } from '../documents/documentState.js'
import type { EditorPresence } from '../presence/editorPresence.js'
import type { PresenceRegistry } from '../presence/presenceRegistry.js'
import type { FoldedStream } from '../streams/foldedStream.js'
import type { TabState, WorkspaceState } from '../workspace/workspaceState.js'

/** `selection.get` (SEL.GET.1). */
export interface SelectionView {
  readonly text: string
  readonly isEmpty: boolean
  readonly range: { readonly from: number; readonly to: number }
  readonly mode: 'wysiwyg' | 'source'
  readonly kind: string
  readonly tabId: string
  readonly revision: string
}

/** `selection.set` (SEL.SET.7). */
export interface SelectionReplaced {
  readonly revision: string
  readonly replaced_chars: number
  /** False when the replacement left the text as it was: nothing was journaled (SEL.SET.13). */
  readonly applied: boolean
  readonly durable: boolean
}

type Selected = { readonly from: number; readonly to: number; readonly text: string }

/**
 * The person's selection in the editor rendering the focused tab (TOOLS.md §6), read from presence: the editor
 * reports its selection as Yjs relative positions, so it is resolved against the document as it is when the call
 * runs (SEL.SET.1, .11). Source mode works in character offsets of `source`; WYSIWYG mode in ProseMirror positions
 * of the `prosemirror` mirror, with Markdown for the selected slice and for what replaces it.
 */
export class SelectionCommands {
  constructor(
    private readonly workspace: FoldedStream<WorkspaceState>,
    private readonly documentCommands: DocumentCommands,
    private readonly presence: PresenceRegistry,
    private readonly editors: EditorGuards,
    private readonly hooks: EditHooks,
  ) {}

  /** SEL.GET.*: never refused for IME composition (SEL.GET.6). */
  async get(tabId: string | undefined, caller?: Caller): Promise<SelectionView> {
    const { tab, editor } = this.focusedEditor(tabId)
    // The selected text and the revision of one folded state (DocumentCommands.read); the reader has now seen the
    // document, so its next write from this tab is an edit from it.
    const look = (document: DocumentState | undefined): SelectionView => {
      if (!document) throw new QuireError('INTERNAL', `document ${tab.docId} of tab ${tab.tabId} is missing`)
      const selected = selectionIn(document, editor)
      return {
        text: selected.text,
        isEmpty: selected.from === selected.to,
        range: { from: selected.from, to: selected.to },
        mode: editor.mode,
        kind: document.meta?.kind ?? 'markdown',
        tabId: tab.tabId,
        revision: document.revision,
      }
    }
    return caller ? this.documentCommands.readAs(tab.docId, { tabId: tab.tabId, actor: caller.actor }, look) : this.documentCommands.read(tab.docId, look)
  }

  /**
   * SEL.SET.*: replaces what the editor reports as selected when the call runs, through the journaled write
   * (JRNL.*): BUSY while the person composes, ABORTED when the selection moves, the tab closes or the person types
   * while the entry is being recorded.
   */
  async set(
    tabId: string | undefined,
    content: string,
    expectedRevision: string | undefined,
    caller: Caller,
    addresses?: readonly string[],
  ): Promise<SelectionReplaced> {
    const { tab } = this.focusedEditor(tabId)
    let replacedChars = 0
    await this.hooks.beforeTurn({ docId: tab.docId, operation: 'selection_set', addresses })
    const outcome = await this.documentCommands.write({
      docId: tab.docId,
      expectedRevision,
      actor: caller.actor,
      ...tabWrite(tab, this.editors, this.hooks, { operation: 'selection_set', implicitTab: tabId === undefined, selection: true, addresses }),
      content: (_current, state) => {
        // Resolved inside the document's turn: the selection as the editor reports it now (SEL.SET.1, .11).
        const { editor } = this.focusedEditor(tabId)
        const planned = replacement(state, editor, content)
        replacedChars = planned.replacedChars
        return planned.change
      },
    })
    return { revision: outcome.revision, replaced_chars: replacedChars, applied: outcome.changed, durable: outcome.durable }
  }

  /**
   * SEL.GEN.*: the focused tab is the current tab of the window that has focus (else of the window used last); a
   * `tabId` naming another tab is INVALID_TAB; a focused tab no editor renders (or whose editor has no selection yet)
   * is NO_EDITOR.
   */
  private focusedEditor(tabId: string | undefined): { tab: TabState; editor: EditorPresence } {
    const focusedWindow = this.presence.focused()?.window
    const state = this.workspace.state
    const tab = resolveTab(state, undefined, focusedWindow !== undefined && state.windows.has(focusedWindow) ? focusedWindow : undefined)
    if (tabId !== undefined && tabId !== tab.tabId) {
      throw new QuireError('INVALID_TAB', `selection works on the focused tab (${tab.tabId}); ${JSON.stringify(tabId)} is not it`)
    }
    const editor = this.presence.forTab(tab.tabId).find((candidate) => candidate.selection !== null)
    if (!editor) throw new QuireError('NO_EDITOR', `no editor is showing the focused tab ${tab.tabId} (open it in the Quire console)`)
    return { tab, editor }
  }
}

function selectionIn(document: DocumentState, editor: EditorPresence): Selected {
  const { anchor, head } = editor.selection!
  return placed(() => (editor.mode === 'wysiwyg' ? wysiwygSelection : sourceSelection)(document.ydoc, anchor, head))
}

/**
 * The replacement as a planned change, made on a copy of the document: in source mode the raw splice of `source`
 * (SEL.SET.4); in WYSIWYG mode the mirror's edit (literal text, or parsed Markdown, SEL.SET.2–3) and the bridge's
 * follow-up on `source`. The copy's updates are applied once the journal holds the text they lead to.
 */
function replacement(state: DocumentState, editor: EditorPresence, content: string): { change: PlannedChange; replacedChars: number } {
  const { anchor, head } = editor.selection!
  const copy = new Y.Doc()
  // The copy writes as the live document's own client, so its updates continue that client's clock.
  copy.clientID = state.ydoc.clientID
  Y.applyUpdate(copy, Y.encodeStateAsUpdate(state.ydoc))
  const before = Y.encodeStateVector(copy)
  const replacedChars = placed(() => {
    if (editor.mode === 'source') return replaceSourceSelection(copy, anchor, head, content).replacedChars
    const replaced = replaceWysiwygSelection(copy, anchor, head, content).replacedChars
    syncSourceFromMirror(copy)
    return replaced
  })
  return { change: { text: copy.getText('source').toString(), updates: [Y.encodeStateAsUpdate(copy, before)] }, replacedChars }
}

/** An editor's selection that no longer resolves inside the document is no usable selection: NO_EDITOR, not a crash. */
function placed<T>(resolve: () => T): T {
  try {
    return resolve()
  } catch (error) {
    if (error instanceof SelectionOutsideDocument) throw new QuireError('NO_EDITOR', 'the editor\'s selection is not inside this document; select again')
    throw error
  }
}
