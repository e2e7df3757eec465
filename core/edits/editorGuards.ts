import { QuireError } from '../errors.js'
import type { AbortReason } from '../documents/commands.js'
import { isComposing, type EditorPresence } from '../presence/editorPresence.js'
import type { PresenceRegistry } from '../presence/presenceRegistry.js'
import type { FoldedStream } from '../streams/foldedStream.js'
import type { TabState, WorkspaceState } from '../workspace/workspaceState.js'


export interface WatchOptions {
  /** The edit replaces the selection (selection.set): a selection moved meanwhile aborts it. */
  readonly selection?: boolean
  /** No tabId was given: the edit targets "the focused tab", so a tab switch meanwhile aborts it (JRNL.12). */
  readonly implicitTab?: boolean
}

/**
 * What the person's editors mean to an assistant's edit (DOC.WRITE.15–16, CONC.5, JRNL.12): no edit lands while
 * the person composes text with an input method in an editor showing the document (`BUSY`, nothing changed), and
 * an edit whose journal entry was being recorded while the person closed the tab, started composing, moved the
 * selection or switched tabs is `ABORTED`. Read from presence, which is ephemeral; with no editor attached, neither
 * ever happens.
 */
export class EditorGuards {
  constructor(
    private readonly presence: PresenceRegistry,
    private readonly workspace: FoldedStream<WorkspaceState>,
    private readonly now: () => number = Date.now,
  ) {}

  /** BUSY while any editor showing the document composes (or a source editor is within its grace period). */
  assertNotComposing(docId: string): void {
    if (this.composing(docId)) {
      throw new QuireError('BUSY', 'the person is composing text with an input method in an editor showing this document; nothing was changed — retry in a moment')
    }
  }

  /**
   * Takes note of the state an edit starts from and returns the check to run once its journal entry is recorded:
   * the reason to abort if the person acted meanwhile, else undefined.
   */
  watch(tab: TabState, options: WatchOptions = {}): () => AbortReason | undefined {
    const selectionBefore = options.selection ? selectionKey(this.presence.forTab(tab.tabId)) : undefined
    const activeBefore = this.workspace.state.windows.get(tab.windowLabel)?.activeTabId
    return () => {
      if (!this.workspace.state.tabs.has(tab.tabId)) return 'closed'
      if (this.composing(tab.docId)) return 'composing'
      if (options.selection && selectionKey(this.presence.forTab(tab.tabId)) !== selectionBefore) return 'selection'
      if (options.implicitTab && this.workspace.state.windows.get(tab.windowLabel)?.activeTabId !== activeBefore) return 'selection'
      return undefined
    }
  }

  /** Whether the tab is its window's current tab and a WYSIWYG editor renders it (DOC.WRITE.12–13). */
  showsWysiwyg(tab: TabState): boolean {
    if (this.workspace.state.windows.get(tab.windowLabel)?.activeTabId !== tab.tabId) return false
    return this.presence.forTab(tab.tabId).some((editor) => editor.mode === 'wysiwyg')
  }

  private composing(docId: string): boolean {
    const now = this.now()
    return this.presence.forDocument(docId).some((editor) => isComposing(editor, now))
  }
}

/** The selections of a tab's editors, comparable across time (relative positions survive edits elsewhere). */
const selectionKey = (editors: readonly EditorPresence[]): string =>
  JSON.stringify(editors.map((editor) => [editor.connection, editor.clientId, editor.mode, editor.selection]))
