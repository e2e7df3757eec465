import { newId } from '../ids.js'
import { basename, dirname, sep } from 'node:path'
import type { ApprovalCommands, PersonWait } from '../approvals/commands.js'
import { DISK, SYSTEM, type Actor } from '../events/actor.js'
import type { Approval } from '../approvals/approvalsState.js'
import type { DocumentCommands, SaveMark, WriteOutcome } from '../documents/commands.js'
import { decideDocument } from '../documents/decider.js'
import { applyTextEdits, unifiedDiff, type TextEdit } from '../edits/textEdits.js'
import type { EditorGuards } from '../edits/editorGuards.js'
import type { EditHooks } from '../documents/editHooks.js'
import { tabWrite } from '../edits/tabWrite.js'
import { normalizeLineEndings } from '../documents/commands.js'
import { parseMarkdown } from '../markdown/parse.js'
import { serializeMarkdown } from '../markdown/serialize.js'
import { kindOfFile, titleOfPath } from '../documents/kind.js'
import { QuireError, isQuireError } from '../errors.js'
import type { EventLog } from '../log/eventLog.js'
import type { Settings } from '../settings/events.js'
import type { FoldingAppend } from '../streams/append.js'
import { decideWorkspace } from '../workspace/decider.js'
import type { Caller } from '../workspace/commands.js'
import { resolveTab, resolveWindow } from '../workspace/tabs.js'
import type { DocumentRepository } from '../documents/documentRepository.js'
import type { DocumentState } from '../documents/documentState.js'
import type { FoldedStream } from '../streams/foldedStream.js'
import type { TabState, WorkspaceState } from '../workspace/workspaceState.js'
import type { FileSystemPort } from './port.js'
import { lookUp, type LookupResponse, type ReadLookup } from './readLookups.js'
import type { CoherenceCommands } from '../coherence/commands.js'

export type Journaled = 'yes' | 'pending' | 'no'

/** Quire itself saving a file an assistant read, to give it its coherence identity (no connection, no principal). */
const ADOPTION: Caller = { actor: SYSTEM, connection: 'coherence', principal: null }

/** A part of a document to read: `length` UTF-16 code units from `offset` (to the end when absent). */
export interface ReadRange {
  readonly offset: number
  readonly length?: number
}

/** `document.read`: the text (or the part asked for) and what a write needs to go with it. */
export interface ReadResponse {
  readonly content: string
  readonly revision: string
  readonly filePath: string | null
  readonly kind: string
  readonly dirty: boolean
  /** With a range: where the part starts, how long it is, the whole text's length, and where the next part starts. */
  readonly offset?: number
  readonly length?: number
  readonly totalLength?: number
  readonly nextOffset?: number
}

/**
 * The part of `text` a range names, never splitting a surrogate pair (a boundary inside one moves past it). An offset
 * past the end is INVALID_ARGUMENT: it names no part of this revision.
 */
export function pageBounds(text: string, range: ReadRange): { offset: number; end: number } {
  if (!Number.isInteger(range.offset) || range.offset < 0 || range.offset > text.length) {
    throw new QuireError('INVALID_ARGUMENT', `offset must be between 0 and the text's length ${text.length} (got ${range.offset})`)
  }
  if (range.length !== undefined && (!Number.isInteger(range.length) || range.length < 0)) {
    throw new QuireError('INVALID_ARGUMENT', `length must be a non-negative integer (got ${range.length})`)
  }
  const onBoundary = (at: number) => (at > 0 && at < text.length && isLowSurrogate(text.charCodeAt(at)) ? at + 1 : at)
  const offset = onBoundary(range.offset)
  const end = Math.max(offset, onBoundary(Math.min(text.length, range.length === undefined ? text.length : range.offset + range.length)))
  return { offset, end }
}

const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff

export interface OpenOutcome {
  readonly tabId: string
  readonly workspaceInstanceId: string | null
  readonly activationChanged: boolean
  readonly workspaceSwitched: boolean
}

export interface WriteResponse {
  readonly revision: string
  readonly applied: true
  readonly durable: boolean
  readonly saved: boolean
  readonly save_skipped?: 'untitled' | 'opt_out' | 'person_unsaved'
  readonly save_error?: string
  readonly journaled?: Journaled
}

