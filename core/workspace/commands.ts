import { newId } from '../ids.js'
import { realpath, stat } from 'node:fs/promises'
import { isAbsolute } from 'node:path'
import type { Actor } from '../events/actor.js'
import { QuireError } from '../errors.js'
import type { EventLog } from '../log/eventLog.js'
import type { ApprovalCommands, PersonWait } from '../approvals/commands.js'
import type { DocumentCommands } from '../documents/commands.js'
import type { DocumentKind } from '../documents/events.js'
import { titleOfPath } from '../documents/kind.js'
import type { Settings } from '../settings/events.js'
import { closeRefusal, decideWorkspace, type CloseRefusal } from './decider.js'
import type { DocumentRepository } from '../documents/documentRepository.js'
import type { FoldedStream } from '../streams/foldedStream.js'
import type { WorkspaceState } from './workspaceState.js'
import { resolveTab, resolveWindow } from './tabs.js'

/** The MCP connection a command comes from: approvals are bound to it. */
export interface Caller {
  readonly actor: Actor
  readonly connection: string
  readonly principal: string | null
}

export type CloseOutcome = { readonly closed: true } | { readonly closed: false; readonly reason: CloseRefusal }

export type OpenWorkspaceOutcome =
  | { readonly opened: true; readonly workspaceInstanceId: string; readonly folderPath: string }
  | { readonly needsApproval: true; readonly approvalId: string; readonly folderPath: string }

/**
 * Window and tab lifecycle: new, switch_tab, close, focus_window, open_workspace. None of these change a
 * document's text (WS.GEN.1). Opening and saving files live in FileCommands.
 */
export class WorkspaceCommands {
  constructor(
    private readonly store: EventLog,
    private readonly view: FoldedStream<WorkspaceState>,
    private readonly settings: FoldedStream<Settings>,
    private readonly documents: DocumentRepository,
    private readonly documentCommands: DocumentCommands,
    private readonly approvals: ApprovalCommands,
  ) {}

  get state(): WorkspaceState {
    return this.view.state
  }

  /** A new untitled tab, current in its window (WS.NEW.1–3). */
  async newTab(kind: DocumentKind, windowLabel: string | undefined, caller: Caller): Promise<{ tabId: string; docId: string }> {
    const tabId = newId('tab')
    const openTab = (docId: string) =>
      ({ type: 'open-tab', tabId, docId, windowLabel, instanceId: 'window-active', path: null, active: true, actor: caller.actor }) as const
    // Refused before a document is made for it (an unknown window, an assistant at its tab limit).
    decideWorkspace(openTab(''), this.view.state)
    const { docId } = await this.documentCommands.create({
      kind, content: '', path: null, title: titleOfPath(null), origin: 'untitled', actor: caller.actor,
    })
    await this.view.handle(this.store, (state) => decideWorkspace(openTab(docId), state))
    return { tabId, docId }
  }

  /** Makes a tab current and visible, then reports what really happened (WS.SWITCH_TAB.1–4). */
  async switchTab(tabId: string, caller: Caller) {
    const tab = resolveTab(this.view.state, tabId)
    const before = this.view.state.windows.get(tab.windowLabel)!
    const rail = this.settings.state.workspaceRail
    // Re-read the state after the change rather than echoing the request.
    const state = await this.view.handle(this.store, (current) => decideWorkspace({ type: 'activate', tabId, railOn: rail, actor: caller.actor }, current))
    const after = state.windows.get(tab.windowLabel)!
    return {
      activated: after.activeTabId === tabId,
      workspaceSwitched: rail && before.activeInstanceId !== after.activeInstanceId,
      workspaceInstanceId: rail ? after.activeInstanceId : null,
      activeTabId: after.activeTabId,
    }
  }

  /** Closes a tab unless it is pinned, or (without force) dirty or diverged from disk (WS.CLOSE.1–5). */
  async close(tabId: string, force: boolean, caller: Caller): Promise<CloseOutcome> {
    const tab = resolveTab(this.view.state, tabId)
    const document = await this.documents.get(tab.docId)
    const command = {
      type: 'close', tabId, force, actor: caller.actor,
      document: document && { dirty: document.dirty, diverged: document.divergence !== null },
    } as const
    let refusal: CloseRefusal | undefined
    await this.view.handle(this.store, (state) => {
      refusal = closeRefusal(command, state)
      return decideWorkspace(command, state)
    })
    return refusal === undefined ? { closed: true } : { closed: false, reason: refusal }
  }

