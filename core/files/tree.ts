import { basename, sep } from 'node:path'
import type { DocumentCommands } from '../documents/commands.js'
import type { DocumentRepository } from '../documents/documentRepository.js'
import { QuireError, isQuireError } from '../errors.js'
import type { EventLog } from '../log/eventLog.js'
import type { FoldedStream } from '../streams/foldedStream.js'
import { isWorkflowPath } from '../workflow/detect.js'
import type { Caller } from '../workspace/commands.js'
import type { WorkspaceState } from '../workspace/workspaceState.js'
import type { FileCommands, OpenOutcome } from './commands.js'
import type { FileSystemPort, FolderEntry } from './port.js'

/** What a file's name says it is, for the tree's badge (opening it decides the document's real kind). */
export type EntryKind = 'markdown' | 'yaml' | 'workflow' | 'other'

export interface TreeEntry extends FolderEntry {
  /** Files only. */
  readonly kind: EntryKind | null
  /** The tabs showing this file now (any window). */
  readonly tabIds: readonly string[]
}

export interface TreeFolder {
  readonly path: string
  readonly entries: readonly TreeEntry[]
  readonly truncated: boolean
}

/** Where a rename took a file or folder, and the documents that followed it. */
export interface RenameOutcome {
  readonly from: string
  readonly to: string
  readonly retargeted: readonly { readonly docId: string; readonly path: string }[]
}

const kindOfName = (path: string): EntryKind => {
  if (isWorkflowPath(path)) return 'workflow'
  if (/\.ya?ml$/i.test(path)) return 'yaml'
  if (/\.(md|markdown|mdown|mkd)$/i.test(path)) return 'markdown'
  return 'other'
}

const inside = (path: string, folder: string): boolean => path === folder || path.startsWith(folder + sep)

/**
 * The person's file tree of the open workspaces: list a folder, create a file (opened in a tab) or a folder, and
 * rename a file or folder. Every path goes through the port's scope (open workspaces and the folders of open
 * documents; never Quire's own data), like every open and save. A rename moves the documents of the files it moves
 * along: each is retargeted to its new path (a document belongs to one file) and marked as held by that file, so the
 * disk watcher, `quire history` and the next save follow it.
 */
export class FileTreeCommands {
  constructor(
    private readonly store: EventLog,
    private readonly workspace: FoldedStream<WorkspaceState>,
    private readonly documents: DocumentRepository,
    private readonly documentCommands: DocumentCommands,
    private readonly files: FileCommands,
    private readonly fs: FileSystemPort,
  ) {}

  /** The roots the tree starts from: the open workspace folders. */
  roots(): string[] {
    return this.workspace.state.workspaceRoots
  }

  async list(folder: string): Promise<TreeFolder> {
    const listing = await this.fs.listFolder(folder, this.files.scopeRoots())
    const tabsByPath = new Map<string, string[]>()
    for (const tab of this.workspace.state.tabs.values()) {
      if (tab.path !== null) tabsByPath.set(tab.path, [...(tabsByPath.get(tab.path) ?? []), tab.tabId])
    }
    return {
      path: listing.path,
      truncated: listing.truncated,
      entries: listing.entries.map((entry) => ({
        ...entry,
        kind: entry.type === 'file' ? kindOfName(entry.path) : null,
        tabIds: tabsByPath.get(entry.path) ?? [],
      })),
    }
  }

  /** Creates an empty file that must not exist yet and opens it in a background tab of the window (WS.OPEN.1). */
  async createFile(filePath: string, windowLabel: string | undefined, caller: Caller): Promise<OpenOutcome & { filePath: string }> {
    const target = await this.fs.resolveInScope(filePath, this.files.scopeRoots())
    if (target.exists) throw new QuireError('ALREADY_EXISTS', `${target.real} already exists; nothing was replaced`, { path: target.real })
    try {
      await this.fs.createExclusive(target.real, '')
    } catch (error) {
      // The port refuses a name something took meanwhile as it refuses save_as over a file; here it is no question.
      if (isQuireError(error, 'APPROVAL_REQUIRED')) throw new QuireError('ALREADY_EXISTS', `${target.real} already exists; nothing was replaced`, { path: target.real })
      throw error
    }
    return { ...(await this.files.open(target.real, windowLabel, caller)), filePath: target.real }
  }