/** What `document.write` with `edits` and `dry_run: true` answers: the diff the edits would make, nothing changed. */
export interface DryRunResponse {
  readonly dry_run: true
  readonly applied: false
  /** The revision the diff was computed on: pass it as expected_revision to write exactly this. */
  readonly revision: string
  /** A git-style unified diff of the current text → the text the edits make. */
  readonly diff: string
}

/**
 * Files: open into tabs, save, save_as, and the write-then-save of `document.write`. Every path goes through the
 * scope (open workspaces and folders of open documents), every save through its file's queue with the scope checked
 * again at its turn, and every AI save becomes an `(mcp)` history entry (the `document.saved` event and its actor).
 */
export class FileCommands {
  constructor(
    private readonly store: EventLog,
    private readonly workspace: FoldedStream<WorkspaceState>,
    private readonly settings: FoldedStream<Settings>,
    private readonly documents: DocumentRepository,
    private readonly documentCommands: DocumentCommands,
    private readonly approvals: ApprovalCommands,
    private readonly fs: FileSystemPort,
    private readonly editors: EditorGuards,
    private readonly hooks: EditHooks,
    private readonly coherence: CoherenceCommands,
  ) {}

  /** SCOPE.1: open workspace roots and the folders of documents open in tabs. */
  scopeRoots(): string[] {
    const state = this.workspace.state
    const folders = [...state.tabs.values()].flatMap((tab) => (tab.path === null ? [] : [dirname(tab.path)]))
    return [...new Set([...state.workspaceRoots, ...folders])]
  }

  /** WS.OPEN.1–3: opens a file into a background tab of the window, never changing what the person sees. */
  async open(filePath: string, windowLabel: string | undefined, caller: Caller): Promise<OpenOutcome> {
    const resolved = await this.fs.resolveInScope(filePath, this.scopeRoots())
    const text = await this.fs.readText(resolved.real)
    const path = resolved.real
    // Saves killed mid-way (a crash, SIGKILL) may have left temp files beside the file: tidy them now.
    await this.fs.removeStaleTemps(dirname(path))
    // GEN.5: a path inside a workspace goes to the window that owns that workspace; otherwise GEN.6's window.
    const owner = windowLabel === undefined ? this.instanceContaining(path, null) : null
    const window = resolveWindow(this.workspace.state, windowLabel ?? (owner === null ? undefined : this.workspace.state.instances.get(owner)!.windowLabel))
    const existingTab = [...this.workspace.state.tabs.values()].find((tab) => tab.windowLabel === window.label && tab.path === path)
    if (existingTab) return { tabId: existingTab.tabId, workspaceInstanceId: existingTab.instanceId, activationChanged: false, workspaceSwitched: false }

    const instanceId = this.instanceContaining(path, window.activeInstanceId, window.label)
    const tabId = newId('tab')
    const openTab = (docId: string) =>
      ({ type: 'open-tab', tabId, docId, windowLabel: window.label, instanceId, path, active: false, actor: caller.actor }) as const
    // Refused before a document is made or reloaded for it (an assistant at its tab limit).
    decideWorkspace(openTab(''), this.workspace.state)
    let docId = this.workspace.state.documentsByPath.get(path)
    const known = docId === undefined ? undefined : await this.documents.get(docId)
    if (known && docId !== undefined) {
      // The file was open before: continue its document, brought up to date with the disk unless a tab still
      // shows it (then the disk watcher owns that question).
      if (this.workspace.state.tabsOfDocument(docId).length === 0 && known.content !== text) {
        await this.documentCommands.replaceFromDisk(docId, text, path, { kind: 'disk' })
      }
    } else {
      docId = (
        await this.documentCommands.create({
          kind: kindOfFile(path, text), content: text, path, title: titleOfPath(path), origin: 'file', actor: caller.actor, matchesFile: true,
        })
      ).docId
    }
    const opened = docId
    await this.workspace.handle(this.store, (state) => decideWorkspace(openTab(opened), state))
    return { tabId, workspaceInstanceId: instanceId, activationChanged: false, workspaceSwitched: false }
  }

  /** WS.SAVE.1–2: saves the tab to its own file. */
  async save(tabId: string | undefined, caller: Caller): Promise<{ filePath: string; revision: string; journaled: Journaled }> {
    const tab = resolveTab(this.workspace.state, tabId)
    if (tab.path === null) throw new QuireError('INVALID_PATH', 'Tab has no filePath; use save_as instead')
    const { revision, journaled } = await this.persist(tab, tab.path, caller, { tool: 'workspace.save' })
    return { filePath: tab.path, revision, journaled }
  }