  async focusWindow(windowLabel: string, caller: Caller): Promise<{ windowLabel: string; focused: boolean }> {
    const window = resolveWindow(this.view.state, windowLabel)
    await this.view.handle(this.store, (state) => decideWorkspace({ type: 'focus', windowLabel: window.label, actor: caller.actor }, state))
    // Focus is the person's OS's to give; with no editor attached no window holds it (SES.GET_STATE.13).
    return { windowLabel: window.label, focused: false }
  }

  /** A person's pin or unpin (the MCP surface has no action for it). */
  async pin(tabId: string, pinned: boolean, actor: Actor): Promise<void> {
    await this.view.handle(this.store, (state) => decideWorkspace({ type: 'pin', tabId, pinned, actor }, state))
  }

  /**
   * Opens a folder as the active workspace of the window the request came to, after a person approved exactly this
   * folder for exactly this connection (WS.OPEN_WORKSPACE.1–10). Not bound by the path scope (SCOPE.4).
   */
  async openWorkspace(folderPath: string, caller: Caller, wait?: PersonWait): Promise<OpenWorkspaceOutcome> {
    const folder = await canonicalFolder(folderPath)
    const asked = await this.approvals.gate('open_workspace', folder, caller.connection, caller.principal, caller.actor)
    // A caller that can wait (its client follows the call's progress) gets the person's decision, not a retry to make.
    const gate = await this.approvals.settle(asked, wait, caller.actor)
    if (gate.status === 'requested') return { needsApproval: true, approvalId: gate.approval.approvalId, folderPath: folder }
    if (gate.status !== 'granted') {
      throw new QuireError(
        'APPROVAL_REQUIRED',
        gate.status === 'denied'
          ? `The user denied opening ${folder} as a workspace; it stays refused until they approve request ${gate.approval.approvalId}`
          : gate.status === 'withdrawn'
            ? `The request to open ${folder} (${gate.approval.approvalId}) was withdrawn: the call was cancelled`
            : `Waiting for the user to approve opening ${folder} (request ${gate.approval.approvalId}); ask them, then retry the same call`,
        { approvalId: gate.approval.approvalId, folderPath: folder },
      )
    }
    const instanceId = newId('wsi')
    await this.view.handle(this.store, (state) => ({
      events: decideWorkspace({ type: 'open-workspace', instanceId, root: folder, approval: gate.approval.approvalId, onlyIfNotOpen: false, actor: caller.actor }, state),
      // Decided and appended in one step, atomically: two racing retries cannot both use one approval.
      alongside: [this.approvals.consumption(gate.approval, caller.actor)],
    }))
    return { opened: true, workspaceInstanceId: instanceId, folderPath: folder }
  }
}

/** Opens a folder as a workspace of `main` as the person's own act (`quire serve --workspace DIR`): no approval. */
export async function openWorkspaceAsPerson(store: EventLog, view: FoldedStream<WorkspaceState>, folderPath: string, actor: Actor): Promise<string> {
  const folder = await canonicalFolder(folderPath)
  const state = await view.handle(store, (current) => decideWorkspace({ type: 'open-workspace', instanceId: newId('wsi'), root: folder, approval: null, onlyIfNotOpen: true, actor }, current))
  return [...state.instances.values()].find((instance) => instance.root === folder)!.instanceId
}

/** The folder's canonical path (symlinks resolved), as the approval names it; refuses anything but a directory. */
async function canonicalFolder(folderPath: string): Promise<string> {
  if (!isAbsolute(folderPath) || folderPath.includes('\u0000')) {
    throw new QuireError('INVALID_PATH', `folderPath must be an absolute path: ${JSON.stringify(folderPath)}`)
  }
  let real: string
  try {
    real = await realpath(folderPath)
  } catch {
    throw new QuireError('INVALID_PATH', `${folderPath} does not exist or cannot be read`)
  }
  if (!(await stat(real)).isDirectory()) throw new QuireError('INVALID_PATH', `${folderPath} is not a folder`)
  return real
}