  async createFolder(folderPath: string): Promise<{ folderPath: string }> {
    const target = await this.fs.resolveInScope(folderPath, this.files.scopeRoots())
    if (target.exists) throw new QuireError('ALREADY_EXISTS', `${target.real} already exists; nothing was replaced`, { path: target.real })
    await this.fs.createFolder(target.real)
    return { folderPath: target.real }
  }

  /**
   * Renames (or moves, inside the scope) a file or folder to a path where nothing is. A workspace folder itself, or
   * one holding it, stays where it is; a document whose file changed on disk under unsaved changes must be decided
   * (keep or reload) first, since its file no longer holds what the document says it does.
   */
  async rename(fromPath: string, toPath: string, caller: Caller): Promise<RenameOutcome> {
    const roots = this.files.scopeRoots()
    const from = await this.fs.resolveInScope(fromPath, roots)
    if (!from.exists) throw new QuireError('NOT_FOUND', `${fromPath} does not exist`, { path: fromPath })
    const to = await this.fs.resolveInScope(toPath, roots)
    if (to.exists) throw new QuireError('ALREADY_EXISTS', `${to.real} already exists; nothing was replaced`, { path: to.real })
    if (this.workspace.state.workspaceRoots.some((root) => inside(root, from.real))) {
      throw new QuireError('INVALID_PATH', `${from.real} is an open workspace folder (or holds one); it is not renamed from inside it`, { path: from.real })
    }
    const moving = await this.documentsInside(from.real)
    const outcome = await this.fs.enqueueSave(
      from.real,
      async () => {
        await this.fs.rename(from.real, to.real)
        const retargeted: { docId: string; path: string }[] = []
        for (const { docId, path } of moving) {
          const moved = to.real + path.slice(from.real.length)
          await this.retarget(docId, path, moved, caller)
          retargeted.push({ docId, path: moved })
        }
        return { from: from.real, to: to.real, retargeted }
      },
      async () => {
        // At the turn, as a save's: both ends still in scope, and nothing arrived at the target meanwhile.
        const now = this.files.scopeRoots()
        await this.fs.resolveInScope(from.real, now)
        if ((await this.fs.resolveInScope(to.real, now)).exists) throw new QuireError('ALREADY_EXISTS', `${to.real} already exists; nothing was replaced`, { path: to.real })
      },
    )
    if (outcome.status === 'superseded') throw new QuireError('STALE', `a save of ${basename(from.real)} ran meanwhile; nothing was renamed`)
    return outcome.value
  }

  /** The documents whose file is `path` or inside it; refuses when one of them diverged from its file undecided. */
  private async documentsInside(path: string): Promise<{ docId: string; path: string }[]> {
    const found: { docId: string; path: string }[] = []
    for (const [file, docId] of this.workspace.state.documentsByPath) {
      if (!inside(file, path)) continue
      const document = await this.documents.get(docId)
      if (document?.divergence && !document.divergence.kept) {
        throw new QuireError('STALE', `${file} changed on disk under unsaved changes; keep or reload it first (quire divergence)`, { path: file })
      }
      found.push({ docId, path: file })
    }
    return found
  }

  /**
   * The document now belongs to `moved`: its tabs show it (the workspace's `document.retargeted`) and, in the same
   * append, the file there holds what the old one held (`document.saved` with the same bytes and revision, as read:
   * reason `open`), so dirty stays as it was and the disk watcher starts from the right bytes.
   */
  private async retarget(docId: string, path: string, moved: string, caller: Caller): Promise<void> {
    const event = { type: 'document.retargeted', actor: caller.actor, data: { docId, path: moved } }
    const saved = (await this.documents.get(docId))?.saved
    if (!saved || saved.path !== path) {
      await this.workspace.handle(this.store, () => [event])
      return
    }
    const mark = { path: moved, sha256: saved.sha256, length: saved.length, revisionPosition: saved.revisionPosition, reason: 'open' as const }
    // Taken last: the workspace's share carries the stream version it is appended at.
    await this.documentCommands.recordSave(docId, mark, caller.actor, [this.workspace.own([event])])
  }
}