  /**
   * WS.SAVE_AS.1–9: saves to another file as a brand-new write: only with the person's approval (or their
   * auto-approve setting), and never over an existing file. Saving to the tab's own file is a plain save.
   */
  async saveAs(tabId: string | undefined, filePath: string, caller: Caller, wait?: PersonWait): Promise<{ revision: string; journaled: Journaled }> {
    const tab = resolveTab(this.workspace.state, tabId)
    const resolved = await this.fs.resolveInScope(filePath, this.scopeRoots())
    if (tab.path !== null && resolved.real === tab.path) {
      const { revision, journaled } = await this.persist(tab, tab.path, caller, { tool: 'workspace.save_as' })
      return { revision, journaled }
    }
    if (resolved.exists) {
      throw new QuireError('APPROVAL_REQUIRED', `${resolved.real} already exists and is not this tab's file; save_as never replaces another file`, {
        filePath: resolved.real,
      })
    }
    let approval: Approval | undefined
    // Approvals are the person's answer to an assistant: the person's own save_as (the console's) asks no one.
    if (!this.settings.state.autoApproveSaves && caller.actor.kind !== 'user') {
      const asked = await this.approvals.gate('save_as', resolved.real, caller.connection, caller.principal, caller.actor)
      // A caller that can wait (its client follows the call's progress) gets the person's decision, not a retry to make.
      const gate = await this.approvals.settle(asked, wait, caller.actor)
      if (gate.status !== 'granted') {
        throw new QuireError(
          'APPROVAL_REQUIRED',
          gate.status === 'denied'
            ? `The user denied saving to ${resolved.real}`
            : gate.status === 'withdrawn'
              ? `The request to save to ${resolved.real} (${gate.approval.approvalId}) was withdrawn: the call was cancelled`
              : `Saving to a new location needs the user's approval (request ${gate.approval.approvalId}); ask them to approve it, then retry`,
          { approvalId: gate.approval.approvalId, filePath: resolved.real },
        )
      }
      approval = gate.approval
    }
    return this.persist(tab, resolved.real, caller, { exclusive: true, approval, tool: 'workspace.save_as' })
  }

  /** `document.read` (DOC.READ.1–3): the tab's text and what a write needs to go with it. */
  async read(tabId: string | undefined, range?: ReadRange, caller?: Caller): Promise<ReadResponse> {
    const whole = await this.readWhole(tabId, caller, range === undefined ? 'direct' : 'contextual')
    if (range === undefined) return whole
    const { offset, end } = pageBounds(whole.content, range)
    return { ...whole, content: whole.content.slice(offset, end), offset, length: end - offset, totalLength: whole.content.length, ...(end < whole.content.length ? { nextOffset: end } : {}) }
  }

  /**
   * `document.read` with `outline` or `search`: a read like any other (the reader's next write is based on the
   * revision looked at), answering where things are instead of the text.
   */
  async lookUp(tabId: string | undefined, lookup: ReadLookup, range?: ReadRange, caller?: Caller): Promise<LookupResponse> {
    const whole = await this.readWhole(tabId, caller, 'contextual')
    return lookUp(whole, lookup, range === undefined ? undefined : pageBounds(whole.content, range))
  }

  /** The tab's whole text, recorded as seen by `caller` (the base of its next write) and noted as its coherence input. */
  private async readWhole(tabId: string | undefined, caller: Caller | undefined, role: 'direct' | 'contextual'): Promise<ReadResponse> {
    const tab = resolveTab(this.workspace.state, tabId)
    const look = (document: DocumentState | undefined) => {
      if (!document?.meta) throw new QuireError('INTERNAL', `document ${tab.docId} of tab ${tab.tabId} is missing`)
      return { content: document.content, revision: document.revision, filePath: tab.path, kind: document.meta.kind, dirty: document.dirty }
    }
    // The reader's next write from this tab is an edit from the whole document at this revision, whatever part of it
    // was read: the log records that it saw it.
    const whole = caller ? await this.documentCommands.readAs(tab.docId, { tabId: tab.tabId, actor: caller.actor }, look) : await this.documentCommands.read(tab.docId, look)
    if (caller?.actor.kind === 'mcp' && tab.path !== null) {
      this.coherence.noteRead(caller.connection, { path: tab.path, content: whole.content, role })
    }
    return whole
  }

