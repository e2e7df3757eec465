import { QuireError } from '../errors.js'
import type { Settings } from '../settings/events.js'
import { transformText, type CjkTransformKind } from '../text/cjk/transform.js'
import { applyPatches } from '../workflow/applyPatches.js'
import type { IRPatch } from '../workflow/patches.js'
import type { Caller } from '../workspace/commands.js'
import { resolveTab } from '../workspace/tabs.js'
import type { DocumentRepository } from '../documents/documentRepository.js'
import type { FoldedStream } from '../streams/foldedStream.js'
import type { TabState, WorkspaceState } from '../workspace/workspaceState.js'
import type { DocumentCommands, WriteOutcome } from '../documents/commands.js'
import type { EditorGuards } from './editorGuards.js'
import type { EditHooks } from '../documents/editHooks.js'
import { tabWrite } from './tabWrite.js'

/** What `document.transform` and `workflow.apply_patch` answer (DOC.TRANSFORM.6, WF.APPLY_PATCH.11). */
export interface RewriteResponse {
  readonly revision: string
  /** False when the rewrite found nothing to change: nothing was journaled and the revision is the same (DOC.TRANSFORM.10). */
  readonly applied: boolean
  readonly durable: boolean
}

/**
 * Server-side rewrites of a tab's text: the CJK transforms and workflow patches. Each computes the new text from
 * the text the revision check accepted, inside the document's turn, and goes through the same journaled write as
 * `document.write` (journal first, minimal diff, STALE / STALE_PARENT / JOURNAL_* / ABORTED), without saving: like
 * VMark, they change the buffer and leave the save to the person or a later write.
 */
export class RewriteCommands {
  constructor(
    private readonly workspace: FoldedStream<WorkspaceState>,
    private readonly settings: FoldedStream<Settings>,
    private readonly documents: DocumentRepository,
    private readonly documentCommands: DocumentCommands,
    private readonly editors: EditorGuards,
    private readonly hooks: EditHooks,
  ) {}

  /** `document.transform` (DOC.TRANSFORM.*): `cjk-format` uses the person's CJK settings as they are now. */
  async transform(
    tabId: string | undefined,
    kind: CjkTransformKind,
    expectedRevision: string | undefined,
    caller: Caller,
    addresses?: readonly string[],
  ): Promise<RewriteResponse> {
    const tab = resolveTab(this.workspace.state, tabId)
    const settings = this.settings.state.cjkFormatting
    return this.rewrite(tab, tabId === undefined, caller, expectedRevision, addresses, 'transform', kind, (text) => transformText(kind, text, settings))
  }

  /** `workflow.apply_patch` (WF.APPLY_PATCH.*): NOT_WORKFLOW before anything else about the document. */
  async applyPatch(
    tabId: string | undefined,
    patches: readonly IRPatch[],
    expectedRevision: string | undefined,
    caller: Caller,
    addresses?: readonly string[],
  ): Promise<RewriteResponse> {
    const tab = await this.workflowTab(tabId)
    return this.rewrite(tab, tabId === undefined, caller, expectedRevision, addresses, 'apply_patch', JSON.stringify(patches), (text) => applyPatches(text, patches))
  }

  /** The text of a workflow tab, for `workflow.validate` (WF.GEN.1: NOT_WORKFLOW on other kinds). */
  async workflowSource(tabId: string | undefined): Promise<{ readonly content: string; readonly path: string | null }> {
    const tab = await this.workflowTab(tabId)
    const document = await this.documents.get(tab.docId)
    if (!document) throw new QuireError('INTERNAL', `document ${tab.docId} of tab ${tab.tabId} is missing`)
    return { content: document.content, path: tab.path }
  }

  private async workflowTab(tabId: string | undefined): Promise<TabState> {
    const tab = resolveTab(this.workspace.state, tabId)
    const document = await this.documents.get(tab.docId)
    if (document?.meta?.kind !== 'yaml-workflow') {
      throw new QuireError('NOT_WORKFLOW', 'Tab is not a GitHub Actions workflow YAML; use document.write instead')
    }
    return tab
  }

  private async rewrite(
    tab: TabState,
    implicitTab: boolean,
    caller: Caller,
    expectedRevision: string | undefined,
    addresses: readonly string[] | undefined,
    operation: 'transform' | 'apply_patch',
    detail: string,
    rewrite: (text: string) => string,
  ): Promise<RewriteResponse> {
    await this.hooks.beforeTurn({ docId: tab.docId, operation, addresses })
    const outcome: WriteOutcome = await this.documentCommands.write({
      docId: tab.docId,
      content: rewrite,
      detail,
      expectedRevision,
      actor: caller.actor,
      ...tabWrite(tab, this.editors, this.hooks, { operation, implicitTab, addresses }),
    })
    return { revision: outcome.revision, applied: outcome.changed, durable: outcome.durable }
  }
}
