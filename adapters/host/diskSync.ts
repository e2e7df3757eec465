import { DISK } from '../../core/events/actor.js'
import type { Services } from './services.js'
import { FileWatcher, type FileChange } from '../fs/fileWatcher.js'
import { decodeText } from '../fs/readText.js'

/**
 * The disk as a participant (the MCP issue's item 4): every file shown in a tab is watched; when another program
 * changes it, a clean document follows the disk (a `disk` change), and one with unsaved changes is marked
 * diverged until the person decides (`quire divergence keep|reload`). Quire's own saves are announced to the
 * watcher beforehand and are not reported back.
 */
export class DiskSync {
  readonly watcher: FileWatcher
  private watched = new Set<string>()
  private readonly stop: () => void
  private chain: Promise<void> = Promise.resolve()

  constructor(
    private readonly services: Services,
    private readonly report: (message: string) => void = () => {},
  ) {
    const onError = report
    this.watcher = new FileWatcher({
      onChange: (change) => {
        this.chain = this.chain.then(() => this.handle(change)).catch((error: unknown) => onError(`disk change of ${change.path}: ${(error as Error).message}`))
      },
      onError: (error, path) => onError(`watching ${path}: ${(error as Error).message}`),
    })
    const workspace = services.engine.views.workspace
    this.stop = workspace.onChange(() => this.sync())
    this.sync()
  }

  /** Watches exactly the files of open tabs. */
  private sync(): void {
    const wanted = new Set<string>()
    for (const tab of this.services.engine.views.workspace.state.tabs.values()) if (tab.path !== null) wanted.add(tab.path)
    for (const path of wanted) {
      if (this.watched.has(path)) continue
      void this.baseline(path).then((sha256) => this.watcher.add(path, sha256 === undefined ? {} : { sha256 }))
    }
    for (const path of this.watched) if (!wanted.has(path)) this.watcher.remove(path)
    this.watched = wanted
  }

  /** The hash the document last matched on disk, so a change made before the watch started is still seen. */
  private async baseline(path: string): Promise<string | undefined> {
    const docId = this.services.engine.views.workspace.state.documentsByPath.get(path)
    const document = docId === undefined ? undefined : await this.services.engine.documents.get(docId)
    return document?.saved?.path === path ? document.saved.sha256 : undefined
  }

  private async handle(change: FileChange): Promise<void> {
    if (change.state !== 'present') return
    const { engine, files } = this.services
    const docId = engine.views.workspace.state.documentsByPath.get(change.path)
    if (docId === undefined || engine.views.workspace.state.tabsOfDocument(docId).length === 0) return
    const document = await engine.documents.get(docId)
    if (!document) return
    // The file must still be the one in scope: a folder on its path swapped for a link would make the watcher read
    // something outside the workspace into the document.
    if (!(await files.isInScope(change.path))) {
      this.report(`ignored a change at ${change.path}: it no longer resolves inside the workspace`)
      return
    }
    const { text } = decodeText(change.content, change.path)
    if (document.content === text) {
      // The disk caught up with the document (another program wrote the same text): it is saved now.
      if (document.dirty) await engine.commands.documents.markSaved(docId, change.path, 'open', DISK)
      return
    }
    if (!document.dirty) await engine.commands.documents.replaceFromDisk(docId, text, change.path, DISK)
    else await files.markDiverged(docId, change.path, change.sha256, text.length)
  }

  close(): void {
    this.stop()
    this.watcher.close()
  }
}