  /**
   * `document.write`: the journaled write, then the save it asks for (DOC.WRITE.5–11). A failed save never undoes
   * the write; it is reported in `save_error`.
   */
  async write(
    tabId: string | undefined,
    content: string,
    expectedRevision: string | undefined,
    save: boolean,
    caller: Caller,
    addresses?: readonly string[],
  ): Promise<WriteResponse> {
    const tab = resolveTab(this.workspace.state, tabId)
    await this.hooks.beforeTurn({ docId: tab.docId, operation: 'write', addresses })
    const outcome = await this.documentCommands.write({
      docId: tab.docId,
      content: (_current, state) => this.asTheEditorShows(tab, state, content),
      fromTabBase: true,
      expectedRevision,
      actor: caller.actor,
      ...tabWrite(tab, this.editors, this.hooks, { operation: 'write', implicitTab: tabId === undefined, addresses }),
    })
    return this.saveAfterWrite(tab, outcome, save, caller)
  }

  /**
   * `document.write` with `edits` (Quire's extension, docs/tools.md): each `old_text` replaced by its `new_text` in
   * the text as it is when the write's turn comes (applyTextEdits: exact, unambiguous, one after the other), as one
   * journaled write with everything a write has (STALE, ABORTED, BUSY, the review backlog, `addresses`, the save).
   * With `dryRun`, nothing is changed or recorded: the answer is the unified diff the edits would make and the
   * revision it was computed on.
   */
  async writeEdits(
    tabId: string | undefined,
    edits: readonly TextEdit[],
    options: { readonly expectedRevision?: string; readonly save: boolean; readonly dryRun: boolean; readonly addresses?: readonly string[] },
    caller: Caller,
  ): Promise<WriteResponse | DryRunResponse> {
    const tab = resolveTab(this.workspace.state, tabId)
    if (options.dryRun) {
      return this.documentCommands.read(tab.docId, (state) => {
        if (!state?.meta) throw new QuireError('INVALID_TAB', `tab ${tab.tabId} has no document`)
        decideDocument({ type: 'check-revision', expectedRevision: options.expectedRevision }, state)
        const before = state.content
        const after = this.asTheEditorShows(tab, state, applyTextEdits(before, edits).text)
        return { dry_run: true as const, applied: false as const, revision: state.revision, diff: unifiedDiff(tab.path === null ? 'untitled' : basename(tab.path), before, after) }
      })
    }
    await this.hooks.beforeTurn({ docId: tab.docId, operation: 'write', addresses: options.addresses })
    const outcome = await this.documentCommands.write({
      docId: tab.docId,
      content: (current, state) => this.asTheEditorShows(tab, state, applyTextEdits(current, edits).text),
      expectedRevision: options.expectedRevision,
      actor: caller.actor,
      detail: `${edits.length} edit${edits.length === 1 ? '' : 's'}`,
      ...tabWrite(tab, this.editors, this.hooks, { operation: 'write', implicitTab: tabId === undefined, addresses: options.addresses }),
    })
    return this.saveAfterWrite(tab, outcome, options.save, caller)
  }

  /**
   * Into the active WYSIWYG tab of a Markdown document, a text is what that editor makes of it: its serialization of
   * the loaded text (DOC.WRITE.12–13); every other tab gets the text verbatim (DOC.WRITE.14).
   */
  private asTheEditorShows(tab: TabState, state: DocumentState, text: string): string {
    return state.meta?.kind === 'markdown' && this.editors.showsWysiwyg(tab) ? throughEditor(text) : text
  }

