import { titleOfPath } from '../../core/documents/kind.js'
import type { DocumentCommands } from '../../core/documents/commands.js'
import type { DocumentMeta } from '../../core/documents/documentState.js'
import type { DocumentKind } from '../../core/documents/events.js'
import type { Settings } from '../../core/settings/events.js'
import type { FoldedStream } from '../../core/streams/foldedStream.js'
import { isVisible } from '../../core/workspace/tabs.js'
import type { WorkspaceState } from '../../core/workspace/workspaceState.js'

/** One tab as everyone who shows tabs sees it: `session.get_state`, the console, the console's panels. */
export interface TabView {
  readonly tabId: string
  readonly docId: string
  readonly filePath: string | null
  readonly title: string
  readonly dirty: boolean
  /** An assistant's change is among what is unsaved (the console asks the person to save it). */
  readonly assistantChangeUnsaved: boolean
  readonly revision: string | null
  /** Where the document's AI changes or their review last moved (DocumentState.changesPosition). */
  readonly changesPosition: number
  readonly kind: DocumentKind
  readonly active: boolean
  readonly visible: boolean
  readonly instanceId: string | null
  readonly pinned: boolean
}

export interface WindowView {
  readonly label: string
  readonly activeTabId: string | null
  readonly activeInstanceId: string | null
  readonly tabs: readonly TabView[]
}

/**
 * What the session view reads: the workspace and settings write models, and each document (for dirty, revision,
 * kind) as its owner reads it in the document's step, so a tab's dirty flag and revision are of one state.
 */
export interface SessionSources {
  readonly views: { readonly workspace: FoldedStream<WorkspaceState>; readonly settings: FoldedStream<Settings> }
  readonly commands: { readonly documents: Pick<DocumentCommands, 'read'> }
}

/**
 * The session read model: every window and its tabs with their titles, dirty flags, revisions and kinds, read from
 * the same state for the assistant (`session.get_state`) and the person (the console), so both see the same thing.
 */
export async function sessionView(sources: SessionSources): Promise<{ readonly rail: boolean; readonly windows: readonly WindowView[] }> {
  const workspace = sources.views.workspace.state
  const rail = sources.views.settings.state.workspaceRail
  const windows: WindowView[] = []
  for (const window of workspace.windows.values()) {
    const tabs: TabView[] = []
    for (const tabId of window.tabIds) {
      const tab = workspace.tabs.get(tabId)
      if (!tab) continue
      const document = await sources.commands.documents.read(tab.docId, (state) => state && { meta: state.meta, dirty: state.dirty, assistantChangeUnsaved: state.assistantChangeUnsaved, revision: state.revision, changesPosition: state.changesPosition })
      tabs.push({
        tabId: tab.tabId,
        docId: tab.docId,
        filePath: tab.path,
        title: tabTitle(tab.path, document?.meta),
        dirty: document?.dirty ?? false,
        assistantChangeUnsaved: document?.assistantChangeUnsaved ?? false,
        revision: document?.revision ?? null,
        changesPosition: document?.changesPosition ?? 0,
        kind: document?.meta?.kind ?? 'markdown',
        active: window.activeTabId === tab.tabId,
        visible: isVisible(workspace, tab, rail),
        instanceId: tab.instanceId,
        pinned: tab.pinned,
      })
    }
    windows.push({ label: window.label, activeTabId: window.activeTabId, activeInstanceId: window.activeInstanceId, tabs })
  }
  return { rail, windows }
}

/** A file's tab is named after the file; an untitled (or trace) document keeps the title it was made with. */
export function tabTitle(path: string | null, meta: DocumentMeta | undefined): string {
  return path !== null ? titleOfPath(path) : (meta?.title ?? titleOfPath(null))
}
