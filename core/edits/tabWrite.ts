import type { TabState } from '../workspace/workspaceState.js'
import type { WriteInput } from '../documents/commands.js'
import type { EditHooks } from '../documents/editHooks.js'
import type { EditorGuards } from './editorGuards.js'
import type { JournalOperation } from '../documents/events.js'

export interface TabWriteOptions {
  readonly operation: JournalOperation
  /** No tabId was given: the edit targets the focused tab, so a tab switch while it is recorded aborts it. */
  readonly implicitTab: boolean
  /** The edit replaces the person's selection (selection.set): a selection moved while it is recorded aborts it. */
  readonly selection?: boolean
  /** The comment ids the edit responds to (COM.ADDR.*). */
  readonly addresses?: readonly string[] | undefined
}

/**
 * What an assistant's write takes from the tab it targets, the same for document.write, document.transform,
 * workflow.apply_patch and selection.set: the writer for STALE_PARENT (JRNL.9); the registered edit hooks, run in the
 * document's turn before anything is recorded (BUSY while the person composes, INVALID_ADDRESSES); what aborts it
 * while it is being recorded (JRNL.12); and the addresses the journal records. Callers run `hooks.beforeTurn` first.
 */
export function tabWrite(tab: TabState, editors: EditorGuards, hooks: EditHooks, options: TabWriteOptions): Pick<WriteInput, 'writer' | 'guard' | 'watch' | 'addresses' | 'operation'> {
  return {
    writer: { tabId: tab.tabId, windowLabel: tab.windowLabel },
    operation: options.operation,
    guard: () => hooks.inTurn({ docId: tab.docId, operation: options.operation, addresses: options.addresses }),
    watch: () => editors.watch(tab, { implicitTab: options.implicitTab, selection: options.selection ?? false }),
    addresses: options.addresses,
  }
}