  /** The save a write asks for, after it (DOC.WRITE.5–11): reported in the answer, never undoing the write. */
  private async saveAfterWrite(tab: TabState, outcome: WriteOutcome, save: boolean, caller: Caller): Promise<WriteResponse> {
    const written = { revision: outcome.revision, applied: true as const, durable: outcome.durable }
    if (!save) return { ...written, saved: false, save_skipped: 'opt_out' }
    const current = this.workspace.state.tabs.get(tab.tabId)
    if (!current) return { ...written, saved: false, save_error: 'the tab was closed before its save ran; nothing was written' }
    if (current.path === null) return { ...written, saved: false, save_skipped: 'untitled' }
    // An assistant does not save the person's unsaved edits behind their back (checked again where the save takes its
    // text); the person's own write saves what they have.
    const sparePersonEdits = caller.actor.kind === 'mcp'
    if (sparePersonEdits && (await this.documentCommands.read(current.docId, (document) => document?.personEditsUnsaved === true))) {
      return { ...written, saved: false, save_skipped: 'person_unsaved' }
    }
    try {
      // Saved even when the text did not change: the file may hold something else by now (DOC.WRITE.5).
      // The save may have given the file its coherence identity (one more edit): the revision to write from next is
      // the saved one.
      const { revision, journaled } = await this.persist(current, current.path, caller, { tool: 'document.write', sparePersonEdits })
      return { ...written, revision, saved: true, journaled }
    } catch (error) {
      if (error instanceof PersonEditsUnsaved) return { ...written, saved: false, save_skipped: 'person_unsaved' }
      if (!isQuireError(error)) throw error
      return { ...written, saved: false, save_error: error.message }
    }
  }

  /**
   * The save pipeline (SAVE.1–7): capture the text, queue on the file, then at the queue's turn re-check that the
   * tab is open and the path in scope, give way to a later save that already wrote the file, write atomically, and
   * record the save (an `mcp` history entry when an assistant saved).
   */
  private async persist(
    tab: TabState,
    path: string,
    caller: Caller,
    options: {
      exclusive?: boolean
      approval?: Approval
      tool: string
      unchangedSince?: string
      /** An assistant's write saving as it goes: not when the person has unsaved edits of their own (PersonEditsUnsaved). */
      sparePersonEdits?: boolean
    },
  ): Promise<{ revision: string; journaled: Journaled }> {
    const identified = await this.assignIdentity(tab, path, options.unchangedSince)
    // What the file will hold, and the revision it is, taken in the document's step: never a change applied ahead of
    // its append (which the log could still refuse) beside the revision before it. An edit landing while the file is
    // written leaves it dirty.
    const { document, text, revision, revisionPosition, digest } = await this.documentCommands.read(tab.docId, (document) => {
      if (!document) throw new QuireError('INVALID_TAB', `tab ${tab.tabId} has no document`)
      if (options.sparePersonEdits && document.personEditsUnsaved) throw new PersonEditsUnsaved()
      if (options.unchangedSince !== undefined && document.revision !== (identified ?? options.unchangedSince)) {
        // An adoption saves a file as it was read; an edit since (another assistant's write waiting for its own save)
        // must not be saved, nor captured, in its name.
        throw new QuireError('STALE', `${path} changed since it was read; it is not adopted`, { current_revision: document.revision })
      }
      // The document's own cached hash of this very text: the dirty check and the next save of it share one hashing.
      return { document, text: document.content, revision: document.revision, revisionPosition: document.revisionPosition, digest: document.contentHash }
    })
    // After the text is taken (another write landing while its inputs are adopted must not become this save's), and
    // before this save takes its file's queue: adopting saves other files, and waiting on their queues while holding
    // this one could deadlock with a save of theirs adopting this file.
    if (caller.actor.kind === 'mcp') await this.adoptInputs(caller.connection, path)
    const outcome = await this.fs.enqueueSave(
      path,
      async () => {
        this.fs.expectWrite(path, digest)
        try {
          if (options.exclusive) await this.fs.createExclusive(path, text)
          else await this.fs.writeAtomic(path, text)
        } catch (error) {
          if (isQuireError(error)) throw error
          // A disk that refuses the write (full, read-only, permissions) is not a bug: say what happened.
          throw new QuireError('INTERNAL', `could not write ${path}: ${(error as Error).message}`, { written: false })
        }
        const alongside: FoldingAppend[] = []
        if (path !== tab.path) {
          alongside.push(this.workspace.own([{ type: 'document.retargeted', actor: caller.actor, data: { docId: tab.docId, path } }]))
        }
        if (options.approval) alongside.push(this.approvals.consumption(options.approval, caller.actor))
        const journaled = await this.record(tab.docId, { path, sha256: digest, length: text.length, revisionPosition, reason: 'save' }, caller, alongside)
        // In the file's save queue, so captures of one file are in the order of its saves.
        await this.coherence.captureSave({ path, text, actor: caller.actor, connection: caller.actor.kind === 'mcp' ? caller.connection : null, tool: options.tool })
        return { revision, journaled }
      },
      async () => {
        if (!this.workspace.state.tabs.has(tab.tabId)) {
          throw new QuireError('INVALID_TAB', 'the tab was closed before its save ran; nothing was written')
        }
        if (this.documentCommands.amongNodes) await this.assertNotOvertakenOnAnotherNode(tab.docId, path, revisionPosition, document.revision)
        if (document.divergence && !document.divergence.kept && path === tab.path) {
          // Another program changed the file and nobody has chosen between the versions: writing now would destroy
          // the other version silently.
          throw new QuireError('STALE', `${path} changed on disk since it was opened; the user must keep or reload it first (quire divergence)`, {
            current_revision: document.revision,
          })
        }
        await this.fs.resolveInScope(path, this.scopeRoots())
      },
    )
    if (outcome.status === 'superseded') {
      throw new QuireError('STALE', 'a later save already wrote this file; nothing was written', { current_revision: document.revision })
    }
    return outcome.value
  }

  /**
   * Among nodes, the save queue's order holds on each node only; the file's turn (the port holds it across nodes while
   * this runs) and the log's last save of the file say whether another node already wrote a later revision there: the
   * file must not go back to older content (SAVE.3), so this save answers STALE as one overtaken on its own node does.
   */
  private async assertNotOvertakenOnAnotherNode(docId: string, path: string, revisionPosition: number, revision: string): Promise<void> {
    await this.documentCommands.caughtUp(docId)
    const saved = (await this.documents.get(docId))?.saved
    if (saved && saved.path === path && saved.revisionPosition > revisionPosition) {
      throw new QuireError('STALE', 'a later save already wrote this file on another node; nothing was written', { current_revision: revision })
    }
  }

  /**
   * Spec §2.1: a save that will be the file's first coherence capture gives it its `vmark.id` first, as a system edit of
   * the document (so the person's editor, peers and the next save all carry it), written by the same save. An edit
   * that cannot get the document's turn leaves the id for the next save; the save itself goes on.
   */
  private async assignIdentity(tab: TabState, path: string, unchangedSince?: string): Promise<string | undefined> {
    const document = await this.documents.get(tab.docId)
    if (!document || this.coherence.identityFor(path, document.content) === undefined) return undefined
    try {
      const written = await this.documentCommands.write({
        docId: tab.docId,
        content: (current) => this.coherence.identityFor(path, current) ?? current,
        actor: SYSTEM,
        ...(unchangedSince === undefined ? {} : { expectedRevision: unchangedSince }),
      })
      return written.revision
    } catch (error) {
      // An adoption goes no further than its identity: the file changed since it was read (STALE), or cannot take it.
      if (!isQuireError(error) || unchangedSince !== undefined) throw error
      return undefined
    }
  }

  /**
   * Spec §9.4 adoption: the files an assistant read before this save become objects first (identity assigned, saved,
   * captured as adopted), so its capture can name them as inputs. A document with unsaved changes is not adopted:
   * saving it would write the person's unfinished edits; it is left out of the inputs instead.
   */
  private async adoptInputs(connection: string, written: string): Promise<void> {
    for (const path of this.coherence.readPaths(connection, written)) {
      const docId = this.workspace.state.documentsByPath.get(path)
      const document = docId === undefined ? undefined : await this.documents.get(docId)
      const tab = docId === undefined ? undefined : this.workspace.state.tabsOfDocument(docId)[0]
      if (!document || !tab || document.dirty || this.coherence.identityFor(path, document.content) === undefined) continue
      try {
        await this.persist(tab, path, ADOPTION, { tool: 'coherence.adopt', unchangedSince: document.revision })
      } catch (error) {
        if (!isQuireError(error)) throw error
      }
    }
  }

  /** Records the save with the document's owner; the journal's state never turns a save into an error (JRNL.17). */
  private async record(docId: string, mark: SaveMark, caller: Caller, alongside: readonly FoldingAppend[]): Promise<Journaled> {
    try {
      const durability = await this.documentCommands.recordSave(docId, mark, caller.actor, alongside)
      return durability === 'durable' ? 'yes' : durability === 'late' ? 'pending' : 'no'
    } catch {
      return 'no'
    }
  }

  /** Whether `path` is, right now, a real path inside the scope (no symlink on the way, not moved out). */
  async isInScope(path: string): Promise<boolean> {
    try {
      return (await this.fs.resolveInScope(path, this.scopeRoots())).real === path
    } catch {
      return false
    }
  }

  /**
   * What a change another program made to a file means for the document shown in its tabs (the disk watcher's
   * call, DESIGN §7): nothing when no tab shows the file or it no longer resolves inside the scope (a folder swapped
   * for a link must not read something outside into the document); the document is saved when the disk caught up
   * with it; a clean document follows the disk; one with unsaved changes is marked diverged until the person decides.
   */
  async observeDiskChange(path: string, text: string, digest: string): Promise<'ignored' | 'out-of-scope' | 'caught-up' | 'reloaded' | 'own-save' | 'diverged'> {
    const docId = this.workspace.state.documentsByPath.get(path)
    if (docId === undefined || this.workspace.state.tabsOfDocument(docId).length === 0) return 'ignored'
    const document = await this.documents.get(docId)
    if (!document) return 'ignored'
    if (!(await this.isInScope(path))) return 'out-of-scope'
    const content = normalizeLineEndings(text)
    if (document.content === content) {
      if (document.dirty) await this.documentCommands.markSaved(docId, path, 'open', DISK)
      return 'caught-up'
    }
    if (!document.dirty) {
      await this.documentCommands.replaceFromDisk(docId, content, path, DISK)
      // Spec §9.4: a change made by another program is an observed-external revision (unknown confidence, no inputs).
      await this.coherence.captureSave({ path, text: content, actor: DISK, connection: null, tool: 'disk' })
      return 'reloaded'
    }
    // A save killed between its rename and its record left the file holding a revision Quire itself was saving:
    // that is Quire's own save (the document stays dirty if it moved on since), not another program's edit.
    const ownSave = await this.documents.revisionWithHash(docId, digest, document.saved?.position ?? 0)
    if (ownSave !== undefined) {
      await this.documentCommands.recordSave(docId, { path, sha256: digest, length: content.length, revisionPosition: ownSave, reason: 'save' }, SYSTEM)
      return 'own-save'
    }
    await this.documentCommands.markDiverged(docId, path, digest, content.length, DISK)
    return 'diverged'
  }

  /** The hash of what the document last matched in `path`, so a change made before a watch started is still seen. */
  async savedDigest(path: string): Promise<string | undefined> {
    const docId = this.workspace.state.documentsByPath.get(path)
    const document = docId === undefined ? undefined : await this.documents.get(docId)
    return document?.saved?.path === path ? document.saved.sha256 : undefined
  }

  /**
   * The person's decision on a diverged document: keep the tab's version (closing still needs force until it is
   * saved), or reload the disk's text into the document.
   */
  async resolveDivergence(docId: string, choice: 'keep' | 'reload', actor: Actor): Promise<void> {
    const document = await this.documents.get(docId)
    if (!document) throw new QuireError('NOT_FOUND', `no document ${docId}`)
    if (!document.divergence) throw new QuireError('INVALID_ARGUMENT', `document ${docId} has not diverged from its file`)
    if (choice === 'keep') return this.documentCommands.keepDivergence(docId, actor)
    const path = document.meta?.path
    if (!path) throw new QuireError('INVALID_ARGUMENT', `document ${docId} has no file to reload`)
    await this.documentCommands.replaceFromDisk(docId, await this.fs.readText(path), path, actor)
  }

  /**
   * The workspace instance whose root holds `path` (of `windowLabel` when given: a tab never belongs to another
   * window's instance), preferring the one the window shows.
   */
  private instanceContaining(path: string, preferred: string | null, windowLabel?: string): string | null {
    const inside = [...this.workspace.state.instances.values()].filter(
      (instance) => (windowLabel === undefined || instance.windowLabel === windowLabel) && (path === instance.root || path.startsWith(instance.root + sep)),
    )
    return inside.find((instance) => instance.instanceId === preferred)?.instanceId ?? inside[0]?.instanceId ?? null
  }
}

/** The WYSIWYG editor's serialization of a Markdown text: what loading it into the editor and saving gives. */
const throughEditor = (content: string): string => serializeMarkdown(parseMarkdown(normalizeLineEndings(content)))

/**
 * Raised at a write's save when the person has edits of their own that no save has written: an assistant's write does
 * not save them behind the person's back (the write answers `saved: false`, `save_skipped: "person_unsaved"`).
 */
class PersonEditsUnsaved extends Error {
  override name = 'PersonEditsUnsaved'
}
